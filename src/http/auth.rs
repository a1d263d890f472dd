//! The credential check in front of every `/api` route: `Authorization: Bearer …` with
//! the per-install token (the CLI, scripts), an access of one of the inbox page's
//! sessions, granted in this run of the service (`src/sessions.rs`,
//! `src/page_proof.rs`), or a paired device's token (`src/devices.rs`).
//!
//! It is also where scopes are applied, once for every route: a device's token may use
//! only what `crate::http::scopes` opens to capture (403 otherwise), and a request from
//! a browser extension's origin (let through by the guard, `server/guard.rs`) must
//! carry a device's token, never the token or a page's access.
//!
//! No cookie is accepted: browsers send a cookie of 127.0.0.1 to every port of it, so
//! any other local web server would receive it. The page holds its session in its own
//! origin's storage and sends it as a header, which no other page can make it send
//! (and which a cross-origin request could only carry after a CORS preflight that this
//! service never grants to a web page: only to a browser extension's origin, for a POST
//! that pairs or saves a note, `http/server/guard.rs`).

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, ResponseError};

use crate::api::devices::Scope;
use crate::api_token;
use crate::devices::Devices;
use crate::http::error::ApiError;
use crate::http::scopes;
use crate::http::server::connection::{signed_in, Connection};
use crate::http::server::guard::ExtensionOrigin;
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
    /// A paired device (its id): capture only.
    Device(String),
}

impl Credential {
    pub fn scope(&self) -> Scope {
        match self {
            Credential::Token | Credential::Session(_) => Scope::Full,
            Credential::Device(_) => Scope::Capture,
        }
    }
}

/// Why a credential that is valid may not make this request, if it may not: a browser
/// extension's origin with anything but a device's token, or a route beyond the
/// credential's scope.
pub fn refusal(
    credential: &Credential,
    from_extension: bool,
    method: &actix_web::http::Method,
    path: &str,
) -> Option<&'static str> {
    if from_extension && credential.scope() != Scope::Capture {
        return Some(
            "a browser extension may only use the capture-only token it was paired with \
             (`inkling pair`), never the API token or the inbox page's session",
        );
    }
    if !credential.scope().admits(scopes::required(method, path)) {
        return Some(scopes::BEYOND_SCOPE);
    }
    None
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
    let (Some(token), Some(sessions), Some(devices), Some(state)) = (
        req.app_data::<web::Data<ApiToken>>(),
        req.app_data::<web::Data<Sessions>>(),
        req.app_data::<web::Data<Devices>>(),
        req.app_data::<web::Data<AppState>>(),
    ) else {
        let missing = ApiError::Unexpected(anyhow::anyhow!("no credentials configured"));
        return Ok(req.into_response(missing.error_response()));
    };
    let credential = bearer(req.request()).and_then(|given| {
        if api_token::matches(&token.0, given) {
            Some(Credential::Token)
        } else if sessions.check_access(given, state.clock.now()) {
            Some(Credential::Session(given.to_owned()))
        } else {
            devices
                .check(given, state.clock.now())
                .map(|(id, _)| Credential::Device(id))
        }
    });
    if let Some(credential) = credential {
        let from_extension = req.extensions().get::<ExtensionOrigin>().is_some();
        if let Some(reason) = refusal(&credential, from_extension, req.method(), req.path()) {
            tracing::warn!(path = %req.path(), method = %req.method(), "a request beyond its credential's scope refused");
            return Ok(req.into_response(ApiError::Forbidden(reason.into()).error_response()));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::Method;

    #[test]
    fn an_extension_may_use_only_a_device_token_and_a_device_only_capture() {
        let device = Credential::Device("d1".into());
        assert_eq!(refusal(&device, true, &Method::POST, "/api/clip"), None);
        assert_eq!(refusal(&device, false, &Method::POST, "/api/notes"), None);
        assert!(refusal(&device, false, &Method::GET, "/api/notes").is_some());
        assert!(refusal(&device, true, &Method::GET, "/api/status").is_some());
        for full in [Credential::Token, Credential::Session("s".into())] {
            assert_eq!(refusal(&full, false, &Method::GET, "/api/notes"), None);
            assert!(refusal(&full, true, &Method::POST, "/api/notes").is_some());
        }
    }
}
