//! `ask_notes`: a question answered from the person's notes, through the running
//! service.
//!
//! MERGE POINT (issue #27 point 1): `POST /api/ask` is being built beside this (the
//! notes that match at once, then the model's answer citing them as [1], [2]). Until the
//! client has its call, [`ask`] does the retrieval half alone: it searches for the
//! question and returns those notes with a plain line saying no answer was made. When
//! `ServiceClient` gains the ask call, this one function is pointed at it (the notes,
//! the answer with its citations, or the notes alone with the model's reason); the tool
//! (`tools.rs`) and its reply (`replies::AskReply`) stay as they are.

use super::arguments::DEFAULT_SEARCH_RESULTS;
use super::replies::AskReply;
use crate::api::requests::ListQuery;
use crate::client::{ClientError, ServiceClient};

/// Why the answer is missing while only retrieval is wired, when notes were found.
pub const NO_ANSWER_YET: &str = "this inkling cannot answer questions yet, so these are the \
notes that contain every word of the question, best first; read them with get_note and \
answer from them";

/// ... and when none was.
pub const NO_ANSWER_NO_NOTES: &str = "this inkling cannot answer questions yet, and no note \
contains every word of the question; try search_notes with a few distinctive words";

/// The notes for `question`, and the model's answer when the service gives one.
pub async fn ask(client: &ServiceClient, question: &str) -> Result<AskReply, ClientError> {
    let query = ListQuery {
        q: Some(question.to_string()),
        limit: Some(DEFAULT_SEARCH_RESULTS),
        ..ListQuery::default()
    };
    let hits = client.search(&query).await?;
    let why = if hits.is_empty() {
        NO_ANSWER_NO_NOTES
    } else {
        NO_ANSWER_YET
    };
    Ok(AskReply::notes_only(hits, why))
}
