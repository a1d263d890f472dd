//! `inkling status`: the counts, the provider, the worker, the notes' vectors, voice
//! notes (on or off, and how to turn them on); with
//! `--verbose` the actors' counters too (a table for whoever looks for stuck work, not
//! for every person who asks how inkling is).

use super::render::{describe_health, status_lines};
use super::Invocation;
use crate::api::voice::{TranscriptionStatus, HOW_TO_TURN_ON};
use crate::client::ClientError;

/// `inkling status [--verbose]`.
pub async fn status(run: &mut Invocation<'_>, verbose: bool) -> Result<(), ClientError> {
    let status = run.client.status().await?;
    if run.json {
        return run.out.json(&status);
    }
    for line in status_lines(&status, run.client.base_url(), verbose) {
        run.out.line(line)?;
    }
    let voice = run.client.transcription().await?;
    run.out.line(format!("voice:  {}", voice_line(&voice)))
}

/// One line for voice notes: off (and how to turn them on), or the server's state.
pub fn voice_line(voice: &TranscriptionStatus) -> String {
    if !voice.enabled {
        return HOW_TO_TURN_ON.to_string();
    }
    format!(
        "speech-to-text server {} ({} voice notes waiting for their words)",
        describe_health(voice.health.as_ref()),
        voice.waiting
    )
}
