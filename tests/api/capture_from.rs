//! Where `inkling capture` takes a note from: standard input (`-`) and the desktop's
//! clipboard (`--clipboard`, here on a real X server, Xvfb, with xclip as the program
//! that copied). An empty note from any of them captures nothing and says so.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::helpers::{free_port, run_cli, run_cli_with, ServiceProcess};
use crate::x_server::XServer;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl XServer {
    /// Copies `note` as a person's program would: xclip owns the CLIPBOARD selection
    /// and serves it. Returns once another client reads it back (a round trip through
    /// the X server, so the copy is in place).
    fn copy(&self, note: &str) {
        let mut xclip = Command::new("xclip")
            .args(["-selection", "clipboard", "-i"])
            .env("DISPLAY", &self.display)
            .stdin(Stdio::piped())
            // Its server going away at the test's end is no news.
            .stderr(Stdio::null())
            .spawn()
            .expect("xclip is missing: scripts/test.sh installs it (Debian package xclip)");
        xclip
            .stdin
            .take()
            .unwrap()
            .write_all(note.as_bytes())
            .unwrap();
        // xclip forks to serve the selection; its first process ends once it owns it.
        assert!(xclip.wait().unwrap().success());
        let pasted = Command::new("xclip")
            .args(["-selection", "clipboard", "-o"])
            .env("DISPLAY", &self.display)
            .output()
            .unwrap();
        assert_eq!(text(&pasted.stdout), note);
    }
}

#[test]
fn an_empty_note_from_a_pipe_or_the_command_line_captures_nothing_and_says_from_where() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);

    for (args, stdin, from) in [
        (&["capture", "-"][..], Some(""), "standard input"),
        (&["capture", "-"], Some(" \n\t\u{200B}\n"), "standard input"),
        (&["capture", "  "], None, "the command line"),
    ] {
        let output = run_cli(dir.path(), port, args, stdin);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(
            text(&output.stderr).trim(),
            format!("inkling: the note from {from} is empty; nothing was captured")
        );
    }
    assert_eq!(text(&service.cli(&["list"]).stdout).trim(), "no notes");

    // A pipe with a note in it is captured as it came.
    let piped = run_cli(
        dir.path(),
        port,
        &["--json", "capture", "-"],
        Some("from a pipe\n"),
    );
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    let note: serde_json::Value = serde_json::from_slice(&piped.stdout).unwrap();
    assert_eq!(note["body"], "from a pipe\n");
}

#[test]
fn the_clipboard_is_captured_on_x11_and_an_empty_one_captures_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let x = XServer::start("640x480x24");
    let on_desktop = [("DISPLAY", x.display.as_str())];

    // Nothing copied yet: no owner of the clipboard, so no text.
    let empty = run_cli_with(
        dir.path(),
        port,
        &["capture", "--clipboard"],
        None,
        &on_desktop,
    );
    assert_eq!(empty.status.code(), Some(1));
    assert_eq!(
        text(&empty.stderr).trim(),
        "inkling: the clipboard holds no text (it is empty, or holds a picture or files); nothing was captured"
    );

    // Copied, blank: refused as a blank pipe is.
    x.copy("   ");
    let blank = run_cli_with(
        dir.path(),
        port,
        &["capture", "--clipboard"],
        None,
        &on_desktop,
    );
    assert_eq!(blank.status.code(), Some(1));
    assert_eq!(
        text(&blank.stderr).trim(),
        "inkling: the note from the clipboard is empty; nothing was captured"
    );
    assert_eq!(text(&service.cli(&["list"]).stdout).trim(), "no notes");

    let copied = "회의 메모: 월요일 10시\nbook the train to Busan";
    x.copy(copied);
    let captured = run_cli_with(
        dir.path(),
        port,
        &["--json", "capture", "--clipboard"],
        None,
        &on_desktop,
    );
    assert!(captured.status.success(), "{}", text(&captured.stderr));
    let note: serde_json::Value = serde_json::from_slice(&captured.stdout).unwrap();
    assert_eq!(note["body"], copied);
    let shown = text(&service.cli(&["show", note["id"].as_str().unwrap()]).stdout);
    assert!(shown.contains("book the train to Busan"), "{shown}");
}

#[test]
fn with_no_desktop_the_clipboard_refusal_says_how_to_pipe_instead() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);

    // The CLI runs with a cleared environment: neither DISPLAY nor WAYLAND_DISPLAY.
    let output = run_cli(dir.path(), port, &["capture", "--clipboard"], None);
    assert_eq!(output.status.code(), Some(1));
    let message = text(&output.stderr);
    assert!(message.contains("no desktop session here"), "{message}");
    assert!(message.contains("| inkling capture -"), "{message}");

    // Text and --clipboard together is a usage error, told by the argument parser.
    let both = run_cli(
        dir.path(),
        port,
        &["capture", "a note", "--clipboard"],
        None,
    );
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stderr));
    assert_eq!(text(&service.cli(&["list"]).stdout).trim(), "no notes");
}
