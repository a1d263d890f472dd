//! The usage log from the command line: `inkling stats` (the report, stats.md) and
//! `inkling export-log` (the log and a fresh report copied into a new folder).

use std::path::PathBuf;

use super::{absolute, Invocation};
use crate::client::ClientError;

/// `inkling stats`: the report as the service writes it.
pub async fn stats(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let report = run.client.stats_report().await?;
    run.out.text(report)
}

/// `inkling export-log [--out DIR]`: prints the new folder.
pub async fn export_log(run: &mut Invocation<'_>, out: Option<PathBuf>) -> Result<(), ClientError> {
    // The service writes the folder; a relative --out means relative to here.
    let out = out.map(absolute).transpose()?;
    let exported = run.client.export_usage_log(out).await?;
    if run.json {
        run.out.json(&exported)
    } else {
        run.out.line(exported.path.display())
    }
}
