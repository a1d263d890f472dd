//! `GET /api/notes/{id}/related`: a note's nearest notes by their vectors
//! (docs/DESIGN.md, "Related notes"). Retrieval's (`Inbox::related`), shaped as
//! `crate::api::notes::RelatedNotes`.

use actix_web::{web, HttpResponse};

use crate::api::notes::{RelatedNote, RelatedNotes};
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `GET /api/notes/{id}/related` → the five nearest notes out of the trash, best
/// first, none below the floor; 404 for an unknown note.
pub async fn related(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let found = state.services.inbox.related(id.into_inner()).await?;
    let notes = found
        .notes
        .into_iter()
        .map(|(note, similarity)| RelatedNote::new(state.note_view(note), similarity))
        .collect();
    Ok(HttpResponse::Ok().json(RelatedNotes {
        notes,
        embedded: found.embedded,
    }))
}
