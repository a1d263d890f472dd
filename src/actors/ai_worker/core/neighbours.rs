//! The note's neighbours in its prompt: the order of work that gives a new note its
//! vector before its title, and the neighbours' tags its prompt carries
//! (docs/DESIGN.md, "Tags from a note's neighbours").
//!
//! - With an embedding model, a call's preparation reads the note's nearest neighbours
//!   beside the tags in use. A note that has no vector yet (new, or edited) is
//!   embedded first, one small call in the same one-call-at-a-time line, and its
//!   neighbours read again; then its enrichment, right after. The upgrade's backfill
//!   of older notes stays behind every title ([`super::embedding`]).
//! - Without embeddings, or while they cannot be made (the model missing, a server
//!   without them, a failure's pause), nothing waits: the prompt is the vocabulary's
//!   alone. A failed call for the note's vector is the vectors' failure as any other
//!   ([`WorkerCore::embedding_failed`]), never the note's, and its enrichment goes
//!   ahead at once without the neighbours.

use chrono::{DateTime, Utc};

use super::state::WorkerCore;
use super::Effect;
use crate::ai::embedding::embed_failure;
use crate::ai::ProviderError;
use crate::api::worker::ModelUse;
use crate::storage::NoteVector;
use crate::tags::neighbours::Neighbour;

/// What the read of a note's neighbours found.
#[derive(Debug, Clone, PartialEq)]
pub enum NeighboursRead {
    /// Not asked: no embedding model.
    NotAsked,
    /// The note has no vector yet.
    NotEmbedded,
    /// The nearest notes above the similarity floor, best first (maybe none).
    Found(Vec<Neighbour>),
    /// The read failed: the prompt goes without (logged by the actor).
    Unreadable,
}

/// What a call's preparation does with what it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptStep {
    /// Ask for the note's vector first, then read its neighbours again.
    EmbedFirst,
    /// Build the prompt with what was read.
    Call,
}

/// The order of work for one call: a note with no vector is embedded first when a
/// vector can be made now and was not already asked for in this call's preparation
/// (one try: a vector refused or not stored does not hold the title up twice).
pub fn prompt_step(read: &NeighboursRead, embeddings_usable: bool, tried: bool) -> PromptStep {
    match read {
        NeighboursRead::NotEmbedded if embeddings_usable && !tried => PromptStep::EmbedFirst,
        _ => PromptStep::Call,
    }
}

/// The call for a note's own vector, in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PromptVectorCall {
    pub(super) note_id: String,
    pub(super) since: DateTime<Utc>,
    /// The tags in use, read before it: the prompt goes ahead with them if it fails.
    pub(super) tags_in_use: Vec<String>,
}

impl WorkerCore {
    /// Whether a call's preparation reads the note's neighbours: with an embedding
    /// model only.
    pub(super) fn reads_neighbours(&self) -> bool {
        self.embedding.rules().is_some()
    }

    /// Before the prompt is built: `Some(effects)` when the note is embedded first (the
    /// prompt waits for its vector), `None` when the prompt goes ahead now.
    pub(super) fn embed_first(
        &mut self,
        note_id: &str,
        read: &NeighboursRead,
        tags_in_use: &[String],
        now: DateTime<Utc>,
    ) -> Option<Vec<Effect>> {
        let tried = self.flight.prompt_vector_tried.as_deref() == Some(note_id);
        if prompt_step(read, self.embedding.usable(now), tried) != PromptStep::EmbedFirst {
            return None;
        }
        let body = self.flight.body.as_deref()?;
        let plan = self.embedding.plan_for(
            body,
            self.rules.request_timeout,
            self.rules.max_request_timeout,
        );
        self.flight.prompt_vector_tried = Some(note_id.to_string());
        // The model's time until now (reading what the prompt needs) is the note's; the
        // embedding call's is counted on its own when it answers.
        self.flight.prompt_vector = Some(PromptVectorCall {
            note_id: note_id.to_string(),
            since: now,
            tags_in_use: tags_in_use.to_vec(),
        });
        Some(vec![Effect::EmbedForPrompt {
            note_id: note_id.to_string(),
            plan,
        }])
    }

