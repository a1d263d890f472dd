//! `GET /api/changes?since=SEQ&limit=N`: the change log a page at a time (docs/API.md,
//! `crate::api::changes`), one read of the repository.

use actix_web::{web, HttpResponse};

use crate::actors::repository::GetChanges;
use crate::api::changes::{ChangesPage, ChangesQuery};
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `GET /api/changes` → up to `limit` changes after `since`, oldest first, and the
/// `since` of the next page; 400 for a `since` below 0 or a `limit` out of bounds.
pub async fn changes(
    state: web::Data<AppState>,
    query: web::Query<ChangesQuery>,
) -> Result<HttpResponse, ApiError> {
    let (since, limit) = query.page().map_err(ApiError::BadRequest)?;
    let limit = limit as usize;
    // One more than the page, to know whether more follow.
    let mut changes = state
        .services
        .repository
        .send(GetChanges {
            since,
            limit: limit + 1,
        })
        .await??;
    let more = changes.len() > limit;
    changes.truncate(limit);
    let next = changes.last().map_or(since, |change| change.seq);
    Ok(HttpResponse::Ok().json(ChangesPage {
        changes,
        next,
        more,
    }))
}
