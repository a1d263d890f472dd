//! The client subcommands against a running service.

use crate::helpers::{free_port, run_cli, ServiceProcess};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn capture_status_list_and_show_work_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);

    let captured = service.cli(&["capture", "first thought"]);
    assert!(captured.status.success());
    assert!(text(&captured.stdout).starts_with("captured "));
    let from_stdin = run_cli(
        dir.path(),
        port,
        &["--json", "capture", "-"],
        Some("line one\nline two\n"),
    );
    assert!(from_stdin.status.success(), "{}", text(&from_stdin.stderr));
    let note: serde_json::Value = serde_json::from_slice(&from_stdin.stdout).unwrap();
    assert_eq!(note["body"], "line one\nline two\n");
    assert_eq!(note["ai_status"], "pending");

    let status = service.cli(&["status"]);
    assert!(
        text(&status.stdout).contains("2 pending, 0 failed (expiry is off: notes never expire; the page asks after a month, or set expiry.choice = \"on\")"),
        "{}",
        text(&status.stdout)
    );
    // The vectors' state is said; the actors' table waits for --verbose.
    let plain = text(&status.stdout);
    assert!(
        plain.lines().any(|l| l.starts_with("related notes: ")),
        "{plain}"
    );
    assert!(!plain.contains("received"), "{plain}");
    // Per-actor counters (docs/DESIGN.md, "Logs and actor counters"), received = handled + waiting.
    let status = service.cli(&["status", "--verbose"]);
    let status_text = text(&status.stdout);
    assert!(status_text.contains("received"), "{status_text}");
    assert!(
        status_text
            .lines()
            .any(|l| l.trim_start().starts_with("repository ")),
        "{status_text}"
    );
    let status_json: serde_json::Value =
        serde_json::from_slice(&service.cli(&["status", "--json"]).stdout).unwrap();
    assert_eq!(status_json["counts"]["pending"], 2);
    for (actor, counters) in status_json["actors"].as_object().unwrap() {
        let count = |k: &str| counters[k].as_u64().unwrap();
        assert_eq!(
            count("received"),
            count("handled") + count("waiting"),
            "{actor}: {counters}"
        );
    }
    assert!(
        status_json["actors"]["repository"]["received"]
            .as_u64()
            .unwrap()
            >= 2
    );

    let listed = text(&service.cli(&["list"]).stdout);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(
        listed.lines().next().unwrap().contains("line one"),
        "newest first: {listed}"
    );
    let listed_json: serde_json::Value = serde_json::from_slice(
        &service
            .cli(&["list", "--json", "--status", "pending"])
            .stdout,
    )
    .unwrap();
    assert_eq!(listed_json.as_array().unwrap().len(), 2);
    let none = text(&service.cli(&["list", "--status", "done"]).stdout);
    assert_eq!(none.trim(), "no notes");

    let id = note["id"].as_str().unwrap();
    let shown = text(&service.cli(&["show", id]).stdout);
    assert!(shown.contains("line two"), "{shown}");
}

#[test]
fn refused_input_is_one_line_on_stderr_with_exit_status_1() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    for args in [
        &["capture", "   "][..],
        &["show", "nope"],
        &["list", "--status", "bogus"],
    ] {
        let output = service.cli(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let message = text(&output.stderr);
        assert_eq!(message.trim().lines().count(), 1, "{args:?}: {message}");
    }
}

#[test]
fn retry_failed_failed_count_and_recheck_print_plain_answers() {
    let dir = tempfile::tempdir().unwrap();
    // The service's Ollama URL points at a port nothing listens on.
    let service = ServiceProcess::start(dir.path(), free_port());

    let failed = service.cli(&["failed-count"]);
    assert!(failed.status.success());
    assert_eq!(text(&failed.stdout).trim(), "0");
    let retried = service.cli(&["retry-failed"]);
    assert!(retried.status.success());
    assert_eq!(text(&retried.stdout).trim(), "0");
    let recheck = service.cli(&["recheck"]);
    assert!(recheck.status.success(), "{}", text(&recheck.stderr));
    assert!(
        text(&recheck.stdout).starts_with("ollama: not running"),
        "{}",
        text(&recheck.stdout)
    );
    let status = text(&service.cli(&["status"]).stdout);
    assert!(status.contains("ollama: not running"), "{status}");
    assert!(status.contains("worker: idle"), "{status}");
}

