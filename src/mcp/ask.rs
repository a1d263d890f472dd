//! `ask_notes`: a question answered from the person's notes, through the running
//! service's Ask (`POST /api/ask`): the notes that match, then the local model's answer
//! citing them as [1], [2], gathered from its stream into one reply.

use super::replies::{AskGathering, AskReply};
use crate::client::{ClientError, ServiceClient};

/// The notes for `question`, and the model's answer when the service gives one (or
/// why not). The answer is gathered as it comes, and read no further than its limit
/// (`AskGathering`): past it the call hangs up, which stops the model.
pub async fn ask(client: &ServiceClient, question: &str) -> Result<AskReply, ClientError> {
    let mut gathering = AskGathering::default();
    let mut cut = false;
    let asked = client
        // A saved answer is not a source: as the page and the CLI ask.
        .ask(question, false, |event| {
            if gathering.take(event) {
                return Ok(());
            }
            cut = true;
            Err(ClientError::Api("the answer passed its limit".into()))
        })
        .await;
    match asked {
        Err(_) if cut => {}
        other => other?,
    }
    Ok(gathering.finish())
}
