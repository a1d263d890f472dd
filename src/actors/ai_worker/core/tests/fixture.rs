//! The unit tests' shared fixture: the rules, the failures, the clock and the
//! helpers that walk a call through the core.

use chrono::{DateTime, Utc};

pub use chrono::TimeDelta;

pub use super::super::queue::QueuedJob;
pub use super::*;
pub use crate::ai::{
    CallPlan, FailureReason, ModelServer, ProviderError, ProviderHealth, RefusedAnswer,
};
pub use crate::configuration::WorkerSettings;
pub use crate::domain::{timestamp, Enrichment, Note, WaitReason};

pub fn rules() -> WorkerRules {
    WorkerRules {
        schedule: WorkerSettings {
            unreachable_backoffs_ms: vec![30_000, 60_000, 120_000, 240_000, 480_000, 900_000],
            retry_backoffs_ms: vec![0, 30_000, 120_000],
            max_attempts: 3,
            longest_read_ms: 60_000,
        },
        request_timeout: std::time::Duration::from_secs(120),
        max_request_timeout: std::time::Duration::from_secs(600),
        keep_alive: None,
        load_timeout: std::time::Duration::from_secs(300),
        context_cap: Some(8192),
        longest_read: Some(std::time::Duration::from_secs(60)),
        embedding: None,
    }
}

/// A failed call of `reason`, as the provider would report it (`Timeout`: Ollama's
/// own 503 "busy", which needs no health check; our deadline is `timed_out`).
pub fn failure(reason: FailureReason, text: impl Into<String>) -> ProviderError {
    let text = text.into();
    match reason {
        FailureReason::Unreachable => ProviderError::Unreachable(text),
        FailureReason::Timeout => ProviderError::Status {
            code: 503,
            message: text,
        },
        FailureReason::Schema => ProviderError::Invalid(text),
        FailureReason::Other => ProviderError::Unexpected(text),
        FailureReason::ModelMissing => ProviderError::Status {
            code: 404,
            message: format!("model 'llama3.2' not found ({text})"),
        },
    }
}

pub fn timed_out() -> ProviderError {
    ProviderError::TimedOut("no complete answer within 120000 ms".into())
}

pub fn up() -> ProviderHealth {
    ProviderHealth::Ready
}

pub fn down() -> ProviderHealth {
    ProviderHealth::NotRunning {
        detail: "refused".into(),
    }
}

pub fn model_missing() -> ProviderHealth {
    ProviderHealth::ModelMissing {
        model: "llama3.2".into(),
        server: ModelServer::Ollama,
    }
}

/// `seconds` after the tests' t0.
pub fn t(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("in range")
}

pub fn enrichment() -> Enrichment {
    Enrichment {
        title: "A title".into(),
        tags: vec!["tag".into()],
        summary: "A summary.".into(),
        read_chars: None,
        remind_phrase: None,
    }
}

/// The note as the repository would answer after a write.
pub fn note(id: &str, status: crate::domain::AiStatus) -> Note {
    Note {
        id: id.into(),
        body: format!("body of {id}"),
        title: None,
        summary: None,
        tags: Vec::new(),
        ai_status: status,
        ai_error: None,
        created_at: timestamp(t(0)),
        updated_at: timestamp(t(0)),
        deleted_at: None,
        kept_at: None,
        title_set_by_user: false,
        tags_set_by_user: false,
        ai_read_chars: None,
        edited_at: None,
        remind_at: None,
        remind_state: None,
        kind: crate::domain::NoteKind::Note,
        imported_at: None,
        remind_suggested_at: None,
        remind_suggestion_dismissed: false,
        opened_at: None,
    }
}

pub fn saved(id: &str) -> SaveOutcome {
    SaveOutcome::Saved(Box::new(note(id, crate::domain::AiStatus::Done)))
}