#[test]
fn stats_export_log_trash_and_restore_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let captured: serde_json::Value =
        serde_json::from_slice(&service.cli(&["--json", "capture", "a note"]).stdout).unwrap();
    let id = captured["id"].as_str().unwrap();

    let trashed = service.cli(&["trash", id]);
    assert_eq!(text(&trashed.stdout).trim(), format!("trashed {id}"));
    let restored = service.cli(&["restore", id]);
    assert_eq!(text(&restored.stdout).trim(), format!("restored {id}"));
    let kept = service.cli(&["keep", id]);
    assert_eq!(text(&kept.stdout).trim(), format!("kept {id}"));

    let stats = text(&service.cli(&["stats"]).stdout);
    assert!(stats.starts_with("# inkling usage"), "{stats}");
    let out = tempfile::tempdir().unwrap();
    let exported = service.cli(&["export-log", "--out", out.path().to_str().unwrap()]);
    assert!(exported.status.success(), "{}", text(&exported.stderr));
    let path = std::path::PathBuf::from(text(&exported.stdout).trim());
    assert!(path.starts_with(out.path()));
    assert!(path.join("stats.md").exists());
}

/// `inkling open` never puts the API token in the address: it would be in `xdg-open`'s
/// arguments (which every user can read with `ps`) and in the browser's history. A
/// one-time code instead: it opens a session once, and a copy of the address opens
/// nothing.
#[test]
fn open_prints_the_inbox_address_with_a_one_time_code_not_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);

    let output = service.cli(&["open"]);

    assert!(output.status.success(), "{}", text(&output.stderr));
    let token = service.token().unwrap();
    let url = text(&output.stdout).trim().to_string();
    let prefix = format!("http://127.0.0.1:{port}/?code=");
    assert!(url.starts_with(&prefix), "{url}");
    assert!(!url.contains(&token), "the token is in the address: {url}");

    let code = &url[prefix.len()..];
    let session = |body: &str| {
        crate::helpers::blocking_request(port, "POST", "/session", None, Some(body))
            .unwrap()
            .0
    };
    let trade = format!(r#"{{"code":"{code}"}}"#);
    assert_eq!(session(&trade), 200, "the code opens a session");
    assert_eq!(session(&trade), 401, "once");
}

/// `inkling logout --all` ends every page's session.
#[test]
fn logout_all_signs_every_page_out() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let token = service.token().unwrap();
    let trade = format!(r#"{{"token":"{token}"}}"#);
    let (status, opened) =
        crate::helpers::blocking_request(port, "POST", "/session", None, Some(&trade)).unwrap();
    assert_eq!(status, 200);
    let opened: serde_json::Value = serde_json::from_str(&opened).unwrap();
    let session = crate::service_process::blocking_page_access(port, &opened)
        .expect("the page gets an access");
    let status_with = |credential: &str| {
        crate::helpers::blocking_request(port, "GET", "/api/status", Some(credential), None)
            .unwrap()
            .0
    };
    assert_eq!(status_with(&session), 200);

    let refused = service.cli(&["logout"]);
    assert!(!refused.status.success(), "logout says what it would end");

    let output = service.cli(&["logout", "--all"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).trim(),
        "signed out 1 inbox page; `inkling open` opens the inbox again"
    );
    assert_eq!(status_with(&session), 401);
    assert_eq!(
        crate::service_process::blocking_page_access(port, &opened),
        None,
        "no new access either"
    );
    assert_eq!(status_with(&token), 200);
}

/// `inkling search WORDS`: the hits with the matched words in brackets, `--json` the
/// API's answer, and a search with nothing in it refused in one line.
#[test]
fn search_prints_each_hit_with_its_marked_snippet() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    assert!(service
        .cli(&["capture", "tomato soup for Sunday"])
        .status
        .success());
    assert!(service
        .cli(&["capture", "call the plumber"])
        .status
        .success());

    let output = service.cli(&["search", "soup", "tomat"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines: Vec<String> = text(&output.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("tomato soup for Sunday"), "{lines:?}");
    assert_eq!(lines[1], "    [tomat]o [soup] for Sunday");

    let output = service.cli(&["--json", "search", "plumber"]);
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["hits"][0]["body"], "call the plumber");

    let output = service.cli(&["search", "nothing-like-it"]);
    assert_eq!(text(&output.stdout).trim(), "no notes match");
    let output = service.cli(&["search", " "]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("the search is empty"),
        "{}",
        text(&output.stderr)
    );
}

