//! `TelemetryActor`: the one writer of the local usage log, and its messages.
//!
//! Appends one JSON line per event to `<data_dir>/telemetry/events-YYYY-MM-DD.jsonl`
//! (UTC date; continued in `.1`, `.2`, … past `telemetry.max_file_bytes`; files older
//! than `telemetry.retention_days` are deleted when a new day starts). Callers
//! `do_send` and move on: telemetry never fails the caller. An invalid event is refused
//! and nothing is written; a write error is logged once, not per event, until a write
//! succeeds again. Each line is one `write` on an `O_APPEND` file, so a crash leaves at
//! worst one torn last line, which readers skip.
//!
//! Reading the log (stats, export) happens on a blocking thread, not in this actor:
//! the files are append-only, so a reader never sees a half-changed file, only at
//! worst a torn last line.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use actix::prelude::*;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;

use super::handling;
use crate::ai::FailureReason;
use crate::clock::SharedClock;
use crate::configuration::{Locale, Settings};
use crate::domain::timestamp;
use crate::events::JobFailed;
use crate::telemetry::events::{AiFailed, FailedReason, InvalidEvent, NoFields, UsageEvent};
use crate::telemetry::{log, stats};

/// Appends an event. Replies `Err` only for an invalid event (nothing is written).
#[derive(Debug, Message)]
#[rtype(result = "Result<(), InvalidEvent>")]
pub struct Emit(pub UsageEvent);

/// Appends an event given as `kind` and JSON `payload`, checked against the strict
/// schema first (unknown fields, wrong types and out-of-range values are refused).
/// Only the tests send it (the schema's checks through the actor); the service's own
/// events are typed and go by [`Emit`].
#[derive(Debug, Message)]
#[rtype(result = "Result<(), InvalidEvent>")]
pub struct EmitJson {
    pub kind: String,
    pub payload: Value,
}

/// Builds `stats.md` from the log, writes it to `<data_dir>/stats.md`, replies with it.
#[derive(Debug, Message)]
#[rtype(result = "Result<String, String>")]
pub struct GetStats;

/// The aggregated log as data (the inbox page's stats view and chart).
#[derive(Debug, Message)]
#[rtype(result = "Result<stats::UsageStats, String>")]
pub struct GetUsageStats;

/// Copies the log and a fresh `stats.md` into a new folder under `<data_dir>/exports/`
/// (or under `parent`); replies with the folder's path.
#[derive(Debug, Message)]
#[rtype(result = "Result<PathBuf, String>")]
pub struct ExportUsageLog {
    pub parent: Option<PathBuf>,
}

pub struct TelemetryActor {
    dir: PathBuf,
    data_dir: PathBuf,
    enabled: bool,
    max_file_bytes: u64,
    retention_days: u32,
    locale: Locale,
    clock: SharedClock,
    /// The open log file: its date and its size.
    file: Option<OpenLog>,
    /// Set while writes fail, so the failure is logged once.
    failing: bool,
}

struct OpenLog {
    date: NaiveDate,
    bytes: u64,
    file: File,
}

impl TelemetryActor {
    pub fn new(settings: &Settings, clock: SharedClock) -> Self {
        TelemetryActor {
            dir: settings.telemetry_dir(),
            data_dir: settings.data_dir(),
            enabled: settings.telemetry.enabled,
            max_file_bytes: settings.telemetry.max_file_bytes,
            retention_days: settings.telemetry.retention_days,
            locale: settings.locale(),
            clock,
            file: None,
            failing: false,
        }
    }

    /// The file for `date` with room for `len` more bytes, rotating by day or size.
    fn file_for(&mut self, date: NaiveDate, len: u64) -> std::io::Result<&mut OpenLog> {
        let usable = self.file.as_ref().is_some_and(|f| {
            f.date == date && (f.bytes == 0 || f.bytes + len <= self.max_file_bytes)
        });
        if !usable {
            std::fs::create_dir_all(&self.dir)?;
            if self.file.as_ref().is_none_or(|f| f.date != date) {
                self.prune(date);
            }
            // Continue the day's last part, or start the next one when it is full.
            let mut part = log::list_files(&self.dir)?
                .iter()
                .filter(|f| f.date == date)
                .map(|f| f.part)
                .max()
                .unwrap_or(0);
            loop {
                let path = self.dir.join(log::file_name(date, part));
                let file = OpenOptions::new().create(true).append(true).open(&path)?;
                let bytes = file.metadata()?.len();
                if bytes == 0 || bytes + len <= self.max_file_bytes {
                    self.file = Some(OpenLog { date, bytes, file });
                    break;
                }
                part += 1;
            }
        }
        self.file
            .as_mut()
            .ok_or_else(|| std::io::Error::other("no log file"))
    }

    fn prune(&self, today: NaiveDate) {
        let keep_from = today - chrono::Days::new(u64::from(self.retention_days));
        match log::prune(&self.dir, keep_from) {
            Ok(0) => {}
            Ok(n) => tracing::info!(files = n, "old usage log files deleted"),
            Err(e) => tracing::warn!(error = %e, "cannot delete old usage log files"),
        }
    }

    fn append(&mut self, now: DateTime<Utc>, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let open = self.file_for(now.date_naive(), bytes.len() as u64)?;
        open.file.write_all(&bytes)?;
        open.bytes += bytes.len() as u64;
        Ok(())
    }

