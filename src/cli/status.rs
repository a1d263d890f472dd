//! `inkling status`: the counts, the provider, the worker, the notes' vectors; with
//! `--verbose` the actors' counters too (a table for whoever looks for stuck work, not
//! for every person who asks how inkling is).

use super::render::status_lines;
use super::Invocation;
use crate::client::ClientError;

/// `inkling status [--verbose]`.
pub async fn status(run: &mut Invocation<'_>, verbose: bool) -> Result<(), ClientError> {
    let status = run.client.status().await?;
    if run.json {
        return run.out.json(&status);
    }
    for line in status_lines(&status, run.client.base_url(), verbose) {
        run.out.line(line)?;
    }
    Ok(())
}
