use super::*;
use crate::api::worker::WorkerState;

#[test]
fn the_status_reads_back_as_it_was_written_with_the_documented_field_names() {
    let status = ServiceStatus {
        version: "0.1.0".into(),
        locale: Locale::Ko,
        expiry_days: 30,
        expiry: ExpiryStatus::default(),
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
        embedding_model: Some("embeddinggemma".into()),
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
        vectors: Some(VectorSpread::Degenerate {
            notes: 24,
            median: 0.5,
            spread: 0.25,
        }),
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
    assert_eq!(json["vectors"]["state"], "degenerate");
    assert_eq!(json["vectors"]["spread"], 0.25);
    let read: ServiceStatus = serde_json::from_value(json).expect("readable");
    assert_eq!(read, status);
}

#[test]
fn the_ai_line_says_what_the_person_gets_with_no_server_an_embedding_model_and_a_chat_model() {
    use crate::api::worker::{EmbeddingsState, BUILTIN_EMBEDDER};
    let status =
        |provider: Option<ProviderHealth>, embedding: Option<&str>, embeddings: EmbeddingsState| {
            let worker = WorkerStatus {
                state: WorkerState::Idle,
                queued: 0,
                slow_notes: Vec::new(),
                model_time: Default::default(),
                embeddings: EmbeddingsState::Off,
            };
            ServiceStatus {
                version: "0".into(),
                locale: Locale::En,
                expiry_days: 30,
                expiry: ExpiryStatus::default(),
                max_attempts: 3,
                limits: Limits::default(),
                counts: NoteCounts::default(),
                provider,
                model_server: ModelServer::Ollama,
                model: "llama3.2".into(),
                embedding_model: embedding.map(str::to_string),
                worker: WorkerStatus {
                    embeddings,
                    ..worker
                },
                vectors: None,
                actors: BTreeMap::new(),
            }
            .what_you_get()
        };
    let down = || {
        Some(ProviderHealth::NotRunning {
            detail: "refused".into(),
        })
    };
    // No model server at all: the built-in embedder's share.
    let none = status(down(), Some(BUILTIN_EMBEDDER), EmbeddingsState::UpToDate);
    assert!(
        none.starts_with("related notes and search by meaning from the built-in"),
        "{none}"
    );
    assert!(none.contains("wait for the chat model"), "{none}");
    let not_yet = status(
        down(),
        Some(BUILTIN_EMBEDDER),
        EmbeddingsState::ModelMissing {
            model: BUILTIN_EMBEDDER.into(),
        },
    );
    assert!(
        not_yet.contains("inkling pull-model --embedder"),
        "{not_yet}"
    );
    // An embedding model only (the chat model not installed).
    let missing_chat = Some(ProviderHealth::ModelMissing {
        model: "llama3.2".into(),
        server: ModelServer::Ollama,
    });
    let embedding_only = status(
        missing_chat,
        Some("embeddinggemma"),
        EmbeddingsState::UpToDate,
    );
    assert!(embedding_only.starts_with("related notes and search by meaning from embeddinggemma"));
    assert!(
        embedding_only.contains("wait for the chat model"),
        "{embedding_only}"
    );
    // A chat model too: everything.
    let all = status(
        Some(ProviderHealth::Ready),
        Some(BUILTIN_EMBEDDER),
        EmbeddingsState::Working,
    );
    assert!(
        all.contains("titles, tags, summaries and answers from the chat model"),
        "{all}"
    );
    assert!(all.contains("built-in embedder"), "{all}");
    // Vectors turned off.
    let off = status(Some(ProviderHealth::Ready), None, EmbeddingsState::Off);
    assert!(
        off.contains("no related notes or search by meaning"),
        "{off}"
    );
}
