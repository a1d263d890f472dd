//! Sessions, the inbox page's credential: `POST /api/open-code` (a one-time code that
//! opens the page), `POST /session` (the page trades that code, or the token, for a
//! session and its key), `GET /session/proof` and `POST /session/access` (the service
//! proves itself to the page, then the page to the service, for an access that lives
//! as long as this run), `POST /api/session/end` and `POST /api/sessions/end-all`
//! (signing out). The sessions themselves live in `src/sessions.rs`, the proofs in
//! `src/page_proof.rs`, the codes in `src/open_codes.rs`.

use actix_web::http::header::CACHE_CONTROL;
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use crate::api::replies::{OpenCode, SessionAccess, SessionOpened, SessionProof};
use crate::api::requests::{SessionAccessRequest, SessionProofQuery};
use crate::api_token;
use crate::http::auth::{bearer, ApiToken};
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::identity::{hex, is_valid_nonce};
use crate::open_codes::OpenCodes;
use crate::page_proof::{self, Challenges};
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
/// or the API token itself (scripts, tests); and the session it held before, if any,
/// which ends (rather than being left to expire) once the new one is granted.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRequest {
    pub code: Option<String>,
    pub token: Option<String>,
    pub replaces: Option<String>,
}

/// `POST /session {"code": "..."}` (or `{"token": "..."}`) → 200 `{"session": "...",
/// "key": "...", "idle_expiry_days": 30}`, or 401. A code opens once, within a minute
/// of being handed out. The page keeps the key as a non-extractable WebCrypto key
/// (`src/page_proof.rs`).
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
    if let Some(old) = &request.replaces {
        sessions.end(old.trim())?;
    }
    let key = hex(&page_proof::page_key(&token.0, &session));
    Ok(HttpResponse::Ok()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(SessionOpened {
            session,
            key,
            idle_expiry_days: crate::sessions::IDLE_EXPIRY.num_days(),
        }))
}

/// `GET /session/proof?session=ID&nonce=HEX` → 200 `{"proof": "...", "challenge":
/// "..."}`: the service proves it holds the page's key (HMAC of its port and the
/// nonce), and asks the page to prove it too. 401 for a session that is not open; 400
/// for a nonce that is not 32 to 128 hex digits. Needs no credential, and reveals
/// nothing but that the answerer can derive the key.
pub async fn prove_service(
    token: web::Data<ApiToken>,
    sessions: web::Data<Sessions>,
    challenges: web::Data<Challenges>,
    state: web::Data<AppState>,
    query: web::Query<SessionProofQuery>,
) -> Result<HttpResponse, ApiError> {
    if !is_valid_nonce(&query.nonce) {
        return Err(ApiError::BadRequest(
            "nonce must be 32 to 128 hexadecimal digits".into(),
        ));
    }
    if !sessions.check(&query.session, state.clock.now()) {
        return Err(ApiError::Unauthorized);
    }
    let key = page_proof::page_key(&token.0, &query.session);
    let challenge = challenges.issue(&query.session, std::time::Instant::now())?;
    Ok(HttpResponse::Ok()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(SessionProof {
            proof: page_proof::service_proof(&key, state.port, &query.nonce),
            challenge,
        }))
}

/// `POST /session/access {"session", "challenge", "answer"}` → 200 `{"access": "..."}`:
/// the page answered the challenge with its key, and gets the bearer for this run of
/// the service. 401 otherwise (the challenge is used up either way).
pub async fn grant_access(
    token: web::Data<ApiToken>,
    sessions: web::Data<Sessions>,
    challenges: web::Data<Challenges>,
    state: web::Data<AppState>,
    request: web::Json<SessionAccessRequest>,
) -> Result<HttpResponse, ApiError> {
    let taken = challenges.take(
        &request.challenge,
        &request.session,
        std::time::Instant::now(),
    );
    let key = page_proof::page_key(&token.0, &request.session);
    if !taken || !page_proof::is_page_answer(&key, state.port, &request.challenge, &request.answer)
    {
        return Err(ApiError::Unauthorized);
    }
    let access = sessions
        .grant_access(&request.session, state.clock.now())?
        .ok_or(ApiError::Unauthorized)?;
    Ok(HttpResponse::Ok()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(SessionAccess { access }))
}

/// `POST /api/session/end` → 204: the page signs out (the session of its access ends;
/// a token is not a session and is left alone).
pub async fn end_session(
    request: actix_web::HttpRequest,
    sessions: web::Data<Sessions>,
) -> Result<HttpResponse, ApiError> {
    if let Some(given) = bearer(&request) {
        sessions.end_by_access(given)?;
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
