//! What the service is and how it is doing: `GET /api/status` (counts, the provider's
//! health, the worker, the limits, per-actor counters) and `GET /identity` (the proof
//! that this is the install's inkling, asked before a credential is sent).

use actix_web::{web, HttpResponse};

use crate::actors::ai_worker::GetWorkerStatus;
use crate::actors::provider_monitor::GetProviderHealth;
use crate::actors::repository::{AskAboutExpiry, GetCounts, GetVectorSpread};
use crate::api::replies::IdentityProof;
use crate::api::requests::{body_limit, IdentityQuery};
use crate::api::status::{ExpiryStatus, Limits, ServiceStatus};
use crate::http::auth::ApiToken;
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `GET /api/status` → counts of pending, failed and expired notes, the provider's
/// health (`null` until the first check answers), the worker's state, whether the
/// notes' vectors tell them apart, and per-actor counters (messages handled, time
/// busy, slowest handler).
pub async fn status(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let services = &state.services;
    let counts = services
        .repository
        .send(GetCounts {
            now: state.clock.now(),
        })
        .await??;
    let ask = services
        .repository
        .send(AskAboutExpiry {
            now: state.clock.now(),
        })
        .await??;
    let provider = services.monitor.send(GetProviderHealth).await?;
    let worker = services.worker.send(GetWorkerStatus).await?;
    let vectors = services.repository.send(GetVectorSpread).await??;
    let actors = crate::actors::mailbox_stats::snapshot()
        .into_iter()
        .map(|(actor, counters)| (actor.to_string(), counters))
        .collect();
    Ok(HttpResponse::Ok().json(ServiceStatus {
        version: env!("CARGO_PKG_VERSION").to_string(),
        locale: state.locale,
        expiry_days: state.expiry.days(),
        expiry: ExpiryStatus {
            choice: state.expiry.choice(),
            ask,
        },
        max_attempts: state.max_attempts,
        limits: Limits {
            body_bytes: state.max_body_bytes,
            request_bytes: body_limit(state.max_body_bytes),
            tag_chars: crate::tags::MAX_TAG_CHARS,
            tags_per_note: crate::tags::MAX_TAGS_SET_BY_USER,
        },
        counts,
        provider,
        model_server: state.model_server,
        model: state.model.clone(),
        embedding_model: state.embedding_model.clone(),
        worker,
        vectors,
        actors,
    }))
}

/// `GET /identity?nonce=HEX` → `{"proof": "..."}`: the proof that this is the install's
/// inkling (`crate::identity`), which the CLI checks before it sends the token. Needs no
/// credential: the answer reveals nothing but that the answerer holds the token.
pub async fn identity(
    state: web::Data<AppState>,
    token: web::Data<ApiToken>,
    query: web::Query<IdentityQuery>,
) -> Result<HttpResponse, ApiError> {
    if !crate::identity::is_valid_nonce(&query.nonce) {
        return Err(ApiError::BadRequest(
            "nonce must be 32 to 128 hexadecimal digits".into(),
        ));
    }
    let proof = crate::identity::proof(&token.0, state.port, &query.nonce);
    Ok(HttpResponse::Ok().json(IdentityProof { proof }))
}
