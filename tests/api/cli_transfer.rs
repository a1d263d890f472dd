//! Moving notes from the command line: `inkling export-notes` and `inkling import`
//! against a running service (the API's side: `transfer.rs`).

use crate::helpers::{free_port, run_cli, ServiceProcess};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn every_note(service: &ServiceProcess) -> Vec<serde_json::Value> {
    let mut notes = Vec::new();
    for args in [&["--json", "list"][..], &["--json", "list", "--trash"]] {
        let listed: serde_json::Value = serde_json::from_slice(&service.cli(args).stdout).unwrap();
        notes.extend(listed.as_array().unwrap().iter().cloned());
    }
    notes.sort_by_key(|n| n["id"].as_str().unwrap().to_string());
    notes
}

#[test]
fn export_notes_then_import_into_an_empty_data_dir_gives_the_same_notes() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    for text in [
        "first thought",
        "---\nlooks like front matter\n---",
        "사과를 사다\n\n- [ ] milk",
    ] {
        let captured = run_cli(dir.path(), port, &["capture", "-"], Some(text));
        assert!(
            captured.status.success(),
            "{}",
            String::from_utf8_lossy(&captured.stderr)
        );
    }
    let listed = every_note(&service);
    let id = listed[0]["id"].as_str().unwrap();
    assert!(service
        .cli(&["edit", id, "--title", "Mine", "--tags", "home,errands"])
        .status
        .success());
    let trashed = listed[1]["id"].as_str().unwrap();
    assert!(service.cli(&["trash", trashed]).status.success());
    let before = every_note(&service);

    for format in ["markdown", "json"] {
        let out = dir.path().join(format!("out-{format}"));
        let output = service.cli(&[
            "export-notes",
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let said = text(&output.stdout);
        assert!(said.starts_with("exported 3 notes to "), "{said}");
        let folder = std::path::PathBuf::from(said.trim().rsplit(" to ").next().unwrap());
        let files: Vec<_> = std::fs::read_dir(&folder).unwrap().collect();
        assert_eq!(
            files.len(),
            if format == "json" { 1 } else { 3 },
            "{format}"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "only the user reads the notes");

        let empty = tempfile::tempdir().unwrap();
        let other = ServiceProcess::start(empty.path(), free_port());
        let source = if format == "json" {
            folder.join("notes.json")
        } else {
            folder.clone()
        };
        let output = other.cli(&["import", source.to_str().unwrap()]);
        assert!(
            output.status.success(),
            "{format}: {}",
            text(&output.stderr)
        );
        assert_eq!(text(&output.stdout).trim(), "imported 3 notes", "{format}");
        let mut imported = every_note(&other);
        for note in &mut imported {
            // Stamped with the import's time (its expiry counts from then).
            let stamp = note.as_object_mut().unwrap().remove("imported_at");
            assert!(stamp.is_some_and(|at| at.is_string()), "{format}: {note}");
        }
        assert_eq!(imported, before, "{format}: the same notes");
        let again = other.cli(&["import", source.to_str().unwrap()]);
        assert!(
            text(&again.stdout).contains("3 skipped"),
            "{}",
            text(&again.stdout)
        );
    }
}

#[test]
fn import_reads_markdown_from_elsewhere_and_refuses_a_bad_folder_whole() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let vault = dir.path().join("vault");
    std::fs::create_dir_all(vault.join("sub")).unwrap();
    std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
    std::fs::write(vault.join("plain.md"), "Just a thought.\n").unwrap();
    std::fs::write(
        vault.join("sub/with-front-matter.md"),
        "---\ntitle: Soup\ntags:\n  - Cooking\ndate: 2025-12-24T18:00:00+01:00\n---\nTomato soup.\n",
    )
    .unwrap();
    std::fs::write(vault.join(".obsidian/workspace.md"), "not a note").unwrap();
    std::fs::write(vault.join("notes.txt"), "not markdown").unwrap();

    let output = service.cli(&["import", vault.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).trim(), "imported 2 notes");
    let notes = every_note(&service);
    let soup = notes
        .iter()
        .find(|n| n["body"] == "Tomato soup.\n")
        .unwrap();
    assert_eq!(soup["title"], "Soup");
    assert_eq!(soup["tags"], serde_json::json!(["cooking"]));
    assert_eq!(soup["created_at"], "2025-12-24T17:00:00.000Z");
    assert_eq!(soup["ai_status"], "pending", "it goes to the AI");

    std::fs::write(vault.join("empty.md"), "---\ntitle: nothing\n---\n\n").unwrap();
    let output = service.cli(&["import", vault.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let said = text(&output.stderr);
    assert!(
        said.contains("empty.md") && said.contains("nothing was imported"),
        "{said}"
    );
    assert_eq!(every_note(&service).len(), 2);
    let output = service.cli(&["import", vault.join("notes.txt").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("is not an inkling notes export"),
        "{}",
        text(&output.stderr)
    );
}

/// A refused export left an empty folder (and made `--out`): it was made before the
/// service was asked. Now nothing is created until the export arrives.
#[test]
fn an_export_refused_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port(); // nothing listens there: the export is refused
    let out = dir.path().join("exports").join("today");
    for format in ["markdown", "json"] {
        let output = run_cli(
            dir.path(),
            port,
            &[
                "export-notes",
                "--format",
                format,
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert!(!output.status.success(), "{format}");
        assert!(
            !dir.path().join("exports").exists(),
            "{format}: {}",
            text(&output.stderr)
        );
    }
}
