//! Tags: `GET /api/tags` (the tags in use, with their counts) and
//! `POST /api/tags/rename` (a tag renamed, or merged, on every note).

use actix_web::{web, HttpResponse};

use crate::actors::repository::ListTags;
use crate::api::requests::RenameTagRequest;
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `GET /api/tags` → `[{"tag": "...", "count": n}]`, the tags of active notes, most
/// used first.
pub async fn tags(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let tags = state
        .services
        .repository
        .send(ListTags { limit: None })
        .await??;
    Ok(HttpResponse::Ok().json(tags))
}

/// `POST /api/tags/rename {"tag": "...", "to": "..."}` → `{"tag", "notes", "merged"}`:
/// the tag renamed on every note, merged into `to` when that is in use already (one
/// transaction). 404 for a tag no note has.
pub async fn rename_tag(
    state: web::Data<AppState>,
    request: web::Json<RenameTagRequest>,
) -> Result<HttpResponse, ApiError> {
    let RenameTagRequest { tag: from, to } = request.into_inner();
    let to = crate::tags::normalize(&to).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    if to == from {
        return Err(ApiError::BadRequest(format!(
            "the tag is called \"{to}\" already"
        )));
    }
    let renamed = state.services.inbox.rename_tag(from, to).await?;
    Ok(HttpResponse::Ok().json(renamed))
}