    fn write(&mut self, event: &UsageEvent) -> Result<(), InvalidEvent> {
        let now = self.clock.now();
        let line = event.to_line(&timestamp(now)).inspect_err(|e| {
            tracing::warn!(error = %e, "usage event refused");
        })?;
        if !self.enabled {
            return Ok(());
        }
        match self.append(now, &line) {
            Ok(()) => {
                if self.failing {
                    tracing::info!("the usage log is writable again");
                    self.failing = false;
                }
            }
            Err(e) => {
                // Drop the handle: the next event reopens (the dir may come back).
                self.file = None;
                if !self.failing {
                    tracing::error!(error = %e, dir = %self.dir.display(),
                        "cannot write the usage log; events are dropped until it works again");
                    self.failing = true;
                }
            }
        }
        tracing::debug!(kind = event.kind(), "usage event");
        Ok(())
    }
}

/// Reads and aggregates the log (blocking).
fn read_stats(dir: &Path) -> Result<stats::UsageStats, String> {
    let contents = log::read_events(dir).map_err(|e| format!("cannot read the usage log: {e}"))?;
    if contents.skipped_lines > 0 {
        tracing::warn!(
            lines = contents.skipped_lines,
            "unreadable usage log lines skipped"
        );
    }
    Ok(stats::aggregate(contents.events))
}

/// Reads the log and renders `stats.md` (blocking).
fn build_report(dir: &Path, locale: Locale, now: DateTime<Utc>) -> Result<String, String> {
    Ok(stats::render_markdown(
        &read_stats(dir)?,
        locale,
        &timestamp(now),
    ))
}

impl Actor for TelemetryActor {
    type Context = Context<Self>;
}

impl Handler<Emit> for TelemetryActor {
    type Result = Result<(), InvalidEvent>;

    fn handle(&mut self, Emit(event): Emit, _: &mut Context<Self>) -> Self::Result {
        let mut handled = handling!("Emit");
        let result = self.write(&event);
        handled.succeeded(result.is_ok());
        result
    }
}

/// A job failed for good (announced by the worker through the hub): `ai_failed`.
impl Handler<JobFailed> for TelemetryActor {
    type Result = ();

    fn handle(&mut self, msg: JobFailed, _: &mut Context<Self>) {
        let mut handled = handling!("JobFailed");
        let reason = if msg.reason == FailureReason::Schema {
            FailedReason::Schema
        } else {
            FailedReason::Other
        };
        let event = UsageEvent::AiFailed(AiFailed {
            reason,
            attempts: msg.attempts,
        });
        let result = self.write(&event);
        handled.succeeded(result.is_ok());
    }
}

impl Handler<EmitJson> for TelemetryActor {
    type Result = Result<(), InvalidEvent>;

    fn handle(&mut self, msg: EmitJson, _: &mut Context<Self>) -> Self::Result {
        let mut handled = handling!("EmitJson");
        let result = UsageEvent::parse(&msg.kind, msg.payload)
            .inspect_err(|e| tracing::warn!(error = %e, "usage event refused"))
            .and_then(|event| self.write(&event));
        handled.succeeded(result.is_ok());
        result
    }
}

impl Handler<GetStats> for TelemetryActor {
    type Result = ResponseFuture<Result<String, String>>;

    fn handle(&mut self, _: GetStats, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetStats");
        let (dir, locale, now) = (self.dir.clone(), self.locale, self.clock.now());
        let stats_path = self.data_dir.join("stats.md");
        Box::pin(async move {
            actix_rt::task::spawn_blocking(move || {
                let report = build_report(&dir, locale, now)?;
                if let Err(e) = std::fs::write(&stats_path, &report) {
                    tracing::warn!(error = %e, "cannot write stats.md");
                }
                Ok(report)
            })
            .await
            .map_err(|e| format!("stats failed: {e}"))?
        })
    }
}

impl Handler<GetUsageStats> for TelemetryActor {
    type Result = ResponseFuture<Result<stats::UsageStats, String>>;

    fn handle(&mut self, _: GetUsageStats, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetUsageStats");
        let dir = self.dir.clone();
        Box::pin(async move {
            actix_rt::task::spawn_blocking(move || read_stats(&dir))
                .await
                .map_err(|e| format!("stats failed: {e}"))?
        })
    }
}

impl Handler<ExportUsageLog> for TelemetryActor {
    type Result = ResponseActFuture<Self, Result<PathBuf, String>>;

    fn handle(&mut self, msg: ExportUsageLog, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("ExportUsageLog");
        let (dir, locale, now) = (self.dir.clone(), self.locale, self.clock.now());
        let parent = msg.parent.unwrap_or_else(|| self.data_dir.join("exports"));
        let export = actix_rt::task::spawn_blocking(move || {
            let report = build_report(&dir, locale, now)?;
            let name = format!("inkling-usage-{}", now.format("%Y%m%d-%H%M%S"));
            let mut out = parent.join(&name);
            let mut n = 2;
            while out.exists() {
                out = parent.join(format!("{name}-{n}"));
                n += 1;
            }
            log::export(&dir, &out, &report)
                .map_err(|e| format!("cannot export to {}: {e}", out.display()))?;
            Ok(out)
        });
        Box::pin(export.into_actor(self).map(|exported, act, _| {
            let exported = exported.map_err(|e| format!("export failed: {e}"))?;
            if let Ok(path) = &exported {
                tracing::info!(path = %path.display(), "usage log exported");
                let _ = act.write(&UsageEvent::UsageLogExported(NoFields {}));
            }
            exported
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::clock::ManualClock;
    use crate::configuration::UserFile;

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
        let kinds: [(&str, Value, Value, Value); 9] = [
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
}