/// `inkling delete ID` (a note in the trash) and `inkling empty-trash`.
#[test]
fn delete_and_empty_trash_remove_notes_in_the_trash_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let id_of = |output: std::process::Output| -> String {
        let note: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        note["id"].as_str().unwrap().to_owned()
    };
    let first = id_of(service.cli(&["--json", "capture", "first"]));
    let second = id_of(service.cli(&["--json", "capture", "second"]));

    let refused = service.cli(&["delete", &first]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("move it to the trash first"),
        "{}",
        text(&refused.stderr)
    );

    assert!(service.cli(&["trash", &first]).status.success());
    let deleted = service.cli(&["delete", &first]);
    assert!(deleted.status.success(), "{}", text(&deleted.stderr));
    assert_eq!(
        text(&deleted.stdout).trim(),
        format!("deleted {first} for good")
    );
    assert_eq!(service.cli(&["show", &first]).status.code(), Some(1));

    assert!(service.cli(&["trash", &second]).status.success());
    let emptied = service.cli(&["empty-trash"]);
    assert_eq!(text(&emptied.stdout).trim(), "1");
    assert_eq!(
        text(&service.cli(&["list", "--trash"]).stdout).trim(),
        "no notes"
    );
}

/// `inkling enrich ID`.
#[test]
fn enrich_asks_for_a_notes_ai_again() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let captured = service.cli(&["--json", "capture", "again please"]);
    let note: serde_json::Value = serde_json::from_slice(&captured.stdout).unwrap();
    let id = note["id"].as_str().unwrap();

    let output = service.cli(&["enrich", id]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).trim(),
        format!("enrichment requested for {id}")
    );
    let output = service.cli(&["enrich", "nope"]);
    assert_eq!(output.status.code(), Some(1));
}

/// `inkling list` does not stop at one page of the API without a word: it pages
/// through every note, and with `--limit` says when more exist.
#[test]
fn list_pages_through_every_note_and_says_when_a_limit_leaves_some_out() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let token = service.token().unwrap();
    for i in 0..1_100 {
        let body = format!(r#"{{"body":"note {i}"}}"#);
        let (status, _) = crate::helpers::blocking_request(
            service.port,
            "POST",
            "/api/notes",
            Some(&token),
            Some(&body),
        )
        .unwrap();
        assert_eq!(status, 201);
    }

    let all = service.cli(&["list"]);
    assert!(all.status.success(), "{}", text(&all.stderr));
    let lines: Vec<String> = text(&all.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 1_100);
    assert!(lines[0].contains("note 1099") && lines[1_099].contains("note 0"));
    assert_eq!(text(&all.stderr), "");

    let some = service.cli(&["list", "--limit", "600"]);
    assert_eq!(text(&some.stdout).lines().count(), 600);
    assert!(
        text(&some.stderr).contains("the newest 600 shown; more exist"),
        "{}",
        text(&some.stderr)
    );
    let exact = service.cli(&["list", "--limit", "1100"]);
    assert_eq!(text(&exact.stdout).lines().count(), 1_100);
    assert_eq!(text(&exact.stderr), "");

    let json = service.cli(&["--json", "list"]);
    let notes: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(notes.as_array().unwrap().len(), 1_100);
    assert_eq!(
        service.cli(&["list", "--limit", "0"]).status.code(),
        Some(2)
    );
}

#[test]
fn edit_sets_fields_directly_or_opens_the_editor_on_the_body() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let captured = service.cli(&["--json", "capture", "buy stampz"]);
    let note: serde_json::Value = serde_json::from_slice(&captured.stdout).unwrap();
    let id = note["id"].as_str().unwrap();
    let show = |id: &str| -> serde_json::Value {
        serde_json::from_slice(&service.cli(&["--json", "show", id]).stdout).unwrap()
    };

    let output = service.cli(&["edit", id, "--title", "Stamps", "--tags", "errands, Post"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).trim(),
        format!("edited {id} (pending)")
    );
    let shown = show(id);
    assert_eq!(shown["title"], "Stamps");
    assert_eq!(shown["tags"], serde_json::json!(["errands", "post"]));

    let output = run_cli(
        dir.path(),
        port,
        &["edit", id, "--body", "-"],
        Some("buy stamps\n"),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(show(id)["body"], "buy stamps\n");

    // No option: the body in $EDITOR (here a script that fixes a word in place).
    let editor = dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/stamps/stamps and envelopes/' \"$1\"\n",
    )
    .unwrap();
    let run_editor = |editor: &str| {
        crate::helpers::run_cli_with(dir.path(), port, &["edit", id], None, &[("EDITOR", editor)])
    };
    let output = run_editor(&format!("sh {}", editor.display()));
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(show(id)["body"], "buy stamps and envelopes\n");
    // An editor that changes nothing changes nothing; one that fails says so.
    let output = run_editor("true");
    assert_eq!(text(&output.stdout).trim(), format!("no change to {id}"));
    let output = run_editor("false");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("the note was not changed"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(show(id)["body"], "buy stamps and envelopes\n");

    let output = service.cli(&["edit", id, "--title", ""]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("the title is empty"),
        "{}",
        text(&output.stderr)
    );
    let removed = service.cli(&["--json", "edit", id, "--tags", ""]);
    let removed: serde_json::Value = serde_json::from_slice(&removed.stdout).unwrap();
    assert_eq!(removed["tags"], serde_json::json!([]));
}

