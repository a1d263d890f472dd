//! Behaving like a desktop service (docs/DESIGN.md, "Process life"): one instance per data dir, start at
//! login, a quick graceful stop even while the provider hangs.

use std::process::Command;
use std::time::Duration;

use inkling::storage::Store;

use crate::fake_ollama::{FakeOllama, Reply};
use crate::helpers::{free_port, inkling_binary, run_cli, ServiceProcess};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_second_instance_on_the_same_data_dir_exits_at_once_saying_who_runs() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let first = ServiceProcess::start(dir.path(), port);

    let second = run_cli(dir.path(), free_port(), &["run"], None);

    assert_eq!(second.status.code(), Some(4));
    assert_eq!(
        stderr(&second).trim(),
        format!(
            "inkling: already running (pid {}, http://127.0.0.1:{port})",
            first.child.id()
        )
    );
}

#[test]
fn a_lock_left_by_a_killed_instance_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = ServiceProcess::start(dir.path(), free_port());
    first.child.kill().unwrap(); // SIGKILL: no clean-up at all
    first.child.wait().unwrap();
    assert!(
        dir.path().join("inkling.lock").exists(),
        "the file stays behind"
    );

    let port = free_port();
    let second = ServiceProcess::start(dir.path(), port);

    let lock = std::fs::read_to_string(dir.path().join("inkling.lock")).unwrap();
    assert!(
        lock.contains(&format!("\"pid\":{}", second.child.id())),
        "{lock}"
    );
    assert!(lock.contains(&format!("http://127.0.0.1:{port}")), "{lock}");
}

#[test]
fn two_instances_on_two_data_dirs_run_side_by_side() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = ServiceProcess::start(a.path(), free_port());
    let second = ServiceProcess::start(b.path(), free_port());
    assert!(first.cli(&["status"]).status.success());
    assert!(second.cli(&["status"]).status.success());
}

fn autostart(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(inkling_binary())
        .env_clear()
        .env("HOME", home)
        .env("INKLING_DATA_DIR", home.join("data"))
        .arg("autostart")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn autostart_writes_and_removes_an_xdg_entry_or_a_systemd_unit_in_home() {
    let home = tempfile::tempdir().unwrap();
    let entry = home.path().join(".config/autostart/inkling.desktop");
    let unit = home.path().join(".config/systemd/user/inkling.service");

    assert_eq!(
        String::from_utf8_lossy(&autostart(home.path(), &["status"]).stdout).trim(),
        "off"
    );
    for _ in 0..2 {
        assert!(
            autostart(home.path(), &["on"]).status.success(),
            "idempotent"
        );
    }
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(
        text.contains(&format!("Exec=\"{}\" run", inkling_binary())),
        "{text}"
    );
    assert!(home
        .path()
        .join(".local/share/icons/hicolor/scalable/apps/inkling.svg")
        .exists());
    assert!(autostart(home.path(), &["on", "--systemd"])
        .status
        .success());
    assert!(std::fs::read_to_string(&unit)
        .unwrap()
        .contains("Restart=on-failure"));
    let status = String::from_utf8_lossy(&autostart(home.path(), &["status"]).stdout).into_owned();
    assert!(
        status.contains("inkling.desktop") && status.contains("inkling.service"),
        "{status}"
    );

    assert!(autostart(home.path(), &["off"]).status.success());
    assert!(!entry.exists());
    assert!(unit.exists(), "off without --systemd leaves the unit");
    assert!(autostart(home.path(), &["off", "--systemd"])
        .status
        .success());
    assert!(!unit.exists());
    // A file the user wrote there is left alone.
    std::fs::write(&entry, "[Desktop Entry]\nExec=something-else\n").unwrap();
    let refused = autostart(home.path(), &["off"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(entry.exists());
}

/// A service whose provider hangs, with one note whose call is in flight.
fn service_with_a_call_in_flight(dir: &std::path::Path, port: u16) -> (ServiceProcess, String) {
    let (hanging_url, calls) = fake_on_a_thread(Reply::Hang);
    let service = ServiceProcess::start_with(dir, port, &[("INKLING_OLLAMA__URL", &hanging_url)]);
    let captured = service.cli(&["--json", "capture", "in flight when stopped"]);
    let id = serde_json::from_slice::<serde_json::Value>(&captured.stdout).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    calls
        .recv_timeout(Duration::from_secs(10))
        .expect("the provider is called");
    (service, id)
}

/// The note is still queued with no attempt spent, and a restart with a provider that
/// answers processes it.
fn assert_pending_then_processed_after_a_restart(dir: &std::path::Path, port: u16, id: &str) {
    {
        let store = Store::open(&dir.join("inkling.db"), 30).unwrap();
        let job = store.job(id).unwrap().expect("still queued");
        assert_eq!(job.attempts, 0, "an abandoned call is not a failure");
        assert_eq!(
            store.get(id).unwrap().ai_status,
            inkling::domain::AiStatus::Pending
        );
        assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
    }
    let (answering_url, _) = fake_on_a_thread(Reply::Ok);
    let service = ServiceProcess::start_with(dir, port, &[("INKLING_OLLAMA__URL", &answering_url)]);
    for _ in 0..500 {
        let shown = service.cli(&["--json", "show", id]);
        let note: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
        if note["ai_status"] == "done" {
            return;
        }
        // Waiting for background work in another process, not a timed rule.
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the note was not processed after the restart");
}

#[test]
fn sigterm_while_the_provider_hangs_exits_0_quickly_and_the_note_survives() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let (mut service, id) = service_with_a_call_in_flight(dir.path(), port);

    let stopping = std::time::Instant::now();
    service.signal("TERM");
    let status = service
        .wait_for_exit(Duration::from_secs(10))
        .expect("stopped within 10 s");

    assert!(status.success(), "{status}");
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "took {:?}",
        stopping.elapsed()
    );
    assert_pending_then_processed_after_a_restart(dir.path(), port, &id);
}

#[test]
fn kill_9_in_the_middle_of_a_provider_call_loses_nothing_and_costs_no_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let (mut service, id) = service_with_a_call_in_flight(dir.path(), port);

    service.child.kill().unwrap(); // SIGKILL mid-call
    service.child.wait().unwrap();

    assert_pending_then_processed_after_a_restart(dir.path(), port, &id);
}

/// A fake Ollama on its own thread (the service under test is another process).
/// Returns its URL and a channel that gets a message per `/api/chat` call.
fn fake_on_a_thread(reply: Reply) -> (String, std::sync::mpsc::Receiver<()>) {
    fake_on_a_thread_with(reply, |_| {})
}

/// [`fake_on_a_thread`], set up by `setup` first.
pub(crate) fn fake_on_a_thread_with(
    reply: Reply,
    setup: impl FnOnce(&FakeOllama) + Send + 'static,
) -> (String, std::sync::mpsc::Receiver<()>) {
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let (call_tx, call_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_rt::System::new().block_on(async move {
            let fake = FakeOllama::start_new().await;
            fake.set_default(reply);
            setup(&fake);
            url_tx.send(fake.url()).unwrap();
            let mut seen = 0;
            loop {
                let calls = fake.calls().len();
                while seen < calls {
                    let _ = call_tx.send(());
                    seen += 1;
                }
                actix_rt::time::sleep(Duration::from_millis(10)).await;
            }
        });
    });
    (url_rx.recv().unwrap(), call_rx)
}