/// A loaded core with no jobs, Ollama up and the model loaded.
pub fn started() -> WorkerCore {
    let mut core = WorkerCore::new(rules());
    assert_eq!(core.loaded([], t(0)), []);
    assert_eq!(
        core.health_changed(up(), t(0)),
        [Effect::RequeueModelMissingFailures, Effect::Wake(None)]
    );
    assert_eq!(core.model_loaded(Ok(()), t(0)), [Effect::Wake(None)]);
    assert_eq!(core.context_read(Ok(None), t(0)), [Effect::Wake(None)]);
    core
}

/// Whether these effects load the model.
pub fn loads(effects: &[Effect]) -> bool {
    effects.iter().any(|e| matches!(e, Effect::LoadModel(_)))
}

/// Walks the steps before a call (reading the model's context, loading it, reading
/// the bodies, preparing the prompt) as the actor and a healthy provider would, up to
/// the call; `None` when these effects start none.
pub fn walk_to_call(
    core: &mut WorkerCore,
    effects: Vec<Effect>,
    now: DateTime<Utc>,
) -> Option<(String, CallPlan)> {
    for effect in effects {
        let next = match effect {
            Effect::CallProvider { note_id, plan } => return Some((note_id, plan)),
            Effect::ReadModelContext => core.context_read(Ok(None), now),
            Effect::LoadModel(_) => core.model_loaded(Ok(()), now),
            Effect::ReadBodies { note_id, ids } => {
                let bodies = ids.iter().map(|id| (id.clone(), format!("body of {id}")));
                core.bodies_read(note_id, Ok(bodies.collect()), now)
            }
            Effect::PrepareCall {
                note_id,
                read_context,
                neighbours,
            } => {
                // Asked, the note has neighbours with no tags: no vector to wait for.
                let read = if neighbours {
                    NeighboursRead::Found(Vec::new())
                } else {
                    NeighboursRead::NotAsked
                };
                core.prepared(
                    note_id,
                    Vec::new(),
                    read,
                    read_context.then_some(Ok(None)),
                    now,
                )
            }
            _ => continue,
        };
        return walk_to_call(core, next, now);
    }
    None
}

/// The note whose call these effects start, with its body read (prefetched or
/// answered by the test's "database").
pub fn call_started(core: &mut WorkerCore, effects: Vec<Effect>, now: DateTime<Utc>) -> String {
    walk_to_call(core, effects, now).expect("a call started").0
}

pub fn wake_of(effects: &[Effect]) -> Option<Option<DateTime<Utc>>> {
    effects.iter().rev().find_map(|e| match e {
        Effect::Wake(at) => Some(*at),
        _ => None,
    })
}

/// Captures `id` at `now` and runs its call up to the provider.
pub fn capture_and_call(core: &mut WorkerCore, id: &str, now: DateTime<Utc>) {
    let effects = core.enqueued(vec![id.into()], now, now);
    assert_eq!(call_started(core, effects, now), id);
}

/// Ends the bookkeeping write of a failure (as the repository's answer would).
pub fn write_answered(
    core: &mut WorkerCore,
    effects: &[Effect],
    now: DateTime<Utc>,
) -> Vec<Effect> {
    let ends_call = effects.iter().any(|e| {
        matches!(
            e,
            Effect::StoreNextRun {
                ends_call: true,
                ..
            } | Effect::StoreAttempt {
                ends_call: true,
                ..
            }
        )
    });
    core.write_done(ends_call, now)
}

/// The effects without the model-time counts (tests of other rules).
pub fn untimed(effects: Vec<Effect>) -> Vec<Effect> {
    effects
        .into_iter()
        .filter(|e| !matches!(e, Effect::CountModelTime { .. }))
        .collect()
}

pub fn the_save(effects: &[Effect]) -> PendingSave {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Save { save, .. } => Some(save.clone()),
            _ => None,
        })
        .expect("a save")
}

/// The plan of the call these effects start.
pub fn plan_of(
    core: &mut WorkerCore,
    effects: Vec<Effect>,
    now: DateTime<Utc>,
) -> (String, CallPlan) {
    walk_to_call(core, effects, now).expect("a call started")
}
