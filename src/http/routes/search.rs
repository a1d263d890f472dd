//! `GET /api/search?q=&status=&tag=&trash=&expired=&limit=`: the hybrid search
//! (docs/DESIGN.md, "Hybrid search"), the notes found by their words and by their
//! meaning, merged; shaped as `crate::api::search::SearchAnswer`, with the quiet line
//! when the meaning was not used. `GET /api/notes?q=` stays the keyword search alone.

use actix_web::{web, HttpResponse};

use crate::api::notes::SearchHitView;
use crate::api::requests::ListQuery;
use crate::api::search::{HybridHitView, SearchAnswer};
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::storage::SearchQuery;

/// `GET /api/search?q=…` → `{"hits": […], "keyword_only": null | {reason, line}}`; a
/// missing or bad `q`, `before`, or a bad filter is a 400 that changes nothing.
pub async fn search(
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let mut query = query.into_inner();
    if query.before.as_deref().is_some_and(|b| !b.is_empty()) {
        return Err(ApiError::BadRequest(
            "a search is one page ranked by relevance: `before` pages by date and \
             cannot be used with it; ask for more with `limit`"
                .into(),
        ));
    }
    let text = query.q.take().unwrap_or_default();
    let filter = query.filter().map_err(ApiError::BadRequest)?;
    let words = SearchQuery::parse(&text).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let found = state.services.inbox.search(words, filter).await?;
    let now = state.clock.now();
    let hits = found
        .hits
        .into_iter()
        .map(|(hit, found_by)| HybridHitView {
            hit: SearchHitView::new(hit, state.expiry.active_days(), now),
            found_by,
        })
        .collect();
    Ok(HttpResponse::Ok().json(SearchAnswer {
        hits,
        keyword_only: found.keyword_only.map(Into::into),
    }))
}
