//! `ask_notes`: a question answered from the person's notes, through the running
//! service's Ask (`POST /api/ask`): the notes that match, then the local model's answer
//! citing them as [1], [2], gathered from its stream into one reply.

use super::replies::AskReply;
use crate::api::ask::AskEvent;
use crate::client::{ClientError, ServiceClient};

/// The notes for `question`, and the model's answer when the service gives one (or
/// why not).
pub async fn ask(client: &ServiceClient, question: &str) -> Result<AskReply, ClientError> {
    let mut events: Vec<AskEvent> = Vec::new();
    client
        .ask(question, |event| {
            events.push(event);
            Ok(())
        })
        .await?;
    Ok(AskReply::from_events(events))
}
