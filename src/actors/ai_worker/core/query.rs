//! A search's query embedded for the person who typed it (docs/DESIGN.md, "Hybrid
//! search"): whether the worker can make that call now, and what a failed one means.
//! The call itself is not queued behind the notes' work and is no part of "one call in
//! flight": a person is waiting, it is one short text, and it runs on a short deadline
//! of its own ([`QUERY_DEADLINE`]), so a busy or hung server costs a search at most
//! that long before it is answered by its words alone.
//!
//! The worker answers at once, without a call, when it knows the provider cannot make
//! the vector (no embedding model, the server not ready, the model missing, a server
//! without embeddings) or when notes are still without their vectors (a semantic half
//! over some of the notes would rank the others by their words only, silently).

use std::time::Duration;

use super::embedding::EmbeddingRules;
use super::state::WorkerCore;
use crate::ai::embedding::{embed_failure, embedding_text, EmbedFailure, TextKind};
use crate::ai::{EmbedPlan, ProviderError, ProviderHealth};
use crate::api::search::KeywordOnly;
use crate::api::worker::EmbeddingsState;

/// The longest a query's embedding may take: a person is waiting for the search, and
/// past this they get the words' hits and the quiet line rather than a longer wait.
/// On this project's loaded 2-core machine llama.cpp's server took 1.3–1.7 s (median)
/// for a short query with Gemma 3 270M (docs/PERFORMANCE.md, "Hybrid search"), so
/// there some searches fall back; a lower deadline would make most of them do so.
pub const QUERY_DEADLINE: Duration = Duration::from_secs(2);

/// A query's embedding call, as the worker makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryCall {
    /// The embedding model the vector will be of.
    pub model: String,
    pub plan: EmbedPlan,
}

/// Why the query cannot be embedded now (`None`: it can): the rules, the provider's
/// health as the monitor last said, and where the notes' vectors stand.
pub fn query_blocked(
    rules: Option<&EmbeddingRules>,
    health: Option<&ProviderHealth>,
    vectors: &EmbeddingsState,
) -> Option<KeywordOnly> {
    let Some(rules) = rules else {
        return Some(KeywordOnly::Off);
    };
    if !rules.in_process && !health.is_some_and(ProviderHealth::is_ready) {
        return Some(KeywordOnly::ProviderDown);
    }
    match vectors {
        // Some notes lack their vector (refused): the rest are found by meaning.
        EmbeddingsState::UpToDate | EmbeddingsState::Refused { .. } => None,
        EmbeddingsState::Off => Some(KeywordOnly::Off),
        EmbeddingsState::ModelMissing { .. } => Some(KeywordOnly::ModelMissing {
            model: rules.model.clone(),
        }),
        EmbeddingsState::NotServed { .. } => Some(KeywordOnly::NotServed),
        // Still making the notes' vectors, or waiting to make them again.
        EmbeddingsState::Working | EmbeddingsState::Waiting { .. } => Some(KeywordOnly::Indexing),
    }
}

/// What a failed query embedding means for the search (the notes' own work is not
/// touched: their state changes only by their own calls and the health monitor).
pub fn query_failed(error: &ProviderError, model: &str) -> KeywordOnly {
    if matches!(error, ProviderError::TimedOut(_)) {
        return KeywordOnly::TimedOut;
    }
    match embed_failure(error) {
        EmbedFailure::Outage(_) => KeywordOnly::ProviderDown,
        EmbedFailure::ModelMissing(_) => KeywordOnly::ModelMissing {
            model: model.to_string(),
        },
        EmbedFailure::NotServed(_) => KeywordOnly::NotServed,
        EmbedFailure::TooLong(_) | EmbedFailure::Other(_) => KeywordOnly::Failed,
    }
}

impl WorkerCore {
    /// The call that embeds `text` (a search's words), or why there is none now.
    pub fn query_call(&self, text: &str) -> Result<QueryCall, KeywordOnly> {
        let rules = self.rules.embedding.as_ref();
        if let Some(why) = query_blocked(rules, self.model.health.as_ref(), &self.embedding.state())
        {
            return Err(why);
        }
        let rules = rules.ok_or(KeywordOnly::Off)?;
        Ok(QueryCall {
            model: rules.model.clone(),
            plan: EmbedPlan {
                deadline: QUERY_DEADLINE,
                texts: vec![embedding_text(text, rules.context_tokens).to_string()],
                kind: TextKind::Query,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    fn embedding_rules() -> EmbeddingRules {
        EmbeddingRules {
            model: "embeddinggemma".into(),
            context_tokens: 2048,
            in_process: false,
        }
    }

    #[test]
    fn a_query_is_embedded_only_with_the_model_ready_and_every_note_embedded() {
        let rules = embedding_rules();
        let ready = Some(up());
        let done = EmbeddingsState::UpToDate;
        assert_eq!(query_blocked(Some(&rules), ready.as_ref(), &done), None);
        assert_eq!(
            query_blocked(None, ready.as_ref(), &EmbeddingsState::Off),
            Some(KeywordOnly::Off)
        );
        for health in [
            None,
            Some(down()),
            Some(ProviderHealth::Loading { detail: "".into() }),
        ] {
            assert_eq!(
                query_blocked(Some(&rules), health.as_ref(), &done),
                Some(KeywordOnly::ProviderDown),
                "{health:?}"
            );
        }
        let missing = EmbeddingsState::ModelMissing {
            model: "embeddinggemma".into(),
        };
        assert_eq!(
            query_blocked(Some(&rules), ready.as_ref(), &missing),
            Some(KeywordOnly::ModelMissing {
                model: "embeddinggemma".into()
            })
        );
        let not_served = EmbeddingsState::NotServed { detail: "".into() };
        assert_eq!(
            query_blocked(Some(&rules), ready.as_ref(), &not_served),
            Some(KeywordOnly::NotServed)
        );
        let waiting = EmbeddingsState::Waiting {
            until: "".into(),
            detail: "".into(),
        };
        for indexing in [EmbeddingsState::Working, waiting] {
            assert_eq!(
                query_blocked(Some(&rules), ready.as_ref(), &indexing),
                Some(KeywordOnly::Indexing),
                "{indexing:?}"
            );
        }
    }

    #[test]
    fn a_failed_query_call_says_why_in_the_searchs_terms() {
        assert_eq!(query_failed(&timed_out(), "m"), KeywordOnly::TimedOut);
        assert_eq!(
            query_failed(&failure(FailureReason::Unreachable, "refused"), "m"),
            KeywordOnly::ProviderDown
        );
        assert_eq!(
            query_failed(&failure(FailureReason::ModelMissing, ""), "m"),
            KeywordOnly::ModelMissing { model: "m".into() }
        );
        assert_eq!(
            query_failed(&ProviderError::NoEmbeddings("501".into()), "m"),
            KeywordOnly::NotServed
        );
        assert_eq!(
            query_failed(&failure(FailureReason::Other, "crash"), "m"),
            KeywordOnly::Failed
        );
    }

    #[test]
    fn the_worker_plans_one_short_call_for_the_query_or_says_why_not() {
        let core = WorkerCore::new(rules());
        assert_eq!(core.query_call("soup"), Err(KeywordOnly::Off));
        let mut core = WorkerCore::new(rules().with_embedding(Some(embedding_rules())));
        assert_eq!(core.query_call("soup"), Err(KeywordOnly::ProviderDown));
        core.model.health = Some(up());
        // Not yet known to be caught up: the notes are still being embedded.
        assert_eq!(core.query_call("soup"), Err(KeywordOnly::Indexing));
    }
}
