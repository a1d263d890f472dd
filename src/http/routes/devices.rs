//! Paired devices and the web clipper: `POST /api/devices/pairing-code` (`inkling
//! pair`), `POST /pair` (an extension trades the code for a capture-only token; no
//! credential but the code), `GET /api/devices` and `DELETE /api/devices/{id}`
//! (`inkling sessions`), and `POST /api/clip` (a page saved as a note). The devices
//! themselves live in `src/devices.rs`; who may call which route is
//! `src/http/scopes.rs`'s table.

use actix_web::http::header::CACHE_CONTROL;
use actix_web::{web, HttpResponse};

use crate::api::devices::{ClipRequest, PairRequest};
use crate::devices::Devices;
use crate::domain::NoteBody;
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `POST /api/devices/pairing-code` → `{"code": "ABCD-EFGH", "expires_in_s": 300}`.
pub async fn pairing_code(
    devices: web::Data<Devices>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let code = devices.mint_code(state.clock.monotonic())?;
    tracing::info!("a pairing code was handed out");
    Ok(HttpResponse::Ok()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(code))
}

/// `POST /pair {"code", "name"}` → 201 `{"id", "name", "token", "scope": "capture"}`;
/// 401 with the reason (no code waiting, expired, wrong: tries left), 400 for a bad
/// name. The token is shown this once.
pub async fn pair(
    devices: web::Data<Devices>,
    state: web::Data<AppState>,
    request: web::Json<PairRequest>,
) -> Result<HttpResponse, ApiError> {
    let paired = devices.pair(
        &request.code,
        &request.name,
        state.clock.monotonic(),
        state.clock.now(),
    );
    match &paired {
        Ok(device) => {
            tracing::info!(device = %device.id, name = %device.name, "a device was paired")
        }
        Err(e) => tracing::warn!(error = %e, "a pairing was refused"),
    }
    Ok(HttpResponse::Created()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(paired?))
}

/// `GET /api/devices` → the paired devices, oldest first (never their tokens).
pub async fn list(devices: web::Data<Devices>) -> HttpResponse {
    HttpResponse::Ok().json(devices.list())
}

/// `DELETE /api/devices/{id}` → 204; 404 when no device has that id.
pub async fn revoke(
    devices: web::Data<Devices>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    if devices.revoke(&id)? {
        tracing::info!(device = %id, "a paired device was revoked");
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!(
            "no paired device has the id {id}; `inkling sessions` lists them"
        )))
    }
}

/// `POST /api/clip {"url", "title", "selection"}` → 201 with the note: the link, then
/// the selection quoted. 400 for an address that is not http(s) or too long, 413 for
/// a clip over the note limit; nothing is saved then.
pub async fn clip(
    state: web::Data<AppState>,
    request: web::Json<ClipRequest>,
) -> Result<HttpResponse, ApiError> {
    let markdown = request.to_markdown().map_err(ApiError::BadRequest)?;
    let body = NoteBody::parse(markdown, state.max_body_bytes)?;
    let note = state.services.inbox.capture(body).await?;
    tracing::info!(note_id = %note.id, "page clipped");
    Ok(HttpResponse::Created().json(state.note_view(note)))
}
