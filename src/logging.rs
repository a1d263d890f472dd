//! Service logs (`tracing`): where they go and which targets are shown.
//!
//! Not to be confused with the usage log (the JSONL event log of docs/DESIGN.md,
//! "Usage telemetry"): this module
//! only sets up diagnostics for the person running the service.
//!
//! Every actor logs each message it handles at `debug` under its own target
//! (`inkling::actors::repository`, …), so one actor's mailbox is watched with
//! `RUST_LOG=info,inkling::actors::repository=debug`. The filter is `RUST_LOG` when set,
//! else `log.level` from the configuration. Directives are `target=level` pairs; the
//! `Targets` filter is used rather than `EnvFilter` because it needs no regex engine
//! and a service's log filter needs nothing more.

use std::path::Path;
use std::str::FromStr;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// Parses a filter such as `info` or `warn,inkling::actors=debug`.
pub fn parse_filter(directives: &str) -> Result<Targets, String> {
    if directives.trim().is_empty() {
        return Err("is empty; use a level such as \"info\"".into());
    }
    // `Targets` takes a bare word as a target name ("loud" would mean "everything from a
    // module named loud"), which hides typos in a level; require `level` or
    // `target=level` for every directive.
    for directive in directives.split(',').map(str::trim) {
        let level = directive
            .rsplit_once('=')
            .map_or(directive, |(_, level)| level);
        if LevelFilter::from_str(level).is_err() {
            return Err(format!(
                "\"{directive}\" is not a level (error, warn, info, debug, trace, off) or target=level"
            ));
        }
    }
    Targets::from_str(directives.trim())
        .map_err(|e| format!("\"{directives}\" is not a log filter ({e})"))
}

/// A checked log filter: the configured `log.level`, parsed once when the settings load.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct LogFilter {
    directives: String,
    targets: Targets,
}

impl TryFrom<String> for LogFilter {
    type Error = String;

    fn try_from(directives: String) -> Result<Self, String> {
        let targets = parse_filter(&directives)?;
        Ok(LogFilter {
            directives,
            targets,
        })
    }
}

impl LogFilter {
    /// The directives as written.
    pub fn as_str(&self) -> &str {
        &self.directives
    }
}

/// Installs the global subscriber: stderr, plus a daily-rotated file in `logs_dir` when
/// given and writable, filtered by `RUST_LOG` when it is set, else by `configured`.
/// Returns the guard that flushes the file writer; keep it alive until exit.
///
/// Must be called once per process; later calls are ignored (tests call it freely).
pub fn init(
    configured: &LogFilter,
    logs_dir: Option<&Path>,
) -> anyhow::Result<Option<WorkerGuard>> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) => parse_filter(&directives).map_err(|e| anyhow::anyhow!("RUST_LOG {e}"))?,
        Err(_) => configured.targets.clone(),
    };

    // Colours only on a terminal: stderr kept in a file (an MCP client's log of
    // `inkling mcp`, a service's redirected output) gets plain text, not escape codes.
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(true)
        .with_filter(filter.clone());

    // The log file is a convenience: when it cannot be written (a read-only or full
    // data dir) the service still runs, logging to stderr, and says so once.
    let appender = logs_dir.and_then(|dir| match open_log_file(dir) {
        Ok(appender) => Some(appender),
        Err(e) => {
            eprintln!("inkling: {e:#}; logging to stderr only");
            None
        }
    });
    let (file_layer, guard) = match appender {
        Some(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(writer)
                .with_ansi(false)
                .with_target(true)
                .with_filter(filter);
            (Some(layer), Some(guard))
        }
        None => (None, None),
    };

    // An already-installed subscriber (a second call in tests) is not an error.
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file_layer)
        .try_init();
    Ok(guard)
}

/// The daily-rotated log file in `dir` (14 days kept).
fn open_log_file(dir: &Path) -> anyhow::Result<tracing_appender::rolling::RollingFileAppender> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create the log dir {}: {e}", dir.display()))?;
    tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("inkling")
        .filename_suffix("log")
        .max_log_files(14)
        .build(dir)
        .map_err(|e| anyhow::anyhow!("cannot open a log file in {}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_per_target_directives_parse() {
        assert!(parse_filter("info").is_ok());
        assert!(parse_filter("warn,inkling::actors::repository=debug").is_ok());
    }

    #[test]
    fn an_unknown_level_or_an_empty_filter_is_refused() {
        assert!(parse_filter("loud").is_err());
        assert!(parse_filter("  ").is_err());
    }
}
