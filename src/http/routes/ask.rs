//! `POST /api/ask`: a question asked of the notes (docs/API.md). The answer is a
//! stream of newline-delimited JSON events (`crate::api::ask::AskEvent`): the notes
//! that match at once, then the model's answer as it comes, its citations checked
//! (`crate::ai::ask::events_of`), then `done`. A client that hangs up drops the
//! stream, which closes the answer's channel: the worker drops the provider's request
//! and the model stops. The stream also ends when the server stops.
//!
//! The answer is read from the model only as the client reads it: the channel is
//! bounded (`crate::actors::ai_worker::ask`), and actix-http stops polling this stream
//! while its write buffer is full, so a client that reads nothing holds a few pieces,
//! not the answer. A streaming answer holds its connection like a live feed and is
//! counted among them (`crate::http::live_feeds`): at the cap, 503.

use actix_web::web::Bytes;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use futures_util::StreamExt;

use crate::ai::ask::{events_of, why_not_answered, AskEnd, AskUpdate, Citations};
use crate::api::ask::{AskEvent, AskRequest, NoAnswer, Question};
use crate::http::auth::Credential;
use crate::http::error::ApiError;
use crate::http::live_feeds;
use crate::http::state::AppState;

/// `POST /api/ask {"question": …}` → 200 `application/x-ndjson`, or 400 for an empty
/// or over-long question (nothing is asked then), or 503 when the live feeds and
/// answers streaming are at their cap.
pub async fn ask(
    request: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<AskRequest>,
) -> Result<HttpResponse, ApiError> {
    let question =
        Question::parse(&body.question).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    // Counted from before the notes are looked up until the stream is dropped.
    let Some(counted) = state.live_feeds.open() else {
        return Ok(live_feeds::refusal(&request));
    };
    // A page's next question replaces its last; the token's callers (the CLI, a
    // script) each wait their turn.
    let asker = match request.extensions().get::<Credential>() {
        Some(Credential::Session(access)) => Some(access.clone()),
        _ => None,
    };
    let question_text = question.as_str().to_string();
    let asked = state
        .services
        .inbox
        .ask(question, asker, body.include_answers)
        .await?;
    let count = asked.notes.len();
    let notes = asked
        .notes
        .into_iter()
        .map(|note| state.note_view(note))
        .collect();
    let locale = state.locale;
    let why = move |reason: NoAnswer| why_not_answered(reason, locale).to_string();
    let first = Bytes::from(AskEvent::Notes { notes }.line());
    let answer = match asked.updates {
        None => {
            let done = AskEvent::unanswered(NoAnswer::NoNotes, why(NoAnswer::NoNotes));
            futures_util::stream::once(async move { Bytes::from(done.line()) }).boxed_local()
        }
        Some(updates) => {
            let mut citations = Citations::new(count).asked(&question_text);
            let mut ended = false;
            // A channel closed with no end (the worker stopped with the service) still
            // ends the answer with its line.
            let stopped = AskUpdate::End(AskEnd::NotAnswered {
                reason: NoAnswer::Failed,
                detail: "the worker stopped".into(),
            });
            updates_of(updates)
                .map(Some)
                .chain(futures_util::stream::once(async { None }))
                .map(move |update| {
                    let update = match update {
                        Some(update) => update,
                        None if ended => return Bytes::new(),
                        None => stopped.clone(),
                    };
                    ended |= matches!(update, AskUpdate::End(_));
                    let lines: String = events_of(update, &mut citations, why)
                        .iter()
                        .map(AskEvent::line)
                        .collect();
                    Bytes::from(lines)
                })
                .filter(|bytes| std::future::ready(!bytes.is_empty()))
                .boxed_local()
        }
    };
    let stream = futures_util::stream::once(async move { first })
        .chain(answer)
        .map(move |bytes| {
            let _counted = &counted;
            Ok::<_, actix_web::Error>(bytes)
        })
        .take_until(Box::pin(state.server.stopping()));
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(stream))
}

/// The channel's updates as a stream, ending when the worker drops its end.
fn updates_of<T: 'static>(
    mut receiver: tokio::sync::mpsc::Receiver<T>,
) -> impl futures_util::Stream<Item = T> {
    futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}
