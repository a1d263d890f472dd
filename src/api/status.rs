//! What `GET /api/status` answers, as one type. The route builds it and the CLI reads
//! it, so a renamed field or state fails to compile instead of printing "idle".
//!
//! `WorkerStatus` is the worker's to produce; its type is in [`super::worker`], beside
//! this one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::notes::NoteCounts;
pub use super::provider::{ModelServer, ProviderHealth};
/// Named here too, so that readers of the status (the CLI) import only `crate::api`.
pub use super::worker::{SlowNote, WorkerState, WorkerStatus};
use crate::words::Locale;

/// One actor's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorCounters {
    pub received: u64,
    pub handled: u64,
    /// Received and not yet handled, the message in hand included.
    pub waiting: u64,
    pub busy_us: u64,
    pub slowest_us: u64,
}

/// The sizes the service holds requests to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Largest note body, in bytes (`http.max_body_bytes`).
    pub body_bytes: usize,
    /// Largest request body, in bytes: room for a note of `body_bytes` with JSON's
    /// escaping (`crate::api::requests::body_limit`).
    pub request_bytes: usize,
    /// Longest tag, in characters.
    pub tag_chars: usize,
    /// Most tags a person may set on one note.
    pub tags_per_note: usize,
}

/// The service as a whole, right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceStatus {
    /// The running binary's version.
    pub version: String,
    /// The language the service writes in.
    pub locale: Locale,
    /// A note older than this many days that was never kept is expired.
    pub expiry_days: u32,
    /// `worker.max_attempts`: a failed note used this many tries.
    #[serde(default)]
    pub max_attempts: u32,
    /// What the service refuses past, so a client can say so before it sends.
    #[serde(default)]
    pub limits: Limits,
    /// Active notes pending, failed and expired.
    pub counts: NoteCounts,
    /// The provider's health; `None` until the first check has answered.
    pub provider: Option<ProviderHealth>,
    /// The kind of model server configured (`ai.provider`), and the model: what a
    /// banner names, and the fix it gives.
    #[serde(default)]
    pub model_server: ModelServer,
    #[serde(default)]
    pub model: String,
    /// What the AI worker is doing.
    pub worker: WorkerStatus,
    /// Per actor: messages received, handled and waiting, time in handlers.
    pub actors: BTreeMap<String, ActorCounters>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::worker::WorkerState;

    #[test]
    fn the_status_reads_back_as_it_was_written_with_the_documented_field_names() {
        let status = ServiceStatus {
            version: "0.1.0".into(),
            locale: Locale::Ko,
            expiry_days: 30,
            max_attempts: 3,
            limits: Limits {
                body_bytes: 65_536,
                request_bytes: 132_096,
                tag_chars: 32,
                tags_per_note: 20,
            },
            counts: NoteCounts {
                pending: 3,
                failed: 2,
                expired: 1,
            },
            provider: Some(ProviderHealth::ModelMissing {
                model: "llama3.2".into(),
                server: ModelServer::Ollama,
            }),
            model_server: ModelServer::Ollama,
            model: "llama3.2".into(),
            worker: WorkerStatus {
                state: WorkerState::Parked {
                    until: "2026-03-01T12:00:30.000Z".into(),
                    step: 1,
                },
                queued: 3,
                slow_notes: vec![crate::api::worker::SlowNote {
                    note_id: "n1".into(),
                    timeouts: 3,
                    request_timeout_ms: 120_000,
                    next_deadline_ms: 600_000,
                }],
                model_time: Default::default(),
                embeddings: Default::default(),
            },
            actors: BTreeMap::from([("repository".into(), ActorCounters::default())]),
        };
        let json = serde_json::to_value(&status).expect("serialisable");
        assert_eq!(json["locale"], "ko");
        assert_eq!(json["limits"]["tags_per_note"], 20);
        assert_eq!(json["counts"]["failed"], 2);
        assert_eq!(json["provider"]["state"], "model_missing");
        assert_eq!(json["worker"]["state"], "parked");
        assert_eq!(json["worker"]["step"], 1);
        assert_eq!(json["actors"]["repository"]["waiting"], 0);
        assert_eq!(json["worker"]["slow_notes"][0]["next_deadline_ms"], 600_000);
        let read: ServiceStatus = serde_json::from_value(json).expect("readable");
        assert_eq!(read, status);
    }
}
