//! A streamed chat on the wire, whatever the server: the request sent (again on a
//! fresh connection when a kept one had died, as [`super::transport::exchange`] does),
//! a refusal read whole, then the body read line by line as it comes. The first piece
//! of text may take `first_piece` (the model reads the prompt first), every later read
//! `stall`. Two readers share it:
//!
//! - [`streamed_chat`]: an answer to a question, each line handed to the provider's
//!   reader ([`LineSays`]: Ollama's NDJSON, the OpenAI API's server-sent events) and
//!   its text passed on piece by piece, as the page shows it;
//! - [`streamed_answer`]: a note's enrichment, its lines put together by the provider's
//!   [`Assemble`] into the answer a non-streamed call would have had, so one reader
//!   judges both.
//!
//! Every call is streamed so that a call given up is given up on the server too: the
//! stream owns the response, and dropping it (the call's deadline, a person gone)
//! closes the connection, which the server notices at its next token and stops
//! generating. An answer read whole would leave the server writing into a closed
//! socket for as long as the answer takes, holding its one slot.

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

/// Puts a streamed answer together, line by line, into the answer the same call would
/// have had unstreamed (the provider's own shape), for the provider's reader of whole
/// answers.
pub trait Assemble {
    /// Takes one line of the body (trimmed); `Ok(true)` when the server said the answer
    /// is complete. An error ends the call with it.
    fn line(&mut self, line: &str) -> Result<bool, ProviderError>;
    /// Whether any text came yet: later reads get the stall deadline.
    fn begun(&self) -> bool;
    /// Whether the server said the answer was over (its end, or an error in the
    /// stream). A body that ended without it was cut off: the connection, not the
    /// model. `true` where the provider's reader of whole answers judges that itself.
    fn complete(&self) -> bool {
        true
    }
    /// The status the answer stands for: 200, or an error's own code when the server
    /// reported one in the stream (read then as the refusal it is).
    fn status(&self) -> u16 {
        200
    }
    /// The answer as a whole, as the server would have sent it unstreamed (an error's
    /// body for an error).
    fn whole(self) -> serde_json::Value;
}

/// A response whose head came: streaming, or refused and read whole.
enum Opened<S> {
    Streaming(Lines<S>),
    Refused { status: u16, body: Bytes },
}

/// Sends with `send` (once more on a fresh connection when a kept one had died) and
/// reads the head within `first_piece`; a redirect is refused, any status but a
/// success read whole.
async fn open<S, F, Fut>(send: F, first_piece: Duration) -> Result<Opened<S>, ProviderError>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin,
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<awc::ClientResponse<S>, SendRequestError>>,
{
    let start = async {
        let mut sent = send().await;
        if let Err(error) = &sent {
            if died_on_a_kept_connection(error) {
                sent = send().await;
            }
        }
        sent.map_err(|e| ProviderError::from_send_error(&e))
    };
    let mut response = match actix_rt::time::timeout(first_piece, start).await {
        Err(_) => return Err(no_piece(first_piece)),
        Ok(response) => response?,
    };
    if let Some(refused) = redirect_refused(&response) {
        return Err(refused);
    }
    let status = response.status().as_u16();
    if !response.status().is_success() {
        let body = response
            .body()
            .limit(MAX_ANSWER_BYTES)
            .await
            .unwrap_or_default();
        return Ok(Opened::Refused { status, body });
    }
    Ok(Opened::Streaming(Lines {
        body: response,
        buffer: Vec::new(),
        over: false,
    }))
}

/// A streaming body read as lines.
struct Lines<S> {
    body: awc::ClientResponse<S>,
    buffer: Vec<u8>,
    /// The body ended: what is left in `buffer` is its last line.
    over: bool,
}

