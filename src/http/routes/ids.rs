//! A note named by the start of its id: `GET /api/notes/ids?prefix=` (the notes it
//! matches, so the CLI can take any unique prefix and say which notes match when it is
//! not unique) and `POST /api/notes/short-ids` (the shortest prefix of each, for the
//! CLI's lists). Wire types: `crate::api::ids`.

use actix_web::{web, HttpResponse};

use crate::actors::repository::{FindIdsByPrefix, ShortenIds};
use crate::api::ids::{
    id_prefix, IdsQuery, IdsReply, ShortIdsReply, ShortIdsRequest, MOST_MATCHES, MOST_SHORTENED,
};
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `GET /api/notes/ids?prefix=P` → `{"ids": […], "more": bool}`, the ids beginning
/// with P as typed, else in lower case; 400 for what cannot begin an id.
pub async fn with_prefix(
    state: web::Data<AppState>,
    query: web::Query<IdsQuery>,
) -> Result<HttpResponse, ApiError> {
    let prefix = id_prefix(&query.prefix).map_err(ApiError::BadRequest)?;
    let find = |prefix: String| {
        state.services.repository.send(FindIdsByPrefix {
            prefix,
            most: MOST_MATCHES + 1,
        })
    };
    let lower = prefix.to_ascii_lowercase();
    let mut ids = find(prefix.clone()).await??;
    if ids.is_empty() && lower != prefix {
        // A UUID copied in capitals: the service's own ids are lower case.
        ids = find(lower).await??;
    }
    let more = ids.len() > MOST_MATCHES;
    ids.truncate(MOST_MATCHES);
    Ok(HttpResponse::Ok().json(IdsReply { ids, more }))
}

/// `POST /api/notes/short-ids` `{"ids": […]}` → `{"short": […]}`, in the same order;
/// 400 past [`MOST_SHORTENED`] ids.
pub async fn shorten(
    state: web::Data<AppState>,
    request: web::Json<ShortIdsRequest>,
) -> Result<HttpResponse, ApiError> {
    let ids = request.into_inner().ids;
    if ids.len() > MOST_SHORTENED {
        return Err(ApiError::BadRequest(format!(
            "at most {MOST_SHORTENED} ids at a time, not {}",
            ids.len()
        )));
    }
    let short = state.services.repository.send(ShortenIds { ids }).await??;
    Ok(HttpResponse::Ok().json(ShortIdsReply { short }))
}
