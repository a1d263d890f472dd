use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use std::io::Write;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::*;
use crate::clock::ManualClock;
use crate::configuration::UserFile;
use crate::telemetry::log;

/// Appends an event given as `kind` and JSON `payload`, checked against the strict
/// schema first: the schema's checks through the actor. The service's own events are
/// typed and go by [`Emit`]; only these tests have JSON to send.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), InvalidEvent>")]
struct EmitJson {
    kind: String,
    payload: Value,
}

impl Handler<EmitJson> for TelemetryActor {
    type Result = ResponseFuture<Result<(), InvalidEvent>>;

    fn handle(&mut self, msg: EmitJson, _: &mut Context<Self>) -> Self::Result {
        let mut handled = handling!("EmitJson", actor = "telemetry");
        let event = UsageEvent::parse(&msg.kind, msg.payload)
            .inspect_err(|e| tracing::warn!(error = %e, "usage event refused"));
        self.write_reply(event, &mut handled)
    }
}

fn settings(dir: &Path, extra: &[(&str, &str)]) -> Settings {
    let mut env: std::collections::HashMap<String, String> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.insert("INKLING_LOCALE".into(), "en".into());
    let mut s = Settings::load_with_env(&UserFile::None, env).unwrap();
    s.set_data_dir(dir);
    s
}

fn clock() -> ManualClock {
    ManualClock::new(
        DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc),
    )
}

fn log_text(dir: &Path) -> String {
    log::list_files(&dir.join("telemetry"))
        .unwrap()
        .iter()
        .map(|f| std::fs::read_to_string(&f.path).unwrap())
        .collect()
}

#[actix_rt::test]
async fn each_kind_is_written_when_valid_and_refused_without_a_trace_when_not() {
    let dir = tempfile::tempdir().unwrap();
    let actor = TelemetryActor::new(&settings(dir.path(), &[]), Arc::new(clock())).start();
    let kinds: [(&str, Value, Value, Value); 10] = [
        (
            "note_captured",
            json!({}),
            json!({ "x": 1 }),
            json!({ "x": 1 }),
        ),
        (
            "ai_done",
            json!({ "latencyMs": 5 }),
            json!({ "latencyMs": 5, "x": 1 }),
            json!({ "latencyMs": -5 }),
        ),
        (
            "ai_failed",
            json!({ "reason": "schema", "attempts": 3 }),
            json!({ "reason": "schema", "attempts": 3, "x": 1 }),
            json!({ "reason": "schema", "attempts": 0 }),
        ),
        (
            "ai_retry_manual",
            json!({ "failedCount": 1 }),
            json!({ "failedCount": 1, "x": 1 }),
            json!({ "failedCount": 0 }),
        ),
        (
            "ai_enrich_requested",
            json!({ "from": "failed" }),
            json!({ "from": "failed", "x": 1 }),
            json!({ "from": "trash" }),
        ),
        (
            "ollama_recheck_manual",
            json!({}),
            json!({ "x": 1 }),
            json!({ "x": 1 }),
        ),
        (
            "ollama_recovered",
            json!({ "downMs": 10 }),
            json!({ "downMs": 10, "x": 1 }),
            json!({ "downMs": -1 }),
        ),
        (
            "note_trashed",
            json!({}),
            json!({ "x": 1 }),
            json!({ "x": 1 }),
        ),
        (
            "note_restored",
            json!({}),
            json!({ "x": 1 }),
            json!({ "x": 1 }),
        ),
        (
            "usage_log_exported",
            json!({}),
            json!({ "x": 1 }),
            json!({ "x": 1 }),
        ),
    ];
    for (kind, valid, extra_field, out_of_range) in kinds {
        let before = log_text(dir.path());
        for bad in [extra_field, out_of_range, json!("not an object")] {
            let refused = actor
                .send(EmitJson {
                    kind: kind.into(),
                    payload: bad.clone(),
                })
                .await
                .unwrap();
            assert!(refused.is_err(), "{kind} accepted {bad}");
        }
        assert_eq!(
            log_text(dir.path()),
            before,
            "{kind}: a refused event wrote something"
        );
        actor
            .send(EmitJson {
                kind: kind.into(),
                payload: valid.clone(),
            })
            .await
            .unwrap()
            .unwrap();
        let last: Value =
            serde_json::from_str(log_text(dir.path()).lines().last().unwrap()).unwrap();
        assert_eq!(
            last,
            json!({ "ts": "2026-03-01T12:00:00.000Z", "kind": kind, "payload": valid })
        );
    }
}

