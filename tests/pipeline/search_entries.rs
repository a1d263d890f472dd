//! A captured note's search entries are written behind it, by the `SearchIndexer`
//! 0.5–1 s after captures pause (src/actors/search_indexer.rs), without any search
//! asking; and the entries a last run left waiting are written once the check at start
//! has found the file sound, not before.

use std::time::Duration;

use inkling::storage::{Store, Verdict};

use crate::harness::{PausedSystem, Pipeline};

#[actix_rt::test(system = "PausedSystem")]
async fn a_captured_notes_entries_are_written_once_captures_pause_with_no_search() {
    let p = Pipeline::start(&[]).await;
    p.capture("the dentist on tuesday").await;
    p.advance(Duration::from_millis(250)).await;
    assert_eq!(p.search_pending(), 1, "within the pause: still waiting");
    p.capture("and the plumber").await;
    // Time goes by in steps, as a real clock does (one long advance would fire the
    // timer once at its end, and the timer it arms again would start from there).
    for _ in 0..4 {
        p.advance(Duration::from_millis(100)).await;
    }
    assert_eq!(
        p.search_pending(),
        2,
        "0.4 s after the last capture: still waiting"
    );
    for _ in 0..7 {
        p.advance(Duration::from_millis(100)).await;
    }
    p.settle_until(
        "written 0.5-1 s after the last capture, with no search",
        |p| p.search_pending() == 0,
    )
    .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_entries_a_last_run_left_waiting_are_written_once_the_check_at_start_is_done() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
        let body = inkling::domain::NoteBody::parse("left pending".into(), 65536).unwrap();
        let id = store.capture(&body, crate::harness::t0()).unwrap().id;
        // In the trash, so the worker has nothing to write for it during the check
        // (its answer would wait for the verdict); it still waits for its entries.
        store.trash(&id, crate::harness::t0()).unwrap();
        assert_eq!(store.search_pending().unwrap(), 1);
    }
    let (p, integrity) = Pipeline::start_while_checking(dir, &[]).await;
    for _ in 0..20 {
        p.advance(Duration::from_millis(100)).await;
    }
    assert_eq!(p.search_pending(), 1, "nothing written during the check");
    integrity.decide(Verdict::Sound);
    for _ in 0..11 {
        p.advance(Duration::from_millis(100)).await;
    }
    p.settle_until("written once the file is sound", |p| {
        p.search_pending() == 0
    })
    .await;
}
