//! A database damaged while the service was down is refused with how to recover, and
//! never written; a sound one starts as before (the check at start,
//! `storage::Integrity`).

use serde_json::json;

use inkling::domain::{AiStatus, Note};
use inkling::startup::Application;
use inkling::storage::Store;

/// Notes in the database the tests damage: enough pages that its middle is notes
/// and their search index.
const NOTES: usize = 2_000;

/// Done notes, as an import stores them: no AI queue rows, so what start-up reads
/// (the queue) is the same small table at the front of the file in every run.
fn done_notes() -> Vec<Note> {
    let at = inkling::domain::timestamp(chrono::Utc::now());
    (0..NOTES)
        .map(|i| Note {
            id: String::new(),
            body: format!("note {i} {}", "x".repeat(200)),
            title: Some(format!("Note {i}")),
            summary: Some("A summary.".into()),
            tags: vec!["kept".into()],
            ai_status: AiStatus::Done,
            ai_error: None,
            created_at: at.clone(),
            updated_at: at.clone(),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
            edited_at: None,
            remind_at: None,
            remind_state: None,
            kind: inkling::domain::NoteKind::Note,
            imported_at: None,
            remind_suggested_at: None,
            remind_suggestion_dismissed: false,
            opened_at: None,
        })
        .collect()
}

/// A database of [`NOTES`] notes, stopped cleanly (its log folded in and closed).
fn a_cleanly_stopped_database(db: &std::path::Path) {
    let mut store = Store::open(db, 30).unwrap();
    store.import(&done_notes(), chrono::Utc::now()).unwrap();
    store.checkpoint().unwrap();
}

/// 16 KiB of garbage over the middle of the file (a bad copy, a sync tool, the disk):
/// the file's bytes after it.
fn damage_the_middle(db: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(db).unwrap();
    let middle = bytes.len() / 2;
    for byte in &mut bytes[middle..middle + 16 * 1024] {
        *byte = 0xa5;
    }
    std::fs::write(db, &bytes).unwrap();
    bytes
}

fn settings(data_dir: &std::path::Path) -> inkling::configuration::Settings {
    crate::service::test_settings(data_dir, &[])
}

/// A clean stop does not vouch for the file (a bad copy, a sync tool, the disk can
/// damage it while inkling is stopped): the service starts (the check runs beside it)
/// and stops as soon as the check has found the damage, saying what and how to
/// recover; not one byte of the file changed.
#[actix_rt::test]
async fn a_database_damaged_after_a_clean_stop_is_refused_with_how_to_recover_and_left_untouched() {
    let data_dir = tempfile::tempdir().unwrap();
    let db = data_dir.path().join("inkling.db");
    a_cleanly_stopped_database(&db);
    let wal = data_dir.path().join("inkling.db-wal");
    assert!(
        std::fs::metadata(&wal).map_or(true, |m| m.len() == 0),
        "a clean stop leaves no log"
    );
    let bytes = damage_the_middle(&db);

    let app = Application::build(
        settings(data_dir.path()),
        std::sync::Arc::new(inkling::clock::SystemClock),
    )
    .await
    .expect("start-up itself does not wait for the check");
    let refused = app
        .run_until_stopped()
        .await
        .expect_err("the service stops on the damaged database");

    let message = format!("{refused:#}");
    assert!(message.contains("is damaged"), "{message}");
    assert!(message.contains("Nothing was written"), "{message}");
    assert!(message.contains(".recover"), "{message}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "nothing written into it"
    );
}

/// The same file undamaged: the service starts, a capture made at once is stored (it
/// waits for the check, not for ever), the notes are all there, and it stops cleanly.
#[actix_rt::test]
async fn a_sound_database_starts_as_before_and_takes_a_capture_at_once() {
    let data_dir = tempfile::tempdir().unwrap();
    let db = data_dir.path().join("inkling.db");
    a_cleanly_stopped_database(&db);

    let app = crate::helpers::spawn_app_in(data_dir, &[]).await;
    let (status, note) = app
        .post_json("/api/notes", &json!({ "body": "right after the start" }))
        .await;
    assert_eq!(status, 201, "{note}");
    let (status, counts) = app.get("/api/notes?limit=1&status=done").await;
    assert_eq!(status, 200, "{counts}");
    let (status, found) = app.get("/api/notes?q=right").await;
    assert_eq!(status, 200);
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
    app.handle.stop(true).await;
}

/// After an unclean stop (the log still holds the last write): the same refusal, and
/// neither the file nor its log is folded into it.
#[actix_rt::test]
async fn a_database_damaged_after_an_unclean_stop_is_refused_and_left_untouched() {
    let data_dir = tempfile::tempdir().unwrap();
    let db = data_dir.path().join("inkling.db");
    {
        let mut store = Store::open(&db, 30).unwrap();
        store.import(&done_notes(), chrono::Utc::now()).unwrap();
        store.checkpoint().unwrap();
        // One more write, and no clean close: the write-ahead log stays, as after kill -9.
        let body = inkling::domain::NoteBody::parse("the last one".into(), 65536).unwrap();
        store.capture(&body, chrono::Utc::now()).unwrap();
        std::mem::forget(store);
    }
    let bytes = damage_the_middle(&db);

    let refused = match Application::build(
        settings(data_dir.path()),
        std::sync::Arc::new(inkling::clock::SystemClock),
    )
    .await
    {
        // The AI queue is read at start; here it lies in the log, which is sound.
        Ok(app) => app.run_until_stopped().await.expect_err("refused"),
        Err(refused) => refused,
    };

    let message = format!("{refused:#}");
    assert!(message.contains("is damaged"), "{message}");
    assert!(message.contains(".recover"), "{message}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "nothing written into it"
    );
}

/// The binary as a person runs it: `inkling run` on the damaged file exits 1, saying
/// what was found and how to recover, and the file is left as it was.
#[test]
fn inkling_run_on_a_damaged_database_exits_1_with_the_recovery_steps() {
    let data_dir = tempfile::tempdir().unwrap();
    let db = data_dir.path().join("inkling.db");
    a_cleanly_stopped_database(&db);
    let bytes = damage_the_middle(&db);

    let output =
        crate::helpers::run_cli(data_dir.path(), crate::helpers::free_port(), &["run"], None);

    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("is damaged"), "{said}");
    assert!(said.contains("Copy it somewhere safe first"), "{said}");
    assert!(said.contains(".recover"), "{said}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "nothing written into it"
    );
}
