//! The usage events and their strict schema (docs/DESIGN.md, "Usage telemetry").
//!
//! One JSON line per event: `{"ts": RFC 3339, "kind": "...", "payload": {...}}`. Every
//! payload refuses unknown fields, and [`UsageEvent::validate`] checks ranges
//! (`failedCount` ≥ 1, …). An event that fails either is refused and never written.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why an event was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {kind} event: {reason}")]
pub struct InvalidEvent {
    pub kind: String,
    pub reason: String,
}

/// A payload with no fields (`{}`); anything in it is refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFields {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AiDone {
    pub latency_ms: u64,
}

/// The reasons a note can end failed: unreachable/timeout never fail a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailedReason {
    Schema,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AiFailed {
    pub reason: FailedReason,
    pub attempts: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AiRetryManual {
    pub failed_count: u64,
}

/// What a note was when its AI was asked for again by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnrichFrom {
    /// Already enriched: "Redo AI".
    Done,
    /// Given up on: "Retry".
    Failed,
    /// Still waiting: moved to the front of the queue.
    Pending,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AiEnrichRequested {
    pub from: EnrichFrom,
}

/// Which fields an edit set (at least one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NoteEdited {
    pub body: bool,
    pub title: bool,
    pub tags: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TagRenamed {
    /// Into a tag that existed: two tags became one.
    pub merged: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotesImported {
    /// Notes stored (at least one).
    pub count: u64,
}

/// A stretch of the model's time and what it went into (an answer kept, a load, or a
/// waste: a call abandoned, an answer refused or thrown away).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AiModelTime {
    #[serde(rename = "use")]
    pub usage: crate::api::worker::ModelUse,
    pub ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderRecovered {
    pub down_ms: u64,
}

/// Every event kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
pub enum UsageEvent {
    NoteCaptured(NoFields),
    AiDone(AiDone),
    AiFailed(AiFailed),
    AiModelTime(AiModelTime),
    AiRetryManual(AiRetryManual),
    AiEnrichRequested(AiEnrichRequested),
    NoteEdited(NoteEdited),
    TagRenamed(TagRenamed),
    NotesImported(NotesImported),
    NotesExported(NoFields),
    #[serde(rename = "ollama_recheck_manual")]
    ProviderRecheckManual(NoFields),
    #[serde(rename = "ollama_recovered")]
    ProviderRecovered(ProviderRecovered),
    NoteTrashed(NoFields),
    NoteRestored(NoFields),
    UsageLogExported(NoFields),
}

impl UsageEvent {
    /// The `kind` string as written in the log.
    pub fn kind(&self) -> &'static str {
        match self {
            UsageEvent::NoteCaptured(_) => "note_captured",
            UsageEvent::AiDone(_) => "ai_done",
            UsageEvent::AiFailed(_) => "ai_failed",
            UsageEvent::AiModelTime(_) => "ai_model_time",
            UsageEvent::AiRetryManual(_) => "ai_retry_manual",
            UsageEvent::AiEnrichRequested(_) => "ai_enrich_requested",
            UsageEvent::NoteEdited(_) => "note_edited",
            UsageEvent::TagRenamed(_) => "tag_renamed",
            UsageEvent::NotesImported(_) => "notes_imported",
            UsageEvent::NotesExported(_) => "notes_exported",
            UsageEvent::ProviderRecheckManual(_) => "ollama_recheck_manual",
            UsageEvent::ProviderRecovered(_) => "ollama_recovered",
            UsageEvent::NoteTrashed(_) => "note_trashed",
            UsageEvent::NoteRestored(_) => "note_restored",
            UsageEvent::UsageLogExported(_) => "usage_log_exported",
        }
    }

    /// Range checks that types cannot express.
    pub fn validate(&self) -> Result<(), InvalidEvent> {
        let refuse = |reason: &str| {
            Err(InvalidEvent {
                kind: self.kind().to_string(),
                reason: reason.to_string(),
            })
        };
        match self {
            UsageEvent::AiRetryManual(p) if p.failed_count == 0 => {
                refuse("failedCount must be at least 1 (nothing retried is not an event)")
            }
            UsageEvent::AiFailed(p) if p.attempts == 0 => refuse("attempts must be at least 1"),
            UsageEvent::NotesImported(p) if p.count == 0 => {
                refuse("count must be at least 1 (nothing imported is not an event)")
            }
            UsageEvent::NoteEdited(p) if !(p.body || p.title || p.tags) => {
                refuse("an edit changes at least one of body, title, tags")
            }
            _ => Ok(()),
        }
    }

    /// Parses and validates a `kind` and its `payload` (the log reader, and tests).
    pub fn parse(kind: &str, payload: Value) -> Result<Self, InvalidEvent> {
        let event: UsageEvent =
            serde_json::from_value(serde_json::json!({ "kind": kind, "payload": payload }))
                .map_err(|e| InvalidEvent {
                    kind: kind.to_string(),
                    reason: e.to_string(),
                })?;
        event.validate()?;
        Ok(event)
    }

    /// The log line (without its newline) for this event at `ts`.
    pub fn to_line(&self, ts: &str) -> Result<String, InvalidEvent> {
        self.validate()?;
        let mut record = serde_json::to_value(self).map_err(|e| InvalidEvent {
            kind: self.kind().to_string(),
            reason: e.to_string(),
        })?;
        if let Value::Object(map) = &mut record {
            map.insert("ts".into(), Value::String(ts.to_string()));
        }
        Ok(record.to_string())
    }
}

/// One line of the log, strictly: exactly `ts`, `kind`, `payload`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecord {
    ts: String,
    kind: String,
    payload: Value,
}

/// Parses one log line into its timestamp and event.
pub fn parse_line(line: &str) -> Result<(String, UsageEvent), InvalidEvent> {
    let raw: RawRecord = serde_json::from_str(line).map_err(|e| InvalidEvent {
        kind: "?".into(),
        reason: e.to_string(),
    })?;
    let event = UsageEvent::parse(&raw.kind, raw.payload)?;
    Ok((raw.ts, event))
}

#[cfg(test)]
mod tests;