#[test]
fn tags_lists_counts_and_rename_merges() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    for (text, tags) in [("a", "cooking"), ("b", "cooking,recipes"), ("c", "recipes")] {
        let captured = service.cli(&["--json", "capture", text]);
        let note: serde_json::Value = serde_json::from_slice(&captured.stdout).unwrap();
        let id = note["id"].as_str().unwrap();
        assert!(service.cli(&["edit", id, "--tags", tags]).status.success());
    }
    let listed = text(&service.cli(&["tags"]).stdout);
    assert_eq!(
        listed
            .lines()
            .map(str::split_whitespace)
            .map(Iterator::collect::<Vec<_>>)
            .collect::<Vec<_>>(),
        [["2", "cooking"], ["2", "recipes"]]
    );

    let output = service.cli(&["tags", "rename", "recipes", "Cooking"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).trim(),
        "merged recipes into cooking (2 notes)"
    );
    let output = service.cli(&["tags", "rename", "cooking", "food"]);
    assert_eq!(
        text(&output.stdout).trim(),
        "renamed cooking to food (3 notes)"
    );
    let listed: serde_json::Value =
        serde_json::from_slice(&service.cli(&["--json", "tags"]).stdout).unwrap();
    assert_eq!(listed, serde_json::json!([{ "tag": "food", "count": 3 }]));
    let output = service.cli(&["tags", "rename", "nope", "x"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("no note has the tag"),
        "{}",
        text(&output.stderr)
    );
}

/// Every note of a service (the trash too), sorted by id, as `inkling list --json`.
#[test]
fn pull_model_with_ollama_not_running_says_so_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    // The service's first health check finds nobody (its Ollama URL is a closed port).
    for _ in 0..200 {
        if text(&service.cli(&["status"]).stdout).contains("ollama: not running") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let pulled = service.cli(&["pull-model"]);
    assert!(!pulled.status.success());
    let said = text(&pulled.stderr);
    assert!(
        said.contains("Ollama is not running") && said.contains("`ollama serve`"),
        "{said}"
    );
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    for n in 0..3 {
        assert!(service
            .cli(&["capture", &format!("note {n}")])
            .status
            .success());
    }
    // `inkling status | head -0`: the pipe's reader is gone before the first line.
    for args in [&["status"][..], &["list"], &["--json", "list"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        // The environment of helpers' `inkling_command`, with stdout the closed pipe.
        let output = std::process::Command::new(crate::helpers::inkling_binary())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config-home"))
            .env("INKLING_DATA_DIR", dir.path())
            .env("INKLING_HTTP__PORT", service.port.to_string())
            .env("INKLING_TRAY__ENABLED", "false")
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert!(
            output.status.success() && output.stderr.is_empty(),
            "{args:?}: {}, stderr: {}",
            output.status,
            text(&output.stderr)
        );
    }
}

/// `inkling quick` opens `/quick` with a one-time code as an app window of the browser
/// `quick.browser` names (here a script that writes down its arguments), prints nothing
/// when it could, and returns without waiting for the browser.
#[test]
fn quick_opens_the_quick_window_as_an_app_window_with_a_one_time_code() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let browser = dir.path().join("fake-browser");
    let said = dir.path().join("browser-arguments");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > {}.part && mv {0}.part {0}\n",
            said.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();

    let started = std::time::Instant::now();
    let output = crate::helpers::run_cli_with(
        dir.path(),
        port,
        &["quick"],
        None,
        &[("INKLING_QUICK__BROWSER", browser.to_str().unwrap())],
    );
    let took = started.elapsed();
    eprintln!("inkling quick ran in {} ms", took.as_millis());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "",
        "nothing printed when the window opens"
    );

    // The browser runs on its own: waiting for that process, not a timed rule.
    let mut arguments = None;
    for _ in 0..250 {
        if let Ok(written) = std::fs::read_to_string(&said) {
            arguments = Some(written);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let arguments = arguments.expect("the browser was started");
    let lines: Vec<&str> = arguments.lines().collect();
    let prefix = format!("--app=http://127.0.0.1:{port}/quick?code=");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(&prefix), "{lines:?}");
    assert_eq!(lines[1], "--window-size=520,220");
    let token = service.token().unwrap();
    assert!(!arguments.contains(&token), "the token is in the address");
    let code = &lines[0][prefix.len()..];
    let trade = format!(r#"{{"code":"{code}"}}"#);
    let (status, _) =
        crate::helpers::blocking_request(port, "POST", "/session", None, Some(&trade)).unwrap();
    assert_eq!(status, 200, "the code opens a session");
}
