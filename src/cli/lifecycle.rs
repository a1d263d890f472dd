//! A note's life after capture: `enrich` (its AI again), `trash`, `restore`, `keep`,
//! `delete` (for good), and the bulk moves `trash-expired` and `empty-trash`.

use super::render::printable;
use super::Invocation;
use crate::client::ClientError;
use crate::domain::Note;

/// `inkling enrich ID`.
pub async fn enrich(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    let note = run.client.enrich(id).await?;
    said(run, &note, "enrichment requested for")
}

/// `inkling trash ID`.
pub async fn trash(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    let note = run.client.trash(id).await?;
    said(run, &note, "trashed")
}

/// `inkling restore ID`.
pub async fn restore(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    let note = run.client.restore(id).await?;
    said(run, &note, "restored")
}

/// `inkling keep ID`.
pub async fn keep(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    let note = run.client.keep(id).await?;
    said(run, &note, "kept")
}

/// `inkling trash-expired`: prints how many moved (the JSON has their ids too).
pub async fn trash_expired(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let trashed = run.client.trash_expired().await?;
    if run.json {
        run.out.json(&trashed)
    } else {
        run.out.line(trashed.count)
    }
}

/// `inkling empty-trash`: prints how many were deleted for good.
pub async fn empty_trash(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let deleted = run.client.empty_trash().await?;
    if run.json {
        run.out.json(&deleted)
    } else {
        run.out.line(deleted.count)
    }
}

/// `inkling delete --json`'s answer (the route answers 204, nothing).
#[derive(serde::Serialize)]
struct Deleted<'a> {
    deleted: bool,
    id: &'a str,
}

/// `inkling delete ID`: a note in the trash, deleted for good.
pub async fn delete(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    run.client.delete_forever(id).await?;
    if run.json {
        run.out.json(&Deleted { deleted: true, id })
    } else {
        run.out
            .line(format!("deleted {} for good", printable(id, false)))
    }
}

/// One line for a note an action answered with (or the note as JSON).
fn said(run: &mut Invocation<'_>, note: &Note, done: &str) -> Result<(), ClientError> {
    if run.json {
        run.out.json(note)
    } else {
        run.out.line(format!("{done} {}", note.id))
    }
}