    /// The answer to [`Effect::EmbedForPrompt`]: a vector taken is stored (for the body
    /// it was made from) and the neighbours read again, the repository doing both in
    /// order; anything else goes on to the note's call now, without neighbours.
    pub fn embedded_for_prompt(
        &mut self,
        note_id: String,
        answer: Result<Vec<Vec<f32>>, ProviderError>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let Some(call) = self
            .flight
            .prompt_vector
            .take()
            .filter(|call| call.note_id == note_id)
        else {
            return self.schedule(now);
        };
        let ms = (now - call.since).num_milliseconds().max(0) as u64;
        let Some(rules) = self.embedding.rules().cloned() else {
            return self.schedule(now);
        };
        // The note's call is timed from here: the vector's time is not its.
        self.flight.model_busy_since = Some(now);
        let mut effects = Vec::new();
        match answer {
            Ok(vectors) => {
                let taken = self
                    .embedding
                    .take_one(&note_id, vectors, &self.rules.schedule, now);
                let use_ = if taken.is_some() {
                    ModelUse::Vectors
                } else {
                    ModelUse::Other
                };
                effects.extend(self.spent(use_, ms));
                if let (Some(vector), Some(body)) = (taken, self.flight.body.clone()) {
                    effects.push(Effect::SaveVectors {
                        model: rules.model,
                        vectors: vec![NoteVector {
                            note_id: note_id.clone(),
                            body,
                            vector,
                        }],
                    });
                    effects.push(Effect::PrepareCall {
                        note_id,
                        read_context: self.model.context.is_none(),
                        neighbours: true,
                    });
                    return effects;
                }
            }
            Err(error) => {
                if matches!(error, ProviderError::TimedOut(_)) {
                    self.embedding.timed_out();
                }
                let failure = embed_failure(&error);
                effects.extend(self.embedding_failed(failure, &rules, ms, now));
                self.flight.model_busy_since = Some(now);
            }
        }
        effects.extend(self.prepared(
            note_id,
            call.tags_in_use,
            NeighboursRead::NotAsked,
            None,
            now,
        ));
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;
    use crate::ai::EmbedPlan;
    use crate::api::worker::EmbeddingsState;
    use crate::storage::EmbeddingBacklog;

    fn embedding_core() -> WorkerCore {
        let mut core = WorkerCore::new(WorkerRules {
            embedding: Some(EmbeddingRules {
                model: "embeddinggemma".into(),
                context_tokens: 2048,
                in_process: false,
            }),
            ..rules()
        });
        core.loaded([], t(0));
        core.health_changed(up(), t(0));
        core.model_loaded(Ok(()), t(0));
        core.context_read(Ok(None), t(0));
        // The read of every note at start finds nothing to embed.
        core.embedding_backlog_read(Ok(EmbeddingBacklog::default()), t(0));
        core
    }

    /// Captures `id` and walks to its call's preparation: the note id, whether its
    /// neighbours are asked for. Its body is "body of {id}": the tags in use a prompt
    /// offers are those it supports ("body").
    fn prepare(core: &mut WorkerCore, id: &str, now: DateTime<Utc>) -> bool {
        let effects = core.enqueued(vec![id.into()], now, now);
        let Some(Effect::ReadBodies { note_id, ids }) = effects.into_iter().nth(1) else {
            panic!("the body is read first");
        };
        let bodies = ids.iter().map(|id| (id.clone(), format!("body of {id}")));
        match &core.bodies_read(note_id, Ok(bodies.collect()), now)[..] {
            [Effect::PrepareCall {
                neighbours,
                read_context: false,
                ..
            }] => *neighbours,
            other => panic!("the prompt is prepared: {other:?}"),
        }
    }

    fn embed_plan(effects: &[Effect]) -> EmbedPlan {
        match effects {
            [Effect::EmbedForPrompt { plan, .. }] => plan.clone(),
            other => panic!("the note's vector is asked for first: {other:?}"),
        }
    }

    fn the_call(effects: &[Effect]) -> CallPlan {
        effects
            .iter()
            .find_map(|e| match e {
                Effect::CallProvider { plan, .. } => Some(plan.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("the note's call: {effects:?}"))
    }

    fn system_of(plan: &CallPlan) -> String {
        plan.prompt.messages[0].content.clone()
    }

    fn near(tags: &[&str], similarity: f32) -> Neighbour {
        Neighbour {
            tags: tags.iter().map(|t| t.to_string()).collect(),
            similarity,
        }
    }

    #[test]
    fn a_note_without_a_vector_is_embedded_first_only_when_vectors_can_be_made_and_once() {
        let not_embedded = NeighboursRead::NotEmbedded;
        assert_eq!(
            prompt_step(&not_embedded, true, false),
            PromptStep::EmbedFirst
        );
        assert_eq!(
            prompt_step(&not_embedded, false, false),
            PromptStep::Call,
            "no embeddings now: nothing waits"
        );
        assert_eq!(
            prompt_step(&not_embedded, true, true),
            PromptStep::Call,
            "tried once this call: the title goes ahead"
        );
        for read in [
            NeighboursRead::NotAsked,
            NeighboursRead::Unreadable,
            NeighboursRead::Found(Vec::new()),
        ] {
            assert_eq!(
                prompt_step(&read, true, false),
                PromptStep::Call,
                "{read:?}"
            );
        }
    }

    #[test]
    fn a_new_note_is_embedded_first_then_enriched_right_after_with_its_neighbours_tags() {
        let mut core = embedding_core();
        assert!(
            prepare(&mut core, "n", t(1)),
            "its neighbours are asked for"
        );
        let effects = core.prepared(
            "n".into(),
            vec!["body".into()],
            NeighboursRead::NotEmbedded,
            None,
            t(1),
        );
        assert_eq!(embed_plan(&effects).texts, ["body of n"]);
        let effects = core.embedded_for_prompt("n".into(), Ok(vec![vec![3.0, 4.0]]), t(2));
        assert_eq!(
            effects,
            [
                Effect::CountModelTime {
                    usage: ModelUse::Vectors,
                    ms: 1000
                },
                Effect::SaveVectors {
                    model: "embeddinggemma".into(),
                    vectors: vec![NoteVector {
                        note_id: "n".into(),
                        body: "body of n".into(),
                        vector: vec![0.6, 0.8],
                    }],
                },
                // Sent after the save: the repository answers it with the vector stored.
                Effect::PrepareCall {
                    note_id: "n".into(),
                    read_context: false,
                    neighbours: true,
                },
            ]
        );
        let neighbours = NeighboursRead::Found(vec![
            near(&["kitchen", "budget"], 0.9),
            near(&["kitchen"], 0.7),
        ]);
        let effects = core.prepared("n".into(), vec!["body".into()], neighbours, None, t(2));
        let system = system_of(&the_call(&effects));
        assert!(
            system.contains(r#"Notes like this one are tagged: ["kitchen","budget"]."#),
            "{system}"
        );
        assert!(system.contains(r#"most used first: ["body"]"#), "{system}");
        // The note's own time starts after its vector: 3 s of call, not 4.
        let effects = core.answered("n".into(), enrichment(), 3000, t(5));
        let save = effects.iter().find_map(|e| match e {
            Effect::Save { save, .. } => Some(save.model_ms),
            _ => None,
        });
        assert_eq!(save, Some(3000), "{effects:?}");
    }

    #[test]
    fn a_note_with_its_vector_goes_straight_to_its_call() {
        let mut core = embedding_core();
        prepare(&mut core, "n", t(1));
        let neighbours = NeighboursRead::Found(vec![near(&["garden"], 0.8)]);
        let effects = core.prepared("n".into(), Vec::new(), neighbours, None, t(1));
        assert!(system_of(&the_call(&effects)).contains(r#"tagged: ["garden"]"#));
    }

    #[test]
    fn without_embeddings_the_prompt_is_the_vocabularys_alone_and_nothing_waits() {
        let mut core = started();
        assert!(!prepare(&mut core, "n", t(1)), "no neighbours asked for");
        let effects = core.prepared(
            "n".into(),
            vec!["body".into()],
            NeighboursRead::NotAsked,
            None,
            t(1),
        );
        let system = system_of(&the_call(&effects));
        assert!(!system.contains("Notes like this one"), "{system}");
        assert!(system.contains(r#"["body"]"#), "{system}");
    }

    #[test]
    fn while_the_embedding_model_is_missing_a_new_note_is_not_held_up() {
        let mut core = embedding_core();
        prepare(&mut core, "a", t(1));
        let effects = core.prepared(
            "a".into(),
            Vec::new(),
            NeighboursRead::NotEmbedded,
            None,
            t(1),
        );
        embed_plan(&effects);
        let missing = ProviderError::Status {
            code: 404,
            message: "model \"embeddinggemma\" not found, try pulling it first".into(),
        };
        let effects = core.embedded_for_prompt("a".into(), Err(missing), t(2));
        the_call(&effects);
        assert!(
            matches!(
                core.status(t(2)).embeddings,
                EmbeddingsState::ModelMissing { .. }
            ),
            "the vectors' state, with its fix"
        );
        core.answered("a".into(), enrichment(), 5, t(3));
        // The next note: no vector can be made, so none is asked for.
        prepare(&mut core, "b", t(4));
        let effects = core.prepared(
            "b".into(),
            Vec::new(),
            NeighboursRead::NotEmbedded,
            None,
            t(4),
        );
        the_call(&effects);
    }

    #[test]
    fn a_failed_call_for_the_vector_is_never_the_notes_and_its_title_goes_ahead_at_once() {
        let mut core = embedding_core();
        prepare(&mut core, "n", t(1));
        let effects = core.prepared(
            "n".into(),
            vec!["body".into()],
            NeighboursRead::NotEmbedded,
            None,
            t(1),
        );
        embed_plan(&effects);
        let effects = core.embedded_for_prompt(
            "n".into(),
            Err(ProviderError::Unreachable("refused".into())),
            t(2),
        );
        assert!(effects.contains(&Effect::SuspectDown), "{effects:?}");
        assert!(
            !effects.iter().any(|e| matches!(
                e,
                Effect::StoreAttempt { .. }
                    | Effect::MarkFailed { .. }
                    | Effect::StoreNextRun { .. }
            )),
            "no attempt, no failure: {effects:?}"
        );
        let system = system_of(&the_call(&effects));
        assert!(
            system.contains(r#"["body"]"#),
            "the tags read before: {system}"
        );
        assert!(!system.contains("Notes like this one"), "{system}");
        assert!(matches!(
            core.status(t(2)).embeddings,
            EmbeddingsState::Waiting { .. }
        ));
    }

    #[test]
    fn a_vector_not_stored_does_not_hold_the_title_up_twice() {
        let mut core = embedding_core();
        prepare(&mut core, "n", t(1));
        core.prepared(
            "n".into(),
            Vec::new(),
            NeighboursRead::NotEmbedded,
            None,
            t(1),
        );
        core.embedded_for_prompt("n".into(), Ok(vec![vec![1.0, 0.0]]), t(2));
        // Edited meanwhile: the store kept no vector for the old body.
        let effects = core.prepared(
            "n".into(),
            Vec::new(),
            NeighboursRead::NotEmbedded,
            None,
            t(2),
        );
        the_call(&effects);
    }

    #[test]
    fn a_vector_of_the_wrong_length_is_refused_and_the_title_goes_ahead() {
        let mut core = embedding_core();
        prepare(&mut core, "a", t(1));
        core.prepared(
            "a".into(),
            Vec::new(),
            NeighboursRead::NotEmbedded,
            None,
            t(1),
        );
        let effects = core.embedded_for_prompt("a".into(), Ok(vec![vec![1.0, 0.0]]), t(2));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::SaveVectors { .. })));
        core.prepared(
            "a".into(),
            Vec::new(),
            NeighboursRead::Found(Vec::new()),
            None,
            t(2),
        );
        core.answered("a".into(), enrichment(), 5, t(3));
        // The vectors' turn after the title: "a" has its vector already.
        core.embedding_backlog_read(Ok(EmbeddingBacklog::default()), t(3));
        prepare(&mut core, "b", t(4));
        core.prepared(
            "b".into(),
            Vec::new(),
            NeighboursRead::NotEmbedded,
            None,
            t(4),
        );
        let effects = core.embedded_for_prompt("b".into(), Ok(vec![vec![1.0, 0.0, 0.0]]), t(5));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, Effect::SaveVectors { .. })),
            "three numbers where the model makes two: {effects:?}"
        );
        the_call(&effects);
    }
}
