//! The trash: `POST /api/notes/{id}/trash`, `POST /api/notes/{id}/restore`,
//! `DELETE /api/notes/{id}` (a trashed note deleted for good) and
//! `POST /api/trash/empty`. (The trash's listing is `GET /api/notes?trash=true`,
//! `notes.rs`.)

use actix_web::{web, HttpResponse};

use crate::api::replies::Count;
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `POST /api/notes/{id}/trash` → the note, now in the trash.
pub async fn trash(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.trash(id).await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/restore` → the note, out of the trash.
pub async fn restore(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.restore(id).await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `DELETE /api/notes/{id}` → 204: a note in the trash deleted for good (409 for an
/// active note: trash it first).
pub async fn delete_forever(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    state.services.inbox.delete_forever(id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/trash/empty` → `{"count": n}` notes deleted for good.
pub async fn empty_trash(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let count = state.services.inbox.empty_trash().await?;
    Ok(HttpResponse::Ok().json(Count { count }))
}
