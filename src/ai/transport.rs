//! What every provider client does on the wire, whatever the server: one awc client
//! per provider, a request sent (again on a fresh connection when a kept one had
//! died) and its whole answer read, a deadline around a whole call, a redirect
//! refused, and a server's error body in words.
//!
//! A model server's redirect is never followed (awc follows up to 10 by default): the
//! listener-owner check (`super::listener`) looks at the configured URL only, so a 307
//! to another port would hand a note's text to whatever listens there, another user's
//! server included. The answer is refused instead ([`redirect_refused`]), naming where
//! it pointed: the provider's state, never a note's failure.

use std::time::Duration;

use awc::Client;
use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use super::{CallReply, ProviderError};

/// Answers larger than this are refused (a chat answer is a few hundred bytes).
pub const MAX_ANSWER_BYTES: usize = 4 << 20;
/// Connecting to a local server is instant when it runs; no need to wait long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The longest part of a redirect's target said back (a `Location` is the server's
/// text).
const MAX_LOCATION_CHARS: usize = 200;

/// The awc client of one provider: no timeout of its own (the overall deadline is
/// applied around the whole call instead), a short connect timeout, and no redirect
/// followed.
pub fn provider_http_client() -> Client {
    Client::builder()
        .disable_timeout()
        .disable_redirects()
        .connector(awc::Connector::new().timeout(CONNECT_TIMEOUT))
        .finish()
}

/// Sends, then reads the whole body. Returns the status code and the body.
///
/// awc keeps connections for reuse. A server that closed one meanwhile (Ollama was
/// restarted; an HTTP/1.0 server that closes after each answer) makes the next
/// request on it fail with no answer at all: `ConnectError::Disconnected`, or a reset
/// while sending or before the response head. That says nothing about the provider,
/// so the request goes out once more on a fresh connection; only a second failure
/// counts (as "unreachable"). Without this, every Ollama restart would park the
/// worker for 30 s while the health check says all is well.
pub async fn exchange<S, F, Fut>(send: F) -> Result<(u16, actix_web::web::Bytes), ProviderError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<awc::ClientResponse<S>, awc::error::SendRequestError>>,
    S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin,
{
    let mut sent = send().await;
    if let Err(error) = &sent {
        if died_on_a_kept_connection(error) {
            tracing::debug!(%error, "a kept connection was closed by the server; sending on a fresh one");
            sent = send().await;
        }
    }
    let mut response = sent.map_err(|e| ProviderError::from_send_error(&e))?;
    if let Some(refused) = redirect_refused(&response) {
        return Err(refused);
    }
    let bytes = response
        .body()
        .limit(MAX_ANSWER_BYTES)
        .await
        .map_err(|e| ProviderError::from_payload_error(&e))?;
    Ok((response.status().as_u16(), bytes))
}

/// A redirect (3xx) refused, in words naming where it pointed; `None` for any other
/// answer. Its body is not read.
pub fn redirect_refused<S>(response: &awc::ClientResponse<S>) -> Option<ProviderError> {
    let status = response.status();
    if !status.is_redirection() {
        return None;
    }
    // `to_str` takes visible ASCII only: no control character reaches a log or a page.
    let to: String = response
        .headers()
        .get(awc::http::header::LOCATION)
        .and_then(|location| location.to_str().ok())
        .map(|location| location.chars().take(MAX_LOCATION_CHARS).collect())
        .unwrap_or_else(|| "an address it did not give".into());
    Some(ProviderError::Misconfigured(format!(
        "the model server answered HTTP {} redirecting to {to}; inkling follows no redirect \
         of a model server, so no note goes where it points: set the provider's URL to \
         the server itself",
        status.as_u16()
    )))
}

/// `call` under one overall deadline; past it, a `TimedOut` saying what did not happen.
pub fn within<T: 'static>(
    deadline: Duration,
    what: &'static str,
    call: impl std::future::Future<Output = Result<T, ProviderError>> + 'static,
) -> LocalBoxFuture<'static, Result<T, ProviderError>> {
    async move {
        actix_rt::time::timeout(deadline, call)
            .await
            .unwrap_or_else(|_| {
                Err(ProviderError::TimedOut(format!(
                    "{what} within {} ms",
                    deadline.as_millis()
                )))
            })
    }
    .boxed_local()
}

/// A health check under `limit`; past it, the server at `root` is taken for not running
/// (a server that cannot answer its health route in time cannot take a call either).
pub fn health_within(
    limit: Duration,
    root: impl std::fmt::Display + 'static,
    check: impl std::future::Future<Output = crate::api::provider::ProviderHealth> + 'static,
) -> LocalBoxFuture<'static, crate::api::provider::ProviderHealth> {
    async move {
        actix_rt::time::timeout(limit, check)
            .await
            .unwrap_or_else(|_| crate::api::provider::ProviderHealth::NotRunning {
                detail: format!("no answer from {root} within {limit:?}"),
            })
    }
    .boxed_local()
}

/// A chat call under its plan's deadline; past it, the call is dropped (its connection
/// closed, which a server takes as the client gone) and the reply is `TimedOut`.
pub fn call_within(
    deadline: Duration,
    call: impl std::future::Future<Output = CallReply> + 'static,
) -> LocalBoxFuture<'static, CallReply> {
    async move {
        actix_rt::time::timeout(deadline, call)
            .await
            .unwrap_or_else(|_| {
                CallReply::failed(ProviderError::TimedOut(format!(
                    "no complete answer within {} ms",
                    deadline.as_millis()
                )))
            })
    }
    .boxed_local()
}

/// A request that got no answer because the connection under it died (as opposed to a
/// new connection that could not be made: refused, unresolvable).
pub(super) fn died_on_a_kept_connection(error: &awc::error::SendRequestError) -> bool {
    use awc::error::{ConnectError, SendRequestError};
    use std::io::ErrorKind;
    let dropped = |e: &std::io::Error| {
        matches!(
            e.kind(),
            ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::BrokenPipe
                | ErrorKind::UnexpectedEof
        )
    };
    match error {
        SendRequestError::Connect(ConnectError::Disconnected) => true,
        SendRequestError::Send(e) => dropped(e),
        SendRequestError::Response(actix_web::error::ParseError::Incomplete) => true,
        SendRequestError::Response(actix_web::error::ParseError::Io(e)) => dropped(e),
        _ => false,
    }
}

/// The message of a JSON error body (Ollama: `error` as a string; the OpenAI API:
/// `error.message`; older vLLM: a top-level `message`), else the raw text.
pub fn error_message(bytes: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| {
            let message = match v.get("error") {
                Some(error) => error
                    .as_str()
                    .or_else(|| error.get("message").and_then(|m| m.as_str())),
                // vLLM's older envelope: {"object": "error", "message": "…"}.
                None => v.get("message").and_then(|m| m.as_str()),
            };
            message.map(String::from)
        })
        .unwrap_or_else(|| String::from_utf8_lossy(bytes).trim().to_string())
}
