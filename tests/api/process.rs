//! The real binary: restart, graceful stop on signals, kill -9 under load, start-up
//! refusals.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use inkling::storage::Store;

use crate::helpers::{blocking_request, free_port, inkling_binary, run_cli, ServiceProcess};

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_note_captured_from_the_cli_is_found_again_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut service = ServiceProcess::start(dir.path(), port);
    let captured = service.cli(&["capture", "remember the milk"]);
    assert!(captured.status.success(), "{}", stderr(&captured));
    let id = stdout(&captured)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();

    service.signal("TERM");
    assert!(service.wait_for_exit(Duration::from_secs(10)).is_some());
    let service = ServiceProcess::start(dir.path(), port);

    let listed = service.cli(&["list"]);
    // The list prints the shortest start of each id that names it.
    let shown = stdout(&listed)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        shown.len() >= 8 && id.starts_with(&shown),
        "{}",
        stdout(&listed)
    );
    assert!(stdout(&listed).contains("remember the milk"));
    let shown = service.cli(&["show", &id]);
    assert!(stdout(&shown).contains("remember the milk"));
}

#[test]
fn sigterm_and_sigint_stop_the_service_with_exit_status_0() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        let mut service = ServiceProcess::start(dir.path(), free_port());
        service.cli(&["capture", "before the stop"]);

        service.signal(signal);

        let status = service
            .wait_for_exit(Duration::from_secs(10))
            .unwrap_or_else(|| panic!("SIG{signal}: still running after 10 s"));
        assert!(status.success(), "SIG{signal}: {status}");
        let store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
        assert_eq!(store.count_pending().unwrap(), 1);
    }
}

#[test]
fn every_acknowledged_capture_survives_kill_9_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut service = ServiceProcess::start(dir.path(), port);
    let token = service.token().unwrap();
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));

    // Four clients capture as fast as they can while the service is killed.
    let clients: Vec<_> = (0..4)
        .map(|client| {
            let (acknowledged, stop, token) = (acknowledged.clone(), stop.clone(), token.clone());
            std::thread::spawn(move || {
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let body = format!(r#"{{"body": "client {client} note {i}"}}"#);
                    match blocking_request(port, "POST", "/api/notes", Some(&token), Some(&body)) {
                        Ok((201, reply)) => {
                            let note: serde_json::Value = serde_json::from_str(&reply).unwrap();
                            acknowledged
                                .lock()
                                .unwrap()
                                .push(note["id"].as_str().unwrap().to_string());
                        }
                        _ => break, // the service is gone
                    }
                }
            })
        })
        .collect();
    while acknowledged.lock().unwrap().len() < 200 {
        std::thread::sleep(Duration::from_millis(5));
    }

    service.child.kill().unwrap(); // SIGKILL, mid-load
    service.child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }

    let acknowledged = acknowledged.lock().unwrap().clone();
    let store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
    for id in &acknowledged {
        store
            .get(id)
            .unwrap_or_else(|e| panic!("acknowledged note {id} was lost: {e}"));
    }
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
    drop(store);

    // The service starts again on the same files and serves them.
    let service = ServiceProcess::start(dir.path(), port);
    let shown = service.cli(&["show", &acknowledged[0]]);
    assert!(shown.status.success(), "{}", stderr(&shown));
}

#[test]
fn captures_sent_together_are_all_stored_and_every_message_they_sent_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let token = service.token().unwrap();
    // Eight clients at once, as the guard's: their captures share commits, one message
    // to the repository per commit (src/actors/repository/group_commit.rs).
    let clients: Vec<_> = (0..8)
        .map(|client| {
            let token = token.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let body = format!(r#"{{"body": "client {client} note {i}"}}"#);
                    let (status, reply) =
                        blocking_request(port, "POST", "/api/notes", Some(&token), Some(&body))
                            .unwrap();
                    assert_eq!(status, 201, "{reply}");
                }
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    // `status` asks the repository for the counts: every message the captures sent is
    // handled by then (one mailbox, first in, first out). A message whose asker went
    // before its turn is skipped by actix and would stay counted as waiting for ever;
    // one the service's other actors sent meanwhile is handled by the next look.
    let mut seen = Vec::new();
    for _ in 0..20 {
        let output = service.cli(&["status", "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("status --json: {e}: {}", stderr(&output)));
        assert_eq!(status["counts"]["pending"], 200, "{status}");
        let repository = status["actors"]["repository"].clone();
        if repository["waiting"] == 0 {
            assert_eq!(
                repository["received"], repository["handled"],
                "{repository}"
            );
            return;
        }
        seen.push(repository);
    }
    panic!("messages to the repository left waiting: {seen:?}");
}

#[test]
fn an_invalid_config_stops_start_up_with_one_line_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[http]\nport = \"abc\"\n").unwrap();

    // Not `run_cli`: its INKLING_HTTP__PORT would override the file's bad value.
    let output = std::process::Command::new(inkling_binary())
        .env("INKLING_DATA_DIR", dir.path())
        .args(["--config", config.to_str().unwrap(), "run"])
        .output()
        .unwrap();

    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(message.contains("http.port"), "{message}");
    assert!(
        !dir.path().join("inkling.db").exists(),
        "nothing was started"
    );
}

#[test]
fn a_negative_backoff_in_the_environment_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(inkling_binary())
        .env("INKLING_DATA_DIR", dir.path())
        .env("INKLING_WORKER__UNREACHABLE_BACKOFFS_MS", "30000,-1")
        .arg("run")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("worker.unreachable_backoffs_ms"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn client_commands_say_in_one_line_when_the_service_is_not_running() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    // Never started: no token either.
    for args in [&["status"][..], &["capture", "x"], &["list"]] {
        let output = run_cli(dir.path(), port, args, None);
        assert_eq!(output.status.code(), Some(3), "{args:?}");
        let message = stderr(&output);
        assert_eq!(message.trim().lines().count(), 1, "{message}");
        assert!(message.contains("not running"), "{message}");
    }
    // Started once, then stopped: the token exists but nothing answers.
    let mut service = ServiceProcess::start(dir.path(), port);
    service.signal("TERM");
    service.wait_for_exit(Duration::from_secs(10)).unwrap();
    let output = run_cli(dir.path(), port, &["status"], None);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("not running"));
    assert!(blocking_request(port, "GET", "/api/status", None, None).is_err());
}

#[cfg(unix)]
#[test]
fn the_service_refuses_to_start_with_a_token_file_others_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut service = ServiceProcess::start(dir.path(), port);
    service.signal("TERM");
    service.wait_for_exit(Duration::from_secs(10)).unwrap();
    let token = dir.path().join("api-token");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();

    let output = run_cli(dir.path(), port, &["run"], None);

    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("readable by others"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_non_loopback_bind_address_is_refused_unless_explicitly_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(inkling_binary())
        .env("INKLING_DATA_DIR", dir.path())
        .env("INKLING_HTTP__BIND", "0.0.0.0")
        .arg("run")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("http.bind"), "{}", stderr(&output));
}