impl<S> Lines<S>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin,
{
    /// The body is one JSON document (`application/json`), not a stream of lines.
    fn is_whole_json(&self) -> bool {
        use awc::http::header::CONTENT_TYPE;
        self.body
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with("application/json"))
    }

    /// The rest of the body, whole.
    async fn read_whole(mut self) -> Result<Bytes, ProviderError> {
        self.body
            .body()
            .limit(MAX_ANSWER_BYTES)
            .await
            .map_err(|e| ProviderError::from_payload_error(&e))
    }

    /// The next line, trimmed, waiting at most `wait` for each part of it; `None` once
    /// the body has ended (its last line may come without a line feed).
    async fn next(&mut self, wait: Duration) -> Result<Option<String>, ProviderError> {
        loop {
            if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                return Ok(Some(String::from_utf8_lossy(&line).trim().to_string()));
            }
            if self.over {
                if self.buffer.is_empty() {
                    return Ok(None);
                }
                let rest = std::mem::take(&mut self.buffer);
                return Ok(Some(String::from_utf8_lossy(&rest).trim().to_string()));
            }
            if self.buffer.len() > MAX_LINE_BYTES {
                return Err(ProviderError::Invalid(
                    "a line of the answer is too long".into(),
                ));
            }
            match actix_rt::time::timeout(wait, self.body.next()).await {
                Err(_) => return Err(no_piece(wait)),
                Ok(Some(Ok(chunk))) => self.buffer.extend_from_slice(&chunk),
                Ok(Some(Err(e))) => return Err(ProviderError::from_payload_error(&e)),
                Ok(None) => self.over = true,
            }
        }
    }
}

enum Step<S> {
    Start(LocalBoxFuture<'static, Result<Opened<S>, ProviderError>>),
    Reading(Reading<S>),
    Over,
}

struct Reading<S> {
    lines: Lines<S>,
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
    let start = Box::pin(open(send, first_piece));
    futures_util::stream::unfold(Step::Start(start), move |step| async move {
        let mut reading = match step {
            Step::Over => return None,
            Step::Reading(reading) => reading,
            Step::Start(start) => match start.await {
                Err(error) => return Some((Err(error), Step::Over)),
                Ok(Opened::Refused { status, body }) => {
                    let message = error_message(&body);
                    let refused = ProviderError::Status {
                        code: status,
                        message,
                    };
                    return Some((Err(refused), Step::Over));
                }
                Ok(Opened::Streaming(lines)) => Reading {
                    lines,
                    pieces: VecDeque::new(),
                    spoken: false,
                    ended: false,
                },
            },
        };
        loop {
            if let Some(piece) = reading.pieces.pop_front() {
                reading.spoken = true;
                return Some((Ok(piece), Step::Reading(reading)));
            }
            if reading.ended {
                return None;
            }
            let wait = if reading.spoken { stall } else { first_piece };
            match reading.lines.next(wait).await {
                Err(error) => return Some((Err(error), Step::Over)),
                Ok(Some(line)) => match read_line(&line) {
                    LineSays::Text(text) if !text.is_empty() => reading.pieces.push_back(text),
                    LineSays::Text(_) | LineSays::Nothing => {}
                    LineSays::End => reading.ended = true,
                    LineSays::Failed(error) => return Some((Err(error), Step::Over)),
                },
                Ok(None) => {
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

/// The whole answer of the request `send` makes, streamed and put together by
/// `answer`: the status and body a non-streamed call would have had (a refusal's own
/// body; a success's answer as [`Assemble::whole`] makes it). A body that ends before
/// the server said the answer was complete is handed over as it came, for the reader
/// to judge; one cut off (the connection lost) is an error.
pub async fn streamed_answer<S, F, Fut, A>(
    send: F,
    first_piece: Duration,
    stall: Duration,
    mut answer: A,
) -> Result<(u16, Bytes), ProviderError>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin,
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<awc::ClientResponse<S>, SendRequestError>>,
    A: Assemble,
{
    let mut lines = match open(send, first_piece).await? {
        Opened::Refused { status, body } => return Ok((status, body)),
        Opened::Streaming(lines) => lines,
    };
    if lines.is_whole_json() {
        // A server that does not stream (or a proxy that gathered it) sent one JSON
        // answer: read as the unstreamed answer it is.
        return Ok((200, lines.read_whole().await?));
    }
    let mut read = 0usize;
    loop {
        let wait = if answer.begun() { stall } else { first_piece };
        let Some(line) = lines.next(wait).await? else {
            break;
        };
        read += line.len();
        if read > MAX_ANSWER_BYTES {
            return Err(ProviderError::Invalid(format!(
                "the answer is too large (over {MAX_ANSWER_BYTES} bytes)"
            )));
        }
        if answer.line(&line)? {
            break;
        }
    }
    if !answer.complete() {
        return Err(ProviderError::Unreachable(
            "the answer ended before the server said it was complete".into(),
        ));
    }
    let status = answer.status();
    Ok((status, Bytes::from(answer.whole().to_string())))
}

fn no_piece(wait: Duration) -> ProviderError {
    ProviderError::TimedOut(format!(
        "no piece of the answer within {} ms",
        wait.as_millis()
    ))
}
