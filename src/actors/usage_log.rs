//! `UsageLogActor`: the one owner of the usage log's files, and its messages.
//!
//! It runs on a thread of its own (a one-thread `SyncArbiter`, like the repository):
//! appending, rotating, pruning and reading files block, and on the System arbiter a
//! slow or full disk would stall every actor and timer there (docs/PLATFORM.md,
//! "actix: a blocking call freezes its arbiter"). Its mailbox is first in, first out,
//! so a report or an export asked for after an event sees that event.
//!
//! Files: `<data_dir>/telemetry/events-YYYY-MM-DD.jsonl` (the event's UTC date),
//! continued in `.1`, `.2`, … past `telemetry.max_file_bytes`; files older than
//! `telemetry.retention_days` are deleted when a new day starts. Each line is one
//! `write` on an `O_APPEND` file, so a crash leaves at worst one torn last line, which
//! readers skip. What to write, and when, is the `TelemetryActor`'s: it stamps and
//! checks each event on the System arbiter (where the tests' virtual clock runs) and
//! sends the finished line here.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use actix::{Actor, Addr, Message, SyncArbiter, SyncContext};
use chrono::{DateTime, NaiveDate, Utc};

use super::handling;
use crate::configuration::{Locale, Settings};
use crate::domain::timestamp;
use crate::telemetry::{log, stats};

/// Appends one finished line (no newline) to the file for `date`.
#[derive(Debug, Message)]
#[rtype(result = "Appended")]
pub struct Append {
    pub date: NaiveDate,
    pub line: String,
}

/// How an append went, so the sender can say so once (not once per event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    Written,
    /// Written, after earlier appends had failed.
    WrittenAgain,
    /// Not written; `first` is true for the first failure in a row.
    Failed {
        error: String,
        first: bool,
    },
}

/// Replies once every line sent before it is written (the mailbox is first in, first
/// out, and each append is one `write`: nothing is buffered).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Flush;

/// The aggregated log as data.
#[derive(Debug, Message)]
#[rtype(result = "Result<stats::UsageStats, String>")]
pub struct ReadStats;

/// Renders `stats.md` from the log, writes it to `path`, replies with it.
#[derive(Debug, Message)]
#[rtype(result = "Result<String, String>")]
pub struct WriteReport {
    pub locale: Locale,
    pub now: DateTime<Utc>,
    pub path: PathBuf,
}

/// Copies the log and a fresh `stats.md` into a new folder under `parent`; replies with
/// the folder's path.
#[derive(Debug, Message)]
#[rtype(result = "Result<PathBuf, String>")]
pub struct Export {
    pub parent: PathBuf,
    pub locale: Locale,
    pub now: DateTime<Utc>,
}

pub struct UsageLogActor {
    dir: PathBuf,
    max_file_bytes: u64,
    retention_days: u32,
    /// The open log file: its date and its size.
    file: Option<OpenLog>,
    /// Set while appends fail.
    failing: bool,
}

struct OpenLog {
    date: NaiveDate,
    bytes: u64,
    file: File,
}

impl Actor for UsageLogActor {
    type Context = SyncContext<Self>;
}

impl UsageLogActor {
    /// Starts the actor on its own thread.
    pub fn start(settings: &Settings) -> Addr<Self> {
        let dir = settings.telemetry_dir();
        let max_file_bytes = settings.telemetry.max_file_bytes;
        let retention_days = settings.telemetry.retention_days;
        SyncArbiter::start(1, move || UsageLogActor {
            dir: dir.clone(),
            max_file_bytes,
            retention_days,
            file: None,
            failing: false,
        })
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
                let file = private(OpenOptions::new().create(true).append(true)).open(&path)?;
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

    fn append(&mut self, date: NaiveDate, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let open = self.file_for(date, bytes.len() as u64)?;
        open.file.write_all(&bytes)?;
        open.bytes += bytes.len() as u64;
        Ok(())
    }
}

/// The log's files are their owner's only, whatever the process's umask.
fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Reads and aggregates the log.
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

/// Reads the log and renders `stats.md`.
fn build_report(dir: &Path, locale: Locale, now: DateTime<Utc>) -> Result<String, String> {
    Ok(stats::render_markdown(
        &read_stats(dir)?,
        locale,
        &timestamp(now),
    ))
}

impl actix::Handler<Append> for UsageLogActor {
    type Result = actix::MessageResult<Append>;

    fn handle(&mut self, msg: Append, _: &mut SyncContext<Self>) -> Self::Result {
        let mut handled = handling!("Append");
        let appended = match self.append(msg.date, &msg.line) {
            Ok(()) if std::mem::take(&mut self.failing) => Appended::WrittenAgain,
            Ok(()) => Appended::Written,
            Err(e) => {
                // Drop the handle: the next append reopens (the dir may come back).
                self.file = None;
                handled.succeeded(false);
                Appended::Failed {
                    error: format!("{e} (in {})", self.dir.display()),
                    first: !std::mem::replace(&mut self.failing, true),
                }
            }
        };
        actix::MessageResult(appended)
    }
}

impl actix::Handler<Flush> for UsageLogActor {
    type Result = ();

    fn handle(&mut self, _: Flush, _: &mut SyncContext<Self>) {
        let _handled = handling!("Flush");
    }
}

impl actix::Handler<ReadStats> for UsageLogActor {
    type Result = Result<stats::UsageStats, String>;

    fn handle(&mut self, _: ReadStats, _: &mut SyncContext<Self>) -> Self::Result {
        let _handled = handling!("ReadStats");
        read_stats(&self.dir)
    }
}

impl actix::Handler<WriteReport> for UsageLogActor {
    type Result = Result<String, String>;

    fn handle(&mut self, msg: WriteReport, _: &mut SyncContext<Self>) -> Self::Result {
        let _handled = handling!("WriteReport");
        let report = build_report(&self.dir, msg.locale, msg.now)?;
        if let Err(e) = std::fs::write(&msg.path, &report) {
            tracing::warn!(error = %e, "cannot write stats.md");
        }
        Ok(report)
    }
}

impl actix::Handler<Export> for UsageLogActor {
    type Result = Result<PathBuf, String>;

    fn handle(&mut self, msg: Export, _: &mut SyncContext<Self>) -> Self::Result {
        let _handled = handling!("Export");
        let report = build_report(&self.dir, msg.locale, msg.now)?;
        let name = format!("inkling-usage-{}", msg.now.format("%Y%m%d-%H%M%S"));
        let mut out = msg.parent.join(&name);
        let mut n = 2;
        while out.exists() {
            out = msg.parent.join(format!("{name}-{n}"));
            n += 1;
        }
        log::export(&self.dir, &out, &report)
            .map_err(|e| format!("cannot export to {}: {e}", out.display()))?;
        Ok(out)
    }
}
