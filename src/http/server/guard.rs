//! The guard in front of every route: only this machine's own pages and programs get in.
//!
//! - **Host** must name the service itself (`127.0.0.1:PORT`, `[::1]:PORT` or
//!   `localhost:PORT`).
//!   A DNS-rebinding attack makes a browser send requests for `evil.example` to
//!   127.0.0.1; its `Host` gives it away, and it is refused with 403.
//! - **Origin**, when a browser sends one, must be the service's own origin. A page
//!   from anywhere else in the user's browser is refused with 403, even if it somehow
//!   had a credential: no web page can drive the API.
//! - The one other origin let in is a browser extension's (`chrome-extension://ID`,
//!   `moz-extension://UUID`: no web page can send it), to `POST /pair` and to `/api`
//!   only, marked [`ExtensionOrigin`] so that the credential check (`http/auth.rs`)
//!   admits it with a paired device's capture-only token alone (docs/SECURITY.md).
//!
//!   Its requests are answered with CORS headers naming it ([`with_extension_cors`]), and
//!   its preflights (`OPTIONS` with `Access-Control-Request-Method`) for a POST that
//!   pairs or saves a note are answered here, before any credential is asked for (a
//!   preflight carries none; any other is 403): Firefox holds a
//!   Manifest V3 extension's requests to CORS even where it has host permissions, and
//!   without these it could not pair or clip. No other origin gets them.
//!
//! Programs (the CLI, curl) send no `Origin` and pass on their token alone.

use std::net::IpAddr;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue, HOST, ORIGIN};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};

use crate::api::replies::Refusal;

/// The `Host` values and origins that are this service.
#[derive(Debug, Clone)]
pub struct AllowedOrigins {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl AllowedOrigins {
    pub fn for_port(port: u16, bind: IpAddr) -> Self {
        // [::1]: the service listens there too (`bind.rs`).
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        if !bind.is_loopback() && !bind.is_unspecified() {
            hosts.push(match bind {
                IpAddr::V4(ip) => format!("{ip}:{port}"),
                IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            });
        }
        let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
        AllowedOrigins { hosts, origins }
    }

    pub fn host_allowed(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    pub fn origin_allowed(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
    }
}

/// Set on a request whose `Origin` is a browser extension's: only a paired device's
/// token may go on with it.
#[derive(Debug, Clone, Copy)]
pub struct ExtensionOrigin;

/// Whether `origin` is a browser extension's: Chromium's (`chrome-extension://` and 32
/// letters a to p) or Firefox's (`moz-extension://` and a UUID).
pub fn is_extension_origin(origin: &str) -> bool {
    if let Some(id) = origin.strip_prefix("chrome-extension://") {
        return id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b));
    }
    if let Some(id) = origin.strip_prefix("moz-extension://") {
        return id.len() == 36
            && id.bytes().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => b == b'-',
                _ => b.is_ascii_hexdigit(),
            });
    }
    false
}

/// The paths an extension's origin may ask for: pairing, and the API (where only a
/// device's token, of capture scope, gets through).
fn extension_may_ask(path: &str) -> bool {
    path == "/pair" || path.starts_with("/api/")
}

/// What an extension's requests may use (`Access-Control-Allow-*`): POST, the one method
/// of the routes its credential opens, and the two headers it sends.
const EXTENSION_METHODS: &str = "POST";
const EXTENSION_HEADERS: &str = "authorization, content-type";

/// Whether an extension's preflight for `method path` is answered: a POST to pairing or
/// to a route a capture-only token opens (`http/scopes.rs`); any other is refused, as
/// the request itself would be.
fn preflight_allowed(method: Option<&str>, path: &str) -> bool {
    method == Some("POST")
        && (path == "/pair"
            || crate::http::scopes::required(&Method::POST, path)
                == crate::api::devices::Scope::Capture)
}

/// The headers that let the extension at `origin` read an answer: the origin itself (never
/// `*`), and `Vary: Origin` so no cache hands the answer to another.
pub fn with_extension_cors(headers: &mut header::HeaderMap, origin: &HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    headers.insert(header::VARY, HeaderValue::from_static("origin"));
}

/// The answer to an extension's preflight: what it may send, for ten minutes.
fn extension_preflight(origin: &HeaderValue) -> HttpResponse {
    let mut answer = HttpResponse::NoContent().finish();
    let headers = answer.headers_mut();
    with_extension_cors(headers, origin);
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(EXTENSION_METHODS),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(EXTENSION_HEADERS),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    answer
}

fn forbidden(reason: &str) -> HttpResponse {
    HttpResponse::Forbidden().json(Refusal::new(reason))
}

/// Refuses foreign `Host` and `Origin` headers before any route runs.
pub async fn check_host_and_origin(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let Some(allowed) = req.app_data::<web::Data<AllowedOrigins>>().cloned() else {
        return Ok(req.into_response(forbidden("no allowed origins configured")));
    };
    let host = req.headers().get(HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| allowed.host_allowed(h)) {
        tracing::warn!(host = ?host, path = %req.path(), "request for a foreign host refused");
        return Ok(req.into_response(forbidden(
            "this service answers only to 127.0.0.1 and localhost on its own port",
        )));
    }
    if let Some(value) = req.headers().get(ORIGIN).cloned() {
        let origin = value.to_str().unwrap_or("");
        if is_extension_origin(origin) && extension_may_ask(req.path()) {
            let preflight = req.method() == Method::OPTIONS
                && req
                    .headers()
                    .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
            if preflight {
                let asked = req
                    .headers()
                    .get(header::ACCESS_CONTROL_REQUEST_METHOD)
                    .and_then(|m| m.to_str().ok());
                if !preflight_allowed(asked, req.path()) {
                    return Ok(req.into_response(forbidden(
                        "an extension may only save notes here: its token opens nothing else",
                    )));
                }
                return Ok(req.into_response(extension_preflight(&value)));
            }
            req.extensions_mut().insert(ExtensionOrigin);
            let mut answer = next.call(req).await?.map_into_boxed_body();
            with_extension_cors(answer.headers_mut(), &value);
            return Ok(answer);
        } else if !allowed.origin_allowed(origin) {
            tracing::warn!(%origin, path = %req.path(), "cross-origin request refused");
            return Ok(req.into_response(forbidden(
                "cross-origin requests are refused: only inkling's own page may call its API",
            )));
        }
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

#[cfg(test)]
mod tests;
