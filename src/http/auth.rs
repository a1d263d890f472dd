//! The credential check in front of every `/api` route: `Authorization: Bearer …` with
//! either the per-install token (the CLI, scripts) or an access of one of the inbox
//! page's sessions, granted in this run of the service (`src/sessions.rs`,
//! `src/page_proof.rs`).
//!
//! No cookie is accepted: browsers send a cookie of 127.0.0.1 to every port of it, so
//! any other local web server would receive it. The page holds its session in its own
//! origin's storage and sends it as a header, which no other page can make it send
//! (and which a cross-origin request could only carry after a CORS preflight that this
//! service never grants).

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, ResponseError};

use crate::api_token;
use crate::http::error::ApiError;
use crate::http::server::connection::{signed_in, Connection};
use crate::http::state::AppState;
use crate::sessions::Sessions;

/// Which credential let a request in: routes that care (the live feed ends with its
/// session) read it from the request's extensions instead of checking again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// The per-install token (the CLI, scripts).
    Token,
    /// A page's access (granted to its session in this run).
    Session(String),
}

/// The token the service accepts, shared with the middleware.
#[derive(Clone)]
pub struct ApiToken(pub String);

/// The credential in `Authorization: Bearer …`, if any.
pub fn bearer(request: &actix_web::HttpRequest) -> Option<&str> {
    request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// Lets a request through only with the token or a live session's access.
pub async fn require_credential(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (Some(token), Some(sessions), Some(state)) = (
        req.app_data::<web::Data<ApiToken>>(),
        req.app_data::<web::Data<Sessions>>(),
        req.app_data::<web::Data<AppState>>(),
    ) else {
        let missing = ApiError::Unexpected(anyhow::anyhow!("no credentials configured"));
        return Ok(req.into_response(missing.error_response()));
    };
    let credential = bearer(req.request()).and_then(|given| {
        if api_token::matches(&token.0, given) {
            Some(Credential::Token)
        } else {
            sessions
                .check_access(given, state.clock.now())
                .then(|| Credential::Session(given.to_owned()))
        }
    });
    if let Some(credential) = credential {
        req.extensions_mut().insert(credential);
        let connection = req.conn_data::<Connection>().cloned();
        let response = signed_in(connection, next.call(req)).await?;
        Ok(response.map_into_boxed_body())
    } else {
        // An answer, not an error: the outer layers see its status and end the
        // connection with `Connection: close` (server/connection.rs).
        Ok(req.into_response(ApiError::Unauthorized.error_response()))
    }
}
