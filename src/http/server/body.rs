//! Request bodies: read whole, within a deadline and a size limit, before any route
//! sees them.
//!
//! actix-http gives a request's head 5 s to arrive, but not its body: a client that
//! sent `Content-Length: 100000` and then nothing held its connection (and one of the
//! server's slots) for as long as it liked. Here the body gets [`BODY_DEADLINE`] from
//! the moment the route would start reading it; a body still incomplete then is
//! answered 408, one larger than the limit 413 (without reading it), and either
//! ends the connection (`connection.rs`). On loopback a whole note arrives in well
//! under a millisecond, so the deadline only ever cuts a client that stopped sending.
//!
//! In front of `/api` this runs after the credential check, so a stranger's body is
//! never read at all: its request is refused 401 and its connection closed first.

use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{HttpMessage, ResponseError};
use futures_util::StreamExt;

use crate::http::error::ApiError;

/// How long a request's body may take to arrive once its head is in.
pub const BODY_DEADLINE: Duration = Duration::from_secs(5);

/// The largest body any route takes, in bytes (shared by the routes' app data).
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit(pub usize);

/// The largest recording `POST /api/notes/voice` takes (`transcription.max_audio_bytes`):
/// that route's body alone may be this large, every other keeps [`BodyLimit`].
#[derive(Debug, Clone, Copy)]
pub struct VoiceBodyLimit(pub usize);

/// The one route whose body is a recording.
pub const VOICE_PATH: &str = "/api/notes/voice";

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    TooLarge,
    TooSlow,
    Broken(String),
}

/// Reads the body of `req` (if it has one) within the deadline and the limit, and puts
/// it back as a whole for the route's extractor.
pub async fn read_within_deadline(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let voice = req.path() == VOICE_PATH;
    let limit = if voice {
        req.app_data::<actix_web::web::Data<VoiceBodyLimit>>()
            .map(|limit| limit.0)
    } else {
        req.app_data::<actix_web::web::Data<BodyLimit>>()
            .map(|limit| limit.0)
    }
    .unwrap_or(usize::MAX);
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let chunked = req.headers().contains_key(TRANSFER_ENCODING);
    let has_body = chunked || declared.is_some_and(|length| length > 0);
    if has_body {
        let read = if declared.is_some_and(|length| length > limit as u64) {
            Err(Refusal::TooLarge)
        } else {
            let payload = req.take_payload();
            tokio::time::timeout(BODY_DEADLINE, read_whole(payload, limit))
                .await
                .unwrap_or(Err(Refusal::TooSlow))
        };
        match read {
            Ok(body) => req.set_payload(actix_web::dev::Payload::from(body)),
            Err(refusal) => {
                let error = match refusal {
                    Refusal::TooLarge if voice => ApiError::PayloadTooLarge(
                        crate::api::voice::VoiceRefusal::TooLarge {
                            size: declared.unwrap_or(limit as u64 + 1),
                            limit: limit as u64,
                        }
                        .to_string(),
                    ),
                    Refusal::TooLarge => ApiError::PayloadTooLarge(format!(
                        "the request's body is larger than {limit} bytes"
                    )),
                    Refusal::TooSlow => ApiError::RequestTimeout(format!(
                        "the request's body did not arrive within {} s; send it whole",
                        BODY_DEADLINE.as_secs()
                    )),
                    Refusal::Broken(why) => {
                        ApiError::BadRequest(format!("the request's body is broken: {why}"))
                    }
                };
                return Ok(req.into_response(error.error_response()));
            }
        }
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

async fn read_whole(mut payload: actix_web::dev::Payload, limit: usize) -> Result<Bytes, Refusal> {
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| Refusal::Broken(e.to_string()))?;
        if body.len() + chunk.len() > limit {
            return Err(Refusal::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

#[cfg(test)]
mod tests;
