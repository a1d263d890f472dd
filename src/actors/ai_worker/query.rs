//! `EmbedQuery`: a search's words embedded for the person waiting on them, by the
//! worker (which owns every provider call and knows the provider's state), not queued
//! behind the notes' work. The worker's core decides whether a call can be made
//! (`core/query.rs`); this file carries it out, on the query's own deadline, and keeps
//! the recent queries' vectors ([`QueryVectors`]) so that a search asked again (the
//! page asking for more of the same hits, the same search typed again) makes no call.

use std::collections::VecDeque;
use std::sync::Arc;

use actix::prelude::*;

use super::actor::AiWorkerActor;
use super::core::{query_failed, QUERY_DEADLINE};
use crate::actors::handling;
use crate::actors::provider_monitor::SuspectDown;
use crate::ai::embedding::accept_vectors;
use crate::api::search::KeywordOnly;

/// Embed a search's words (the query's words as parsed, joined by spaces).
#[derive(Debug, Message)]
#[rtype(result = "Result<QueryVector, KeywordOnly>")]
pub struct EmbedQuery {
    pub text: String,
}

/// A query's vector, of length 1, and the model it is of.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryVector {
    pub model: String,
    pub vector: Arc<Vec<f32>>,
}

/// How many recent queries' vectors are kept.
pub const QUERY_VECTORS_KEPT: usize = 32;

/// The most recent queries' vectors, newest last: a few kilobytes each.
#[derive(Debug, Default)]
pub struct QueryVectors {
    kept: VecDeque<(String, QueryVector)>,
}

impl QueryVectors {
    /// The vector of `text` by `model`, if kept (and now the most recent).
    pub fn get(&mut self, model: &str, text: &str) -> Option<QueryVector> {
        let at = self
            .kept
            .iter()
            .position(|(t, v)| t == text && v.model == model)?;
        let entry = self.kept.remove(at)?;
        let vector = entry.1.clone();
        self.kept.push_back(entry);
        Some(vector)
    }

    /// Keeps `vector` as `text`'s, the oldest dropped past [`QUERY_VECTORS_KEPT`].
    pub fn keep(&mut self, text: String, vector: QueryVector) {
        self.kept
            .retain(|(t, v)| !(t == &text && v.model == vector.model));
        self.kept.push_back((text, vector));
        while self.kept.len() > QUERY_VECTORS_KEPT {
            self.kept.pop_front();
        }
    }
}

impl Handler<EmbedQuery> for AiWorkerActor {
    type Result = ResponseActFuture<Self, Result<QueryVector, KeywordOnly>>;

    fn handle(&mut self, msg: EmbedQuery, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("EmbedQuery", actor = "ai_worker");
        let call = match self.core.query_call(&msg.text) {
            Ok(call) => call,
            Err(why) => return Box::pin(fut::ready(Err(why))),
        };
        if let Some(kept) = self.query_vectors.get(&call.model, &msg.text) {
            return Box::pin(fut::ready(Ok(kept)));
        }
        let model = call.model;
        // The provider holds its call to the plan's deadline; the timeout here is for a
        // transport that would not (a search must never wait longer).
        let answer = actix_rt::time::timeout(QUERY_DEADLINE, self.embedder.embed(call.plan));
        Box::pin(answer.into_actor(self).map(move |answer, act, _| {
            let vectors = match answer {
                Err(_) => return Err(KeywordOnly::TimedOut),
                Ok(Err(error)) => {
                    let why = query_failed(&error, &model);
                    tracing::info!(%error, "the search's words could not be embedded; found by words only");
                    if why == KeywordOnly::ProviderDown {
                        act.monitor.do_send(SuspectDown);
                    }
                    return Err(why);
                }
                Ok(Ok(vectors)) => vectors,
            };
            let Ok(mut taken) = accept_vectors(1, vectors, None) else {
                return Err(KeywordOnly::Failed);
            };
            let vector = taken
                .pop()
                .and_then(Result::ok)
                .ok_or(KeywordOnly::Failed)?;
            let vector = QueryVector {
                model,
                vector: Arc::new(vector),
            };
            act.query_vectors.keep(msg.text, vector.clone());
            Ok(vector)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(model: &str, value: f32) -> QueryVector {
        QueryVector {
            model: model.into(),
            vector: Arc::new(vec![value]),
        }
    }

    #[test]
    fn a_query_asked_again_is_answered_from_the_kept_vectors_the_oldest_dropped_first() {
        let mut kept = QueryVectors::default();
        kept.keep("soup".into(), vector("m", 1.0));
        assert_eq!(kept.get("m", "soup"), Some(vector("m", 1.0)));
        assert_eq!(kept.get("other model", "soup"), None);
        for n in 0..QUERY_VECTORS_KEPT {
            kept.keep(format!("query {n}"), vector("m", n as f32));
            // "soup" read again now and then stays among the most recent.
            if n % 8 == 0 {
                assert!(kept.get("m", "soup").is_some(), "at {n}");
            }
        }
        assert!(kept.get("m", "query 0").is_none(), "the oldest went");
        assert!(kept.get("m", "soup").is_some());
        assert_eq!(kept.kept.len(), QUERY_VECTORS_KEPT);
    }
}
