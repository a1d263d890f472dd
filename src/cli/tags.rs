//! `inkling tags` (the tags with their counts) and `inkling tags rename OLD NEW`.

use super::render::{renamed_line, tag_line};
use super::Invocation;
use crate::client::ClientError;

/// `inkling tags`: most used first.
pub async fn list(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let tags = run.client.tags().await?;
    if run.json {
        return run.out.json(&tags);
    }
    if tags.is_empty() {
        return run.out.line("no tags");
    }
    for tag in &tags {
        run.out.line(tag_line(tag))?;
    }
    Ok(())
}

/// `inkling tags rename OLD NEW`: renamed, or merged into NEW when it is in use.
pub async fn rename(run: &mut Invocation<'_>, old: &str, new: &str) -> Result<(), ClientError> {
    let renamed = run.client.rename_tag(old, new).await?;
    if run.json {
        run.out.json(&renamed)
    } else {
        run.out.line(renamed_line(old, &renamed))
    }
}
