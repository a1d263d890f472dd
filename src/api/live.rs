//! The live events of `GET /api/events`, as one type, written in one place
//! ([`LiveEvent::frame`]): the SSE `event:` name is the variant's, the `data:` the JSON
//! of what it carries.
//!
//! ```text
//! event: counts            data: {"pending":2,"failed":3,"expired":0}
//! event: failed_count      data: {"count":3}
//! event: ollama_status     data: {"state":"not_running","detail":"…"}
//! event: note_changed      data: {"id":"…","note":{…the note as it is now, with expired and expires_at…}}
//! event: notes_changed     data: {"count":1200}   (many at once: reload the list)
//! event: note_slow         data: {"note_id":"…","timeouts":3,"request_timeout_ms":120000,"next_deadline_ms":600000}
//! event: model_pull        data: {"model":"llama3.2","state":"running","status":"…","completed":1,"total":2}
//! ```
//!
//! Serialised with serde as `{"event": name, "data": …}`, which is also how a reader
//! that is not a browser (the CLI, a test) can keep one: [`LiveEvent::from_frame`]
//! reads a frame back.

use serde::{Deserialize, Serialize};

use super::notes::NoteCounts;
use super::notes::NoteView;
use super::provider::ProviderHealth;
use super::pull::ModelPullProgress;
use super::worker::SlowNote;

/// One live event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum LiveEvent {
    /// The counts the banners show (pending, failed, expired).
    Counts(NoteCounts),
    /// The number of failed, active notes.
    FailedCount { count: u64 },
    /// The provider's health.
    #[serde(rename = "ollama_status")]
    ProviderStatus(ProviderHealth),
    /// One note's stored state changed: the note as it is now.
    NoteChanged { id: String, note: Box<NoteView> },
    /// Many notes changed at once: reload the list.
    NotesChanged { count: u64 },
    /// A note keeps taking longer than its deadline while the provider is up.
    NoteSlow(SlowNote),
    /// How a model download is going.
    ModelPull(ModelPullProgress),
}

impl LiveEvent {
    /// The event as one server-sent-events frame: `event: NAME\ndata: JSON\n\n`.
    pub fn frame(&self) -> String {
        let (event, data) = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut fields)) => (
                fields.remove("event").unwrap_or_default(),
                fields.remove("data").unwrap_or_default(),
            ),
            // Every variant serialises to an object with both fields; nothing else can
            // come out of the derive.
            _ => (serde_json::Value::Null, serde_json::Value::Null),
        };
        let event = event.as_str().unwrap_or_default();
        format!("event: {event}\ndata: {data}\n\n")
    }

    /// A frame's `event` name and `data` JSON read back as the event they came from.
    pub fn from_frame(event: &str, data: &str) -> serde_json::Result<Self> {
        let data: serde_json::Value = serde_json::from_str(data)?;
        serde_json::from_value(serde_json::json!({ "event": event, "data": data }))
    }
}

#[cfg(test)]
mod tests;
