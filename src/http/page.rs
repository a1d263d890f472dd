//! The inbox page: `GET /` and its assets, embedded from `web/` (no build step, no
//! CDN: the page works offline), and `POST /session`, where the page trades the token
//! from its URL for the session cookie.
//!
//! Everything is served with a Content-Security-Policy that allows only this origin's
//! own scripts and styles, so even a note body full of markup cannot run code.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY};
use actix_web::{web, HttpResponse};
use serde::Deserialize;

use super::auth::{session_set_cookie, ApiToken, SessionSecret};
use super::error::ApiError;
use crate::api_token;
use crate::app_icon::APP_ICON_SVG;
use crate::open_codes::OpenCodes;

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");
const I18N_JSON: &str = include_str!("../../web/i18n.json");

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((CONTENT_SECURITY_POLICY, CSP))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .body(body)
}

/// `GET /`: the page. It holds no data; it asks the API once it has a session.
pub async fn index() -> HttpResponse {
    asset("text/html; charset=utf-8", INDEX_HTML)
}

/// `GET /assets/{name}`.
pub async fn assets(name: web::Path<String>) -> HttpResponse {
    match name.as_str() {
        "app.js" => asset("text/javascript; charset=utf-8", APP_JS),
        "style.css" => asset("text/css; charset=utf-8", STYLE_CSS),
        "i18n.json" => asset("application/json", I18N_JSON),
        "icon.svg" => asset("image/svg+xml", APP_ICON_SVG),
        _ => HttpResponse::NotFound().json(serde_json::json!({ "error": "no such asset" })),
    }
}

/// What the page trades for its session: a one-time code (`inkling open`, the tray),
/// or the API token itself (scripts, tests).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRequest {
    pub code: Option<String>,
    pub token: Option<String>,
}

/// `POST /session {"code": "..."}` (or `{"token": "..."}`) → 204 with the session
/// cookie, or 401. A code opens once, within a minute of being handed out.
pub async fn open_session(
    token: web::Data<ApiToken>,
    secret: web::Data<SessionSecret>,
    codes: web::Data<OpenCodes>,
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
    Ok(HttpResponse::NoContent()
        .insert_header(("Set-Cookie", session_set_cookie(&secret.0)))
        .finish())
}
