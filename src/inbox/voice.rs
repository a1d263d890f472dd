//! Voice notes: a recording stored at once as a pending note (its file fsynced, then
//! its row: durable when the reply comes), then handed to the voice notes' worker,
//! which turns it into words in the background. With voice notes off (no
//! `[transcription]` server), nothing is stored and the words say how to turn them on.

use super::{unavailable, Inbox};
use crate::actors::repository::CaptureVoice;
use crate::actors::search_indexer::NotesCaptured;
use crate::actors::telemetry::Emit;
use crate::actors::transcriber::{ReloadVoiceJobs, TranscribeVoiceNote};
use crate::api::voice::{AudioFormat, HOW_TO_TURN_ON};
use crate::domain::Note;
use crate::storage::{StoreError, StoreResult};
use crate::telemetry::events::{NoFields, UsageEvent};

impl Inbox {
    /// Stores the recording as a pending voice note, then `note_captured`, then queues
    /// its transcription. Voice notes off: `StoreError::Conflict` with how to turn them
    /// on, and nothing stored.
    pub async fn capture_voice(&self, audio: Vec<u8>, format: AudioFormat) -> StoreResult<Note> {
        let Some(transcriber) = &self.transcriber else {
            return Err(StoreError::Conflict(HOW_TO_TURN_ON.into()));
        };
        let now = self.clock.now();
        let note = self
            .repository
            .send(CaptureVoice { audio, format, now })
            .await
            .map_err(unavailable)??;
        self.indexer.do_send(NotesCaptured);
        self.telemetry
            .do_send(Emit(UsageEvent::NoteCaptured(NoFields {})));
        transcriber.do_send(TranscribeVoiceNote {
            note_id: note.id.clone(),
        });
        Ok(note)
    }

    /// Voice notes may be back in the queue (a retry, a restore): the voice notes'
    /// worker reads its jobs again. Nothing to do with voice notes off.
    pub(super) fn reload_voice_jobs(&self) {
        if let Some(transcriber) = &self.transcriber {
            transcriber.do_send(ReloadVoiceJobs);
        }
    }
}
