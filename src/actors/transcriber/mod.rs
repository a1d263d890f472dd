//! The voice notes' worker: pending voice notes' recordings to the speech-to-text server,
//! one at a time, their words saved as the notes' bodies, then handed to the enriching
//! worker. `TranscriberActor` (`actor.rs`) carries out what its pure core (`core.rs`)
//! decides; its messages are in `messages.rs`. Started only when `[transcription]`
//! names a server.

mod actor;
pub mod core;
pub mod messages;

pub use self::actor::{TranscriberActor, TranscriberWiring};
pub use self::messages::{
    GetTranscriptionStatus, IsTranscribing, ReloadVoiceJobs, TranscribeVoiceNote,
};
