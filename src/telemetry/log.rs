//! The usage log on disk: file names, reading (tolerant of a torn last line), pruning
//! old files, and exporting a copy.
//!
//! Files: `events-YYYY-MM-DD.jsonl` (UTC date), continued in `events-YYYY-MM-DD.N.jsonl`
//! when a day's file reaches `telemetry.max_file_bytes`. Only the `UsageLogActor`
//! writes; readers may read at any time, since lines are only ever appended.
//!
//! Only regular files count as log files: a link (to `/dev/full`, to a file of
//! someone else's) is passed over, each file is opened without following links, and
//! at most [`MAX_FILE_READ`] bytes of one are read.

use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};

use super::events::{parse_line, UsageEvent};

/// One log file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    pub date: NaiveDate,
    /// 0 for the day's first file, then 1, 2, … as it rotates by size.
    pub part: u32,
    pub path: PathBuf,
}

pub fn file_name(date: NaiveDate, part: u32) -> String {
    match part {
        0 => format!("events-{date}.jsonl"),
        n => format!("events-{date}.{n}.jsonl"),
    }
}

fn parse_file_name(name: &str) -> Option<(NaiveDate, u32)> {
    let stem = name.strip_prefix("events-")?.strip_suffix(".jsonl")?;
    let (date, part) = match stem.split_once('.') {
        Some((date, part)) => (date, part.parse().ok()?),
        None => (stem, 0),
    };
    Some((NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?, part))
}

/// The most read of one log file. The writer starts a new file at
/// `telemetry.max_file_bytes` (5 MiB by default); past this a file is not the log's.
pub const MAX_FILE_READ: u64 = 64 << 20;

/// The log files in `dir` (regular files only, not links), oldest first. A missing
/// dir has none.
pub fn list_files(dir: &Path) -> io::Result<Vec<LogFile>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files: Vec<LogFile> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            // `file_type` does not follow a link: a link is not a regular file here.
            if !entry.file_type().ok()?.is_file() {
                return None;
            }
            let (date, part) = parse_file_name(entry.file_name().to_str()?)?;
            Some(LogFile {
                date,
                part,
                path: entry.path(),
            })
        })
        .collect();
    files.sort_by_key(|f| (f.date, f.part));
    Ok(files)
}

/// What reading the log found.
#[derive(Debug, Default)]
pub struct LogContents {
    pub events: Vec<(DateTime<Utc>, UsageEvent)>,
    /// Lines that are not a valid event (a torn last line after a crash, a hand edit):
    /// skipped, never fatal.
    pub skipped_lines: usize,
}

/// Reads every event in `dir`, oldest file first.
pub fn read_events(dir: &Path) -> io::Result<LogContents> {
    let mut contents = LogContents::default();
    for file in list_files(dir)? {
        let reader = BufReader::new(open_without_following(&file.path)?.take(MAX_FILE_READ));
        for line in reader.split(b'\n') {
            let line = line?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed = std::str::from_utf8(&line)
                .ok()
                .and_then(|text| parse_line(text).ok())
                .and_then(|(ts, event)| {
                    let at = DateTime::parse_from_rfc3339(&ts).ok()?;
                    Some((at.with_timezone(&Utc), event))
                });
            match parsed {
                Some(event) => contents.events.push(event),
                None => contents.skipped_lines += 1,
            }
        }
    }
    Ok(contents)
}

/// Opens a file for reading, refusing a link (swapped in after the listing).
fn open_without_following(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Deletes the files of days before `keep_from`. Returns how many were deleted.
pub fn prune(dir: &Path, keep_from: NaiveDate) -> io::Result<usize> {
    let mut deleted = 0;
    for file in list_files(dir)? {
        if file.date < keep_from {
            fs::remove_file(&file.path)?;
            deleted += 1;
        }
    }
    Ok(deleted)
}

/// Copies every log file and writes `stats_md` into the new folder `out`. Fails if
/// `out` exists: an export never overwrites anything.
pub fn export(dir: &Path, out: &Path, stats_md: &str) -> io::Result<()> {
    if out.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", out.display()),
        ));
    }
    fs::create_dir_all(out)?;
    for file in list_files(dir)? {
        if let Some(name) = file.path.file_name() {
            fs::copy(&file.path, out.join(name))?;
        }
    }
    fs::write(out.join("stats.md"), stats_md)
}

#[cfg(test)]
mod tests;
