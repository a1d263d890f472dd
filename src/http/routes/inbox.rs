//! The inbox as a whole: `GET /api/inbox/failed-count`,
//! `POST /api/inbox/retry-all-failed`, `POST /api/inbox/trash-expired` and
//! `POST /api/inbox/keep-expired`, and `POST /api/inbox/expiry`: whether notes expire.

use actix_web::{web, HttpResponse};

use crate::actors::repository::{ChooseExpiry, CountFailed};
use crate::api::replies::{Count, KeptExpired, TrashedExpired};
use crate::api::requests::ExpiryAnswer;
use crate::api::status::ExpiryStatus;
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `GET /api/inbox/failed-count` → a JSON number.
pub async fn failed_count(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let count = state.services.repository.send(CountFailed).await??;
    Ok(HttpResponse::Ok().json(count))
}

/// `POST /api/inbox/retry-all-failed` → `{"count": n}`.
pub async fn retry_all_failed(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let count = state.services.inbox.retry_all_failed().await?;
    Ok(HttpResponse::Ok().json(Count { count }))
}

/// `POST /api/inbox/trash-expired` → `{"count": n, "ids": [...]}`: the notes moved to
/// the trash (the page's Undo restores them).
pub async fn trash_expired(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let ids = state.services.inbox.trash_expired().await?;
    Ok(HttpResponse::Ok().json(TrashedExpired {
        count: ids.len() as u64,
        ids,
    }))
}

/// `POST /api/inbox/keep-expired` → `{"count": n, "ids": [...]}`: the notes kept
/// (none of them counts as expired again).
pub async fn keep_expired(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let ids = state.services.inbox.keep_expired().await?;
    Ok(HttpResponse::Ok().json(KeptExpired {
        count: ids.len() as u64,
        ids,
    }))
}

/// `POST /api/inbox/expiry` with `{"on": true|false}` → `{"choice": "on"|"off", "ask":
/// false}`: the person's answer to whether notes they never kept expire, stored and
/// taken at once. 409 when `expiry.choice` in the settings decides it.
pub async fn choose_expiry(
    state: web::Data<AppState>,
    answer: web::Json<ExpiryAnswer>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let on = answer.into_inner().on;
    state
        .services
        .repository
        .send(ChooseExpiry { on, now })
        .await??;
    Ok(HttpResponse::Ok().json(ExpiryStatus {
        choice: state.expiry.choice(),
        ask: false,
    }))
}
