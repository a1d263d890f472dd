//! A note's life after capture: `enrich` (its AI again), `trash`, `restore`, `keep`,
//! `delete` (for good), and the bulk moves `trash-expired` and `empty-trash`.

use serde_json::Value;

use super::render::printable;
use super::{encode, Invocation};
use crate::client::ClientError;
use crate::domain::Note;

/// `inkling enrich ID`.
pub async fn enrich(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    note_action(run, id, "enrich", "enrichment requested for").await
}

/// `inkling trash ID`.
pub async fn trash(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    note_action(run, id, "trash", "trashed").await
}

/// `inkling restore ID`.
pub async fn restore(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    note_action(run, id, "restore", "restored").await
}

/// `inkling keep ID`.
pub async fn keep(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    note_action(run, id, "keep", "kept").await
}

/// `inkling trash-expired`: prints how many moved.
pub async fn trash_expired(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    post_count(run, "/api/inbox/trash-expired").await
}

/// `inkling empty-trash`: prints how many were deleted for good.
pub async fn empty_trash(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    post_count(run, "/api/trash/empty").await
}

/// `inkling delete ID`: a note in the trash, deleted for good.
pub async fn delete(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    run.client
        .delete(&format!("/api/notes/{}", encode(id)))
        .await?;
    if run.json {
        run.out
            .json(&serde_json::json!({ "id": id, "deleted": true }))
    } else {
        run.out
            .line(format!("deleted {} for good", printable(id, false)))
    }
}

/// A POST that answers `{"count": n}`; prints n (or the JSON).
async fn post_count(run: &mut Invocation<'_>, path: &str) -> Result<(), ClientError> {
    let reply: Value = run.client.post(path, &serde_json::json!({})).await?;
    if run.json {
        run.out.json(&reply)
    } else {
        run.out.line(reply["count"].as_u64().unwrap_or(0))
    }
}

/// `POST /api/notes/{id}/{action}`, then one line (or the note as JSON).
async fn note_action(
    run: &mut Invocation<'_>,
    id: &str,
    action: &str,
    done: &str,
) -> Result<(), ClientError> {
    let note: Note = run
        .client
        .post(
            &format!("/api/notes/{}/{action}", encode(id)),
            &serde_json::json!({}),
        )
        .await?;
    if run.json {
        run.out.json(&note)
    } else {
        run.out.line(format!("{done} {}", note.id))
    }
}
