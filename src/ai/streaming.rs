//! A streamed chat on the wire, whatever the server: the request sent (again on a
//! fresh connection when a kept one had died, as [`super::transport::exchange`] does),
//! a refusal read whole and said in words, then the body read line by line as it
//! comes, each line handed to the provider's reader ([`LineSays`]: Ollama's NDJSON, the
//! OpenAI API's server-sent events). The first piece of text may take the plan's
//! `first_piece` (the model reads the prompt first), every later read its `stall`.
//!
//! The stream owns the response: dropping it closes the connection, which the server
//! takes as the client gone, and it stops generating.

use std::collections::VecDeque;
use std::time::Duration;

use actix_web::web::Bytes;
use awc::error::{PayloadError, SendRequestError};
use futures_util::future::LocalBoxFuture;
use futures_util::stream::LocalBoxStream;
use futures_util::{Stream, StreamExt};

use super::transport::{
    died_on_a_kept_connection, error_message, redirect_refused, MAX_ANSWER_BYTES,
};
use super::ProviderError;

/// What one line of a streamed answer says.
#[derive(Debug, Clone, PartialEq)]
pub enum LineSays {
    /// The next piece of the answer (may be empty).
    Text(String),
    /// Nothing for the reader: a blank line, a comment, a role.
    Nothing,
    /// The answer is complete.
    End,
    /// The server reported an error in the stream.
    Failed(ProviderError),
}

/// The longest line taken: a piece of an answer is a few tokens.
const MAX_LINE_BYTES: usize = 1 << 20;

enum Step<S> {
    Start(LocalBoxFuture<'static, Result<awc::ClientResponse<S>, ProviderError>>),
    Reading(Reading<S>),
    Over,
}

struct Reading<S> {
    body: awc::ClientResponse<S>,
    buffer: Vec<u8>,
    pieces: VecDeque<String>,
    /// A piece of text came already: later reads get the stall deadline.
    spoken: bool,
    ended: bool,
}

/// Streams the answer of the request `send` makes, read by `read_line`.
pub fn streamed_chat<S, F, Fut>(
    send: F,
    first_piece: Duration,
    stall: Duration,
    read_line: fn(&str) -> LineSays,
) -> LocalBoxStream<'static, Result<String, ProviderError>>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin + 'static,
    F: Fn() -> Fut + 'static,
    Fut: std::future::Future<Output = Result<awc::ClientResponse<S>, SendRequestError>> + 'static,
{
    let start = Box::pin(async move {
        let mut sent = send().await;
        if let Err(error) = &sent {
            if died_on_a_kept_connection(error) {
                sent = send().await;
            }
        }
        sent.map_err(|e| ProviderError::from_send_error(&e))
    });
    futures_util::stream::unfold(Step::Start(start), move |step| async move {
        let mut reading = match step {
            Step::Over => return None,
            Step::Reading(reading) => reading,
            Step::Start(start) => {
                let mut response = match actix_rt::time::timeout(first_piece, start).await {
                    Err(_) => return Some((Err(no_piece(first_piece)), Step::Over)),
                    Ok(Err(error)) => return Some((Err(error), Step::Over)),
                    Ok(Ok(response)) => response,
                };
                if let Some(refused) = redirect_refused(&response) {
                    return Some((Err(refused), Step::Over));
                }
                if !response.status().is_success() {
                    let code = response.status().as_u16();
                    let bytes = response
                        .body()
                        .limit(MAX_ANSWER_BYTES)
                        .await
                        .unwrap_or_default();
                    let message = error_message(&bytes);
                    return Some((Err(ProviderError::Status { code, message }), Step::Over));
                }
                Reading {
                    body: response,
                    buffer: Vec::new(),
                    pieces: VecDeque::new(),
                    spoken: false,
                    ended: false,
                }
            }
        };
        loop {
            if let Some(piece) = reading.pieces.pop_front() {
                reading.spoken = true;
                return Some((Ok(piece), Step::Reading(reading)));
            }
            if reading.ended {
                return None;
            }
            if let Some(end) = reading.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = reading.buffer.drain(..=end).collect();
                match read_line(String::from_utf8_lossy(&line).trim()) {
                    LineSays::Text(text) if !text.is_empty() => reading.pieces.push_back(text),
                    LineSays::Text(_) | LineSays::Nothing => {}
                    LineSays::End => reading.ended = true,
                    LineSays::Failed(error) => return Some((Err(error), Step::Over)),
                }
                continue;
            }
            if reading.buffer.len() > MAX_LINE_BYTES {
                let error = ProviderError::Invalid("a line of the answer is too long".into());
                return Some((Err(error), Step::Over));
            }
            let wait = if reading.spoken { stall } else { first_piece };
            match actix_rt::time::timeout(wait, reading.body.next()).await {
                Err(_) => return Some((Err(no_piece(wait)), Step::Over)),
                Ok(Some(Ok(chunk))) => reading.buffer.extend_from_slice(&chunk),
                Ok(Some(Err(e))) => {
                    return Some((Err(ProviderError::from_payload_error(&e)), Step::Over))
                }
                Ok(None) => {
                    // The last line may come without its line feed.
                    let rest = std::mem::take(&mut reading.buffer);
                    match read_line(String::from_utf8_lossy(&rest).trim()) {
                        LineSays::End => {
                            reading.ended = true;
                            continue;
                        }
                        LineSays::Failed(error) => return Some((Err(error), Step::Over)),
                        _ => {}
                    }
                    let cut = ProviderError::Unreachable(
                        "the answer ended before the server said it was complete".into(),
                    );
                    return Some((Err(cut), Step::Over));
                }
            }
        }
    })
    .boxed_local()
}

fn no_piece(wait: Duration) -> ProviderError {
    ProviderError::TimedOut(format!(
        "no piece of the answer within {} ms",
        wait.as_millis()
    ))
}
