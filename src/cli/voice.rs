//! `inkling capture --audio FILE`: a recording sent as a voice note. Its format is read
//! from its first bytes, else from its name; the service stores it at once and the
//! speech-to-text server turns it into words in the background.

use std::path::Path;

use super::invocation::Invocation;
use crate::api::voice::{AudioFormat, ACCEPTED_TYPES};
use crate::client::ClientError;

/// Sends the recording in `path`; says the pending note's id.
pub async fn capture_audio(run: &mut Invocation<'_>, path: &Path) -> Result<(), ClientError> {
    let audio = std::fs::read(path)
        .map_err(|e| ClientError::Api(format!("cannot read {}: {e}", path.display())))?;
    if audio.is_empty() {
        return Err(ClientError::Api(format!(
            "{} is empty; nothing was captured",
            path.display()
        )));
    }
    let format = format_of(path, &audio).ok_or_else(|| {
        ClientError::Api(format!(
            "{} is not a recording inkling takes: send {ACCEPTED_TYPES} (WAV, WebM, Ogg or \
             MP3); nothing was captured",
            path.display()
        ))
    })?;
    let note = run.client.capture_voice(audio, format).await?;
    if run.json {
        run.out.json(&note)
    } else {
        run.out.line(format!(
            "captured {} (voice note: its words come once the speech-to-text server has \
             transcribed it)",
            note.id
        ))
    }
}

/// The recording's format: its first bytes say, else its file name's ending.
pub fn format_of(path: &Path, audio: &[u8]) -> Option<AudioFormat> {
    AudioFormat::sniff(audio).or_else(|| {
        path.extension()
            .and_then(|extension| extension.to_str())
            .and_then(AudioFormat::from_extension)
    })
}

#[cfg(test)]
mod tests;
