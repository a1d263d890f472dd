//! Sessions, the inbox page's credential: `POST /api/open-code` (a one-time code that
//! opens the page), `POST /session` (the page trades that code, or the token, for a
//! session), `POST /api/session/end` and `POST /api/sessions/end-all` (signing out).
//! The sessions themselves live in `src/sessions.rs`, the codes in `src/open_codes.rs`.

use actix_web::http::header::CACHE_CONTROL;
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use crate::api::replies::OpenCode;
use crate::api_token;
use crate::http::auth::{bearer, ApiToken};
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::open_codes::OpenCodes;
use crate::sessions::Sessions;

/// `POST /api/open-code` → `{"code": "...", "expires_in_s": 60}`: a one-time code that
/// opens the inbox page (`/?code=...`), instead of the token in the address.
pub async fn open_code(codes: web::Data<OpenCodes>) -> Result<HttpResponse, ApiError> {
    let code = codes.mint(std::time::Instant::now())?;
    Ok(HttpResponse::Ok().json(OpenCode {
        code,
        expires_in_s: crate::open_codes::VALID_FOR.as_secs(),
    }))
}

/// What the page trades for its session: a one-time code (`inkling open`, the tray),
/// or the API token itself (scripts, tests).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRequest {
    pub code: Option<String>,
    pub token: Option<String>,
}

/// `POST /session {"code": "..."}` (or `{"token": "..."}`) → 200 `{"session": "...",
/// "idle_expiry_days": 30}`, or 401. A code opens once, within a minute of being
/// handed out. The page keeps the session in its own origin's storage
/// (`src/sessions.rs`).
pub async fn open_session(
    token: web::Data<ApiToken>,
    sessions: web::Data<Sessions>,
    codes: web::Data<OpenCodes>,
    state: web::Data<AppState>,
    request: web::Json<SessionRequest>,
) -> Result<HttpResponse, ApiError> {
    let granted = match (&request.code, &request.token) {
        (Some(code), None) => codes.redeem(code.trim(), std::time::Instant::now()),
        (None, Some(given)) => api_token::matches(&token.0, given.trim()),
        _ => false,
    };
    if !granted {
        return Err(ApiError::Unauthorized);
    }
    let session = sessions.open(state.clock.now())?;
    Ok(HttpResponse::Ok()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(crate::api::replies::SessionOpened {
            session,
            idle_expiry_days: crate::sessions::IDLE_EXPIRY.num_days(),
        }))
}

/// `POST /api/session/end` → 204: the page signs out (its session ends; a token is
/// not a session and is left alone).
pub async fn end_session(
    request: actix_web::HttpRequest,
    sessions: web::Data<Sessions>,
) -> Result<HttpResponse, ApiError> {
    if let Some(given) = bearer(&request) {
        sessions.end(given)?;
    }
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/sessions/end-all` → `{"count": n}`: every page is signed out
/// (`inkling logout --all`).
pub async fn end_all_sessions(sessions: web::Data<Sessions>) -> Result<HttpResponse, ApiError> {
    let count = sessions.end_all()?;
    tracing::info!(count, "every inbox session ended");
    Ok(HttpResponse::Ok().json(crate::api::replies::Count {
        count: count as u64,
    }))
}