#[test]
fn pull_model_downloads_the_model_with_a_progress_line_and_the_status_follows() {
    let (url, _calls) = fake_on_a_thread_with(Reply::Ok, |fake| fake.set_models(&[]));
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with(dir.path(), port, &[("INKLING_OLLAMA__URL", &url)]);
    let status = String::from_utf8_lossy(&service.cli(&["status"]).stdout).into_owned();
    assert!(status.contains("run `ollama pull llama3.2`"), "{status}");

    let pulled = service.cli(&["pull-model"]);
    let out = String::from_utf8_lossy(&pulled.stdout).into_owned();
    assert!(
        pulled.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&pulled.stderr)
    );
    assert!(out.contains("pulling manifest"), "{out}");
    assert!(
        out.contains("downloading 6a0746a1ec1a: 50 % (1.0 GB of 2.0 GB)"),
        "{out}"
    );
    assert!(
        out.ends_with("the model is installed; the AI work starts now\n"),
        "{out}"
    );
    let status = String::from_utf8_lossy(&service.cli(&["status"]).stdout).into_owned();
    assert!(status.contains("ollama: ready"), "{status}");

    // The CLI asked `/api/provider/pull`; the path it had when Ollama was the only
    // provider answers the same, as an alias.
    let token = service.token().expect("the service's token");
    let (code, body) = crate::helpers::blocking_request(
        port,
        "POST",
        "/api/ollama/pull",
        Some(&token),
        Some("{}"),
    )
    .unwrap();
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains(r#""model":"llama3.2""#) && body.contains(r#""state":"done""#),
        "{body}"
    );
}

#[test]
fn without_a_session_bus_the_service_runs_headless_and_says_so_once() {
    let dir = tempfile::tempdir().unwrap();
    let runtime_dir = tempfile::tempdir().unwrap(); // no `bus` socket in it
    let runtime = runtime_dir.path().to_str().unwrap();
    let service = ServiceProcess::start_with(
        dir.path(),
        free_port(),
        &[
            ("INKLING_TRAY__ENABLED", "true"),
            ("INKLING_REMINDERS__NOTIFY", "true"),
            ("XDG_RUNTIME_DIR", runtime),
        ],
    );

    assert!(
        service.cli(&["status"]).status.success(),
        "it serves without a tray"
    );
    let logs: String = std::fs::read_dir(dir.path().join("logs"))
        .unwrap()
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .collect();
    assert_eq!(logs.matches("running without a tray").count(), 1, "{logs}");
    // Nor desktop notifications: reminders are listed by `inkling today` and the API only.
    assert_eq!(
        logs.matches("no desktop notifications").count(),
        1,
        "{logs}"
    );
}