#[actix_rt::test]
async fn with_telemetry_disabled_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[("INKLING_TELEMETRY__ENABLED", "false")]);
    let actor = TelemetryActor::new(&s, Arc::new(clock())).start();
    actor
        .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
        .await
        .unwrap()
        .unwrap();
    assert!(!dir.path().join("telemetry").exists());
}

#[actix_rt::test]
async fn files_rotate_by_day_and_size_and_old_days_are_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(
        dir.path(),
        &[
            ("INKLING_TELEMETRY__MAX_FILE_BYTES", "1024"),
            ("INKLING_TELEMETRY__RETENTION_DAYS", "7"),
        ],
    );
    let clock = clock();
    let actor = TelemetryActor::new(&s, Arc::new(clock.clone())).start();
    // 20 lines of 70 bytes: 14 fit in a 1 KiB file, the rest go to part 1.
    for _ in 0..20 {
        actor
            .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
            .await
            .unwrap()
            .unwrap();
    }
    let names = |d: &Path| -> Vec<String> {
        log::list_files(&d.join("telemetry"))
            .unwrap()
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(dir.path()),
        ["events-2026-03-01.jsonl", "events-2026-03-01.1.jsonl"]
    );
    for file in log::list_files(&dir.path().join("telemetry")).unwrap() {
        assert!(std::fs::metadata(&file.path).unwrap().len() <= 1024);
    }
    assert_eq!(
        log::read_events(&dir.path().join("telemetry"))
            .unwrap()
            .events
            .len(),
        20
    );

    clock.advance(chrono::Duration::days(8));
    actor
        .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        names(dir.path()),
        ["events-2026-03-09.jsonl"],
        "older than 7 days deleted"
    );
}

/// Counts the log lines a subscriber sees (the actor runs on this test's thread).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[actix_rt::test]
async fn a_log_that_cannot_be_written_is_reported_once_not_per_event() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::WARN)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let dir = tempfile::tempdir().unwrap();
    // A file where the directory should be: every write fails.
    std::fs::write(dir.path().join("telemetry"), b"in the way").unwrap();
    let actor = TelemetryActor::new(&settings(dir.path(), &[]), Arc::new(clock())).start();

    for _ in 0..5 {
        let reply = actor
            .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
            .await
            .unwrap();
        assert!(reply.is_ok(), "a write failure is not the caller's failure");
    }

    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert_eq!(
        text.matches("cannot write the usage log").count(),
        1,
        "{text}"
    );
}

#[actix_rt::test]
async fn stats_and_export_read_the_log_and_the_export_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let actor = TelemetryActor::new(&settings(dir.path(), &[]), Arc::new(clock())).start();
    actor
        .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
        .await
        .unwrap()
        .unwrap();

    let report = actor.send(GetStats).await.unwrap().unwrap();
    assert!(report.contains("| 2026-03-01 | 1 |"), "{report}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("stats.md")).unwrap(),
        report
    );

    let out = actor
        .send(ExportUsageLog { parent: None })
        .await
        .unwrap()
        .unwrap();
    assert!(out.starts_with(dir.path().join("exports")));
    assert!(out.join("events-2026-03-01.jsonl").exists());
    assert!(std::fs::read_to_string(out.join("stats.md"))
        .unwrap()
        .contains("| 2026-03-01 | 1 |"));
    let second = actor
        .send(ExportUsageLog { parent: None })
        .await
        .unwrap()
        .unwrap();
    assert_ne!(
        out, second,
        "a second export in the same second gets its own folder"
    );
    assert!(log_text(dir.path()).contains("usage_log_exported"));
}
