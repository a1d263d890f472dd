//! Disk trouble in a running service (issue #8, item 11), on a real full file system
//! (`tests/support/small_disk.rs`): a clear error to the caller, nothing half written,
//! and the service back to normal as soon as space returns.

use inkling::storage::Store;
use serde_json::json;

use crate::helpers::{free_port, run_cli, spawn_app_in};
use crate::small_disk::SmallDisk;

#[actix_rt::test]
async fn a_full_disk_refuses_captures_clearly_and_the_service_recovers_when_space_returns() {
    let disk = SmallDisk::mount(8 * 1024);
    let app = spawn_app_in(tempfile::tempdir_in(disk.path()).unwrap(), &[]).await;
    for i in 0..3 {
        app.capture(&format!("before the disk filled {i}")).await;
    }

    disk.fill();
    for i in 0..5 {
        let (status, reply) = app
            .post_json(
                "/api/notes",
                &json!({ "body": format!("on a full disk {i}") }),
            )
            .await;
        assert_eq!(status, 507, "{reply}");
        let error = reply["error"].as_str().unwrap_or_default();
        assert!(error.contains("free some disk space"), "{error}");
    }
    // Reading still works: the page and the CLI can show what is there.
    let (status, list) = app.get("/api/notes").await;
    assert_eq!(status, 200);
    assert_eq!(list.as_array().map(Vec::len), Some(3), "{list}");
    let (status, _) = app.get("/api/status").await;
    assert_eq!(status, 200);

    disk.free();
    let after = app.capture("after space returned").await;
    assert_eq!(after["ai_status"], "pending");

    app.handle.stop(true).await;
    let store = Store::open(&app.db_path(), 30).unwrap();
    let integrity: String = store
        .connection()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
    assert_eq!(
        app.note_count_in_db(),
        4,
        "the three before and the one after; none of the refused"
    );
}

#[test]
fn a_read_only_data_dir_stops_start_up_with_the_cause_in_one_line() {
    let disk = SmallDisk::mount(1024);
    let data_dir = disk.path().join("data");
    std::fs::create_dir(&data_dir).unwrap();
    // Private already, as the service makes it: the read-only disk is what is met.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&data_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    disk.make_read_only();

    let output = run_cli(&data_dir, free_port(), &["run"], None);

    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first_error = stderr
        .lines()
        .find(|line| line.starts_with("inkling: cannot use"))
        .unwrap_or_else(|| panic!("no error line: {stderr}"));
    assert!(first_error.contains("inkling.lock"), "{first_error}");
    assert!(
        first_error.contains("Read-only file system"),
        "{first_error}"
    );
    assert!(
        stderr.contains("logging to stderr only"),
        "an unwritable log dir is a note, not the error: {stderr}"
    );
}