/// A stand-in `gsettings` on PATH: it writes down each call's arguments (separated by
/// the unit separator, one call a line) and keeps what is set, per key name, so `get`
/// answers what `set` wrote. The GNOME media-keys schema is not in Debian's test
/// packages without GNOME's settings daemon, so the real one cannot be used here.
fn fake_gsettings(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    let state = dir.join("gsettings-state");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    let log = dir.join("gsettings-calls");
    let script = format!(
        r#"#!/bin/sh
for word in "$@"; do printf '%s\037' "$word"; done >> '{log}'
echo >> '{log}'
state='{state}'
case "$1" in
  get) if [ -f "$state/$3" ]; then cat "$state/$3"; elif [ "$3" = custom-keybindings ]; then echo '@as []'; else echo "''"; fi ;;
  set) printf '%s\n' "$4" > "$state/$3" ;;
  reset) rm -f "$state/$3" ;;
esac
"#,
        log = log.display(),
        state = state.display()
    );
    std::fs::write(bin.join("gsettings"), script).unwrap();
    std::fs::set_permissions(
        bin.join("gsettings"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    (bin, log)
}

#[test]
fn shortcut_on_gnome_adds_a_custom_keybinding_that_runs_inkling_quick_and_off_takes_it_away() {
    let dir = tempfile::tempdir().unwrap();
    let (bin, log) = fake_gsettings(dir.path());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [
        ("PATH", path.as_str()),
        ("XDG_CURRENT_DESKTOP", "ubuntu:GNOME"),
    ];
    // Another binding the person had: kept.
    std::fs::write(
        dir.path().join("gsettings-state/custom-keybindings"),
        "['/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/']\n",
    )
    .unwrap();
    let shortcut = |action: &str| {
        crate::helpers::run_cli_with(dir.path(), free_port(), &["shortcut", action], None, &env)
    };

    let on = shortcut("on");
    assert!(on.status.success(), "{}", stderr(&on));
    assert_eq!(
        String::from_utf8_lossy(&on.stdout).trim(),
        "on: Ctrl+Alt+N opens a quick note (GNOME's keyboard settings, \"inkling quick note\")"
    );
    let calls: Vec<Vec<String>> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| {
            line.split('\u{1f}')
                .filter(|word| !word.is_empty())
                .map(String::from)
                .collect()
        })
        .collect();
    let entry = "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:\
                 /org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/inkling-quick/";
    let exe = inkling_binary();
    let words = |all: &[&str]| all.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        calls,
        vec![
            words(&["get", "org.gnome.settings-daemon.plugins.media-keys", "custom-keybindings"]),
            words(&["set", entry, "name", "'inkling quick note'"]),
            words(&["set", entry, "command", &format!(r"'\'{exe}\' quick'")]),
            words(&["set", entry, "binding", "'<Control><Alt>n'"]),
            words(&[
                "set",
                "org.gnome.settings-daemon.plugins.media-keys",
                "custom-keybindings",
                "['/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/', \
                 '/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/inkling-quick/']",
            ]),
        ]
    );

    let status = shortcut("status");
    assert_eq!(
        String::from_utf8_lossy(&status.stdout).trim(),
        "on: <Control><Alt>n (GNOME)"
    );
    let off = shortcut("off");
    assert!(off.status.success(), "{}", stderr(&off));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("gsettings-state/custom-keybindings")).unwrap(),
        "['/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/']\n",
        "the person's own binding stays"
    );
    assert_eq!(
        String::from_utf8_lossy(&shortcut("status").stdout).trim(),
        "off"
    );
}

#[test]
fn shortcut_on_a_desktop_inkling_cannot_set_prints_the_command_to_bind() {
    let dir = tempfile::tempdir().unwrap();
    let output = crate::helpers::run_cli_with(
        dir.path(),
        free_port(),
        &["shortcut", "on"],
        None,
        &[("XDG_CURRENT_DESKTOP", "sway")],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!(
            "inkling cannot set this desktop's shortcuts; in its keyboard settings, bind Ctrl+Alt+N to:\n  '{}' quick",
            inkling_binary()
        )
    );
}

/// `quick.portal = true` with no portal to be had (here no session bus at all): the
/// service says why once, captures as ever, and stops cleanly on SIGTERM (the
/// listener's thread and runtime do not hold it up or abort it).
#[test]
fn the_portal_shortcut_without_a_bus_costs_nothing_and_the_service_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut service = ServiceProcess::start_with(
        dir.path(),
        port,
        &[
            ("INKLING_QUICK__PORTAL", "true"),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus"),
        ],
    );
    let captured = service.cli(&["capture", "with the portal asked for"]);
    assert!(captured.status.success(), "{}", stderr(&captured));
    service.signal("TERM");
    let status = service
        .wait_for_exit(Duration::from_secs(10))
        .expect("the service stops on SIGTERM");
    assert!(status.success(), "{status}");
}
