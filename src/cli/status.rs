//! `inkling status`: the counts, the provider, the worker and the actors' counters.

use super::render::status_lines;
use super::Invocation;
use crate::client::ClientError;

/// `inkling status`.
pub async fn status(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let status = run.client.status().await?;
    if run.json {
        return run.out.json(&status);
    }
    for line in status_lines(&status, run.client.base_url()) {
        run.out.line(line)?;
    }
    Ok(())
}
