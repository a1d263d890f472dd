//! The credential guard in front of every `/api` route: the per-install token
//! (`Authorization: Bearer …`, the CLI and scripts) or the inbox page's session cookie.
//!
//! The page gets its cookie by trading the token (`inkling open` puts it in the URL)
//! at `POST /session`. The cookie holds a second secret (`<data_dir>/session-secret`,
//! 0600), not the token: it is `HttpOnly` (no script can read it) and
//! `SameSite=Strict` (no other site's page can make the browser send it), and it
//! survives a restart of the service, so an open page reconnects by itself.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::{web, ResponseError};

use super::error::ApiError;
use crate::api_token;

/// The token the service accepts, shared with the middleware.
#[derive(Clone)]
pub struct ApiToken(pub String);

/// The inbox page's session secret, the value of its cookie.
#[derive(Clone)]
pub struct SessionSecret(pub String);

pub const SESSION_COOKIE: &str = "inkling_session";

/// The value of the session cookie in a `Cookie` header, if any.
pub fn session_cookie(headers: &actix_web::http::header::HeaderMap) -> Option<&str> {
    headers
        .get_all(actix_web::http::header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value)
}

/// The `Set-Cookie` value that gives the page its session.
pub fn session_set_cookie(secret: &str) -> String {
    format!("{SESSION_COOKIE}={secret}; HttpOnly; SameSite=Strict; Path=/")
}

/// Lets a request through only with `Authorization: Bearer <token>` or the page's
/// session cookie.
pub async fn require_token(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let expected = req
        .app_data::<web::Data<ApiToken>>()
        .map(|t| t.0.clone())
        .ok_or_else(|| ApiError::Unexpected(anyhow::anyhow!("no API token configured")))?;
    let bearer = req
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let by_token = bearer.is_some_and(|token| api_token::matches(&expected, token));
    let by_session = req
        .app_data::<web::Data<SessionSecret>>()
        .zip(session_cookie(req.headers()))
        .is_some_and(|(secret, cookie)| api_token::matches(&secret.0, cookie));
    if by_token || by_session {
        let connection = req.conn_data::<super::connection::Connection>().cloned();
        let response = super::connection::signed_in(connection, next.call(req)).await?;
        Ok(response.map_into_boxed_body())
    } else {
        // An answer, not an error: the outer layers see its status and end the
        // connection with `Connection: close` (connection.rs).
        Ok(req.into_response(ApiError::Unauthorized.error_response()))
    }
}
