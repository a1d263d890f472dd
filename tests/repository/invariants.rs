//! What holds whatever happens: the hot queries read through an index, and a full
//! database refuses a write cleanly, nothing half written.

use chrono::Duration;
use inkling::domain::{AiStatus, ListFilter};
use inkling::storage::store::{
    ALL_JOBS_SQL, ANY_MODEL_MISSING_SQL, COUNT_EXPIRED_SQL, COUNT_WITH_STATUS_SQL,
    DROP_SUPERSEDED_SQL, INSERT_REQUEUED_JOBS_SQL, REQUEUE_FAILED_SQL, REQUEUE_MODEL_MISSING_SQL,
};
use inkling::storage::{Store, StoreError};
use rusqlite::types::Value;

use crate::{assert_invariants, body, capture, enrichment, save_answer, store, t0, EXPIRY_DAYS};

/// Asserts the plan reads `table` through an index, never by a full scan.
fn assert_uses_index(store: &Store, what: &str, sql: &str, args: &[Value]) {
    let plan = store.query_plan(sql, args).unwrap();
    let text = plan.join(" | ");
    assert!(
        plan.iter().any(|step| step.contains("USING INDEX")
            || step.contains("USING COVERING INDEX")
            || step.contains("USING PRIMARY KEY")),
        "{what} uses no index: {text}"
    );
    assert!(
        !plan
            .iter()
            .any(|step| step.starts_with("SCAN") && !step.contains("INDEX")),
        "{what} scans a table: {text}"
    );
}

#[test]
fn counts_retries_jobs_and_lists_use_an_index() {
    let mut store = store();
    // Notes captured over 100 days, a few failed, the expiry cutoff 30 days back. The
    // service never runs ANALYZE, so these are the plans it really gets.
    for day in 0..100 {
        for i in 0..5 {
            let id = capture(
                &mut store,
                &format!("n{day}-{i}"),
                t0() + Duration::days(day),
            );
            if i == 0 && day % 10 == 0 {
                store.mark_ai_failed(&id, "x", t0()).unwrap();
            } else if i < 4 {
                save_answer(&mut store, &id, &enrichment(&["t"]), t0()).unwrap();
            }
        }
    }
    let now = t0() + Duration::days(100);
    let cutoff = Value::Text("2026-05-11T12:00:00.000Z".into());

    assert_uses_index(
        &store,
        "count_failed",
        COUNT_WITH_STATUS_SQL,
        &[Value::Text("failed".into())],
    );
    let stamp = [Value::Text(inkling::domain::timestamp(now))];
    assert_uses_index(
        &store,
        "retry_all_failed, update",
        REQUEUE_FAILED_SQL,
        &stamp,
    );
    assert_uses_index(
        &store,
        "retry_all_failed, jobs",
        INSERT_REQUEUED_JOBS_SQL,
        &stamp,
    );
    assert_uses_index(
        &store,
        "requeue_model_missing_failures, the look first",
        ANY_MODEL_MISSING_SQL,
        &[],
    );
    assert_uses_index(
        &store,
        "requeue_model_missing_failures, update",
        REQUEUE_MODEL_MISSING_SQL,
        &stamp,
    );
    assert_uses_index(
        &store,
        "the change log's compaction, a step",
        DROP_SUPERSEDED_SQL,
        &[Value::Integer(0), Value::Integer(1_000)],
    );
    assert_uses_index(&store, "count_expired", COUNT_EXPIRED_SQL, &[cutoff]);
    assert_uses_index(&store, "all_jobs", ALL_JOBS_SQL, &[]);
    let failed = ListFilter {
        status: Some(AiStatus::Failed),
        ..Default::default()
    };
    let (sql, args) = store.list_query(&failed, now).unwrap();
    assert_uses_index(&store, "list of failed notes", &sql, &args);
    let by_tag = ListFilter {
        tag: Some("rust".into()),
        ..Default::default()
    };
    let (sql, args) = store.list_query(&by_tag, now).unwrap();
    assert_uses_index(&store, "list by tag", &sql, &args);
    let (sql, args) = store.list_query(&ListFilter::default(), now).unwrap();
    assert_uses_index(&store, "list", &sql, &args);
}

#[test]
fn a_full_database_refuses_a_capture_cleanly_and_recovers_when_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("inkling.db"), EXPIRY_DAYS).unwrap();
    let kept = capture(&mut store, "before the disk filled", t0());
    let pages: i64 = store
        .connection()
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    store
        .connection()
        .pragma_update(None, "max_page_count", pages)
        .unwrap();

    let big = "x".repeat(60_000);
    let err = store.capture(&body(&big), t0()).unwrap_err();

    assert!(matches!(err, StoreError::Full(_)), "{err:?}");
    assert_eq!(store.list(&ListFilter::default(), t0()).unwrap().len(), 1);
    assert!(store.get(&kept).is_ok());
    assert_invariants(&store);
    store
        .connection()
        .pragma_update(None, "max_page_count", 1_000_000)
        .unwrap();
    assert!(store.capture(&body(&big), t0()).is_ok());
    assert_invariants(&store);
}
