//! The plan of one provider call, whole: its deadline (from the note's slow timeouts
//! and the model's measured speed), its prompt built once (the note cut to fit the
//! context), its sampling and its token cap; and what the provider's reply teaches
//! (the speed) before it is judged.

use chrono::{DateTime, Utc};

use super::super::backoff::slow_note_deadline;
use super::state::WorkerCore;
use super::{Effect, NeighboursRead};
use crate::ai::enrichment::{output_tokens, prompt, sampling, PromptTags};
use crate::ai::speed::{note_deadline, ModelSpeed};
use crate::ai::{CallPlan, CallReply, LoadPlan, ProviderError};
use crate::tags::neighbours::{neighbour_tags, NEIGHBOUR_TAGS_IN_PROMPT};

impl WorkerCore {
    /// The deadline of a call after `slow_timeouts` timeouts while the provider was up.
    pub(super) fn deadline_for(&self, slow_timeouts: u32) -> std::time::Duration {
        slow_note_deadline(
            slow_timeouts,
            self.rules.request_timeout,
            self.rules.max_request_timeout,
        )
    }

    /// The context the calls run in: the model's own once known, never above the
    /// configured one; until known, the configured one.
    pub(super) fn context_tokens(&self) -> u32 {
        self.model.context_tokens(self.rules.context_cap)
    }

    /// How the model is loaded: on its own deadline, in the calls' context.
    pub(super) fn load_plan(&self) -> LoadPlan {
        LoadPlan {
            deadline: self.rules.load_timeout,
            context_tokens: self.context_tokens(),
        }
    }

    /// The job in flight has its body, kept for the save: read what else the prompt
    /// needs (the tags in use; with embeddings, the note's neighbours; the model's
    /// context while it is not known).
    pub(super) fn call(&mut self, note_id: String, body: String, now: DateTime<Utc>) -> Effect {
        self.flight.body = Some(body);
        self.flight.model_busy_since = Some(now);
        self.flight.prompt_vector_tried = None;
        Effect::PrepareCall {
            note_id,
            read_context: self.model.context.is_none(),
            neighbours: self.reads_neighbours(),
        }
    }

    /// The answer to [`Effect::PrepareCall`]: the user's most used tags (empty if they
    /// could not be read: the call goes ahead without them), the note's neighbours if
    /// they were read, and the model's context if it was asked for. A note with no
    /// vector may be embedded first ([`super::neighbours`]). Otherwise plans the call:
    /// the deadline its slow timeouts and the model's speed give it, the prompt with the
    /// neighbours' tags and the note cut to fit, and after a refused answer that answer
    /// (shown to the model), a new seed and, if it was cut off, more room.
    pub fn prepared(
        &mut self,
        note_id: String,
        tags_in_use: Vec<String>,
        neighbours: NeighboursRead,
        context: Option<Result<Option<u32>, ProviderError>>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        if let Some(read) = context {
            self.learn_context(read);
        }
        if let Some(effects) = self.embed_first(&note_id, &neighbours, &tags_in_use, now) {
            return effects;
        }
        let tags = PromptTags {
            in_use: tags_in_use,
            neighbours: match &neighbours {
                NeighboursRead::Found(found) => neighbour_tags(found, NEIGHBOUR_TAGS_IN_PROMPT),
                _ => Vec::new(),
            },
        };
        let job = self.queues.jobs.get(&note_id).copied();
        let attempt = job.map_or(0, |job| job.attempts);
        let refused = self.queues.refused.get(&note_id);
        let cut_offs = match refused {
            Some(refused) if refused.cut_off => attempt.max(1),
            _ => 0,
        };
        let output_tokens = output_tokens(cut_offs);
        let body = self.flight.body.as_deref().unwrap_or_default();
        let prompt = prompt(
            body,
            &tags,
            refused,
            self.room_for(&note_id, output_tokens),
            output_tokens,
        );
        let context_tokens = self.context_tokens();
        let expected = self.model.speed.map(|speed| {
            speed.expected(
                prompt.estimated_tokens.min(context_tokens as usize),
                output_tokens,
            )
        });
        let planned = self.deadline_for(job.map_or(0, |job| job.slow_timeouts));
        let deadline = note_deadline(planned, self.rules.max_request_timeout, expected);
        if deadline > planned {
            tracing::info!(%note_id, deadline_ms = deadline.as_millis() as u64,
                "a long note at this model's speed: a longer deadline from the start");
        }
        if prompt.read_chars == Some(0) {
            // Nothing of the note fits beside the instructions and the answer: a call
            // would be answered about nothing. The note's own failure, said plainly.
            let room = ProviderError::ContextExceeded {
                prompt_tokens: None,
                context_tokens: Some(context_tokens),
                message: format!(
                    "the model's context ({context_tokens} tokens) leaves no room for the \
                     note beside the instructions and the answer: use a model with a larger \
                     context"
                ),
            };
            return self.call_failed(note_id, room, now);
        }
        self.flight.read_chars = prompt.read_chars;
        self.flight.estimate = prompt.estimated_tokens;
        let plan = CallPlan {
            deadline,
            sampling: sampling(refused.is_some(), attempt),
            prompt,
            output_tokens,
            context_tokens,
        };
        vec![Effect::CallProvider { note_id, plan }]
    }

    /// The answer to [`Effect::CallProvider`]: what the call cost feeds the speed
    /// estimate (an unusable answer's too), then the answer or the failure is judged.
    pub fn replied(
        &mut self,
        note_id: String,
        reply: CallReply,
        latency_ms: u64,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let server_ns = reply
            .usage
            .map_or(0, |usage| usage.prompt_ns.saturating_add(usage.output_ns));
        self.model.call_timed(latency_ms, server_ns);
        if let Some(usage) = reply.usage {
            let measured = ModelSpeed::measured(
                usage.prompt_tokens,
                usage.prompt_ns,
                usage.output_tokens,
                usage.output_ns,
            );
            if let Some(measured) = measured {
                self.model.learn_speed(measured);
            }
        }
        let read_chars = self.flight.read_chars.take();
        match reply.result {
            Ok(mut enrichment) => {
                enrichment.read_chars = read_chars;
                self.answered(note_id, enrichment, latency_ms, now)
            }
            Err(error @ ProviderError::ContextExceeded { .. }) => {
                self.context_exceeded(note_id, error, now)
            }
            Err(error) => self.call_failed(note_id, error, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use crate::ai::{CallReply, Role, Sampling, Usage};
    use chrono::{DateTime, Utc};

    /// Queues `id`, due a second after `now`, with `body` as if read ahead.
    fn with_body(core: &mut WorkerCore, id: &str, body: &str, now: DateTime<Utc>) {
        core.enqueued(vec![id.into()], now + chrono::TimeDelta::seconds(1), now);
        core.queues.bodies.insert(id.into(), body.into());
    }

    /// The retry part of a plan: the answer shown to the model, how it samples, its cap.
    fn retry_of(plan: &CallPlan) -> (Option<String>, Sampling, u32) {
        let shown = plan
            .prompt
            .messages
            .iter()
            .find(|m| m.role == Role::Assistant)
            .map(|m| m.content.clone());
        (shown, plan.sampling, plan.output_tokens)
    }

    #[test]
    fn a_retry_after_a_refused_answer_shows_it_to_the_model_and_gets_more_room_if_cut_off() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into()], t(0), t(0));
        let (_, plan) = plan_of(&mut core, effects, t(0));
        assert_eq!(retry_of(&plan), (None, Sampling::Greedy, 512));
        assert_eq!(
            plan.prompt.messages.len(),
            2,
            "the system prompt and the note"
        );
        let cut = RefusedAnswer::new(
            "the answer was cut off at the token limit",
            "{\"title\":",
            true,
        );
        let effects = core.call_failed("a".into(), ProviderError::Unusable(cut.clone()), t(1));
        write_answered(&mut core, &effects, t(1));
        let woke = core.woke(t(31));
        let (_, plan) = plan_of(&mut core, woke, t(31));
        let (shown, sampling, cap) = retry_of(&plan);
        assert_eq!((shown, cap), (Some(cut.answer), 1024));
        assert!(matches!(sampling, Sampling::Reseeded { seed: 1, .. }));
        assert_eq!(
            plan.prompt.messages.len(),
            4,
            "the answer and what was wrong"
        );

        let wrong = RefusedAnswer::new("\"tags\" is \"a\", not a list", "{\"tags\":\"a\"}", false);
        let effects = core.call_failed("a".into(), ProviderError::Unusable(wrong.clone()), t(32));
        write_answered(&mut core, &effects, t(32));
        let woke = core.woke(t(152));
        let (_, plan) = plan_of(&mut core, woke, t(152));
        let (shown, sampling, cap) = retry_of(&plan);
        assert_eq!((shown, cap), (Some(wrong.answer), 512));
        assert!(matches!(sampling, Sampling::Reseeded { seed: 2, .. }));

        let effects = untimed(core.call_failed(
            "a".into(),
            ProviderError::Unusable(RefusedAnswer::new("x", "y", false)),
            t(153),
        ));
        assert!(
            matches!(effects[0], Effect::MarkFailed { .. }),
            "the third counts"
        );
        assert!(
            core.queues.refused.is_empty(),
            "a note given up on keeps no hint"
        );
    }

    #[test]
    fn a_long_note_at_the_measured_speed_gets_a_longer_deadline_from_its_first_call() {
        let mut core = started();
        core.rules.longest_read = None; // read as far as the context goes
        let effects = core.enqueued(vec!["a".into()], t(0), t(0));
        let (_, plan) = plan_of(&mut core, effects, t(0));
        assert_eq!(
            plan.deadline,
            std::time::Duration::from_secs(120),
            "no speed yet"
        );
        // A slow CPU: 20 prompt tokens a second, 5 written.
        let usage = Usage {
            prompt_tokens: 200,
            prompt_ns: 10_000_000_000,
            output_tokens: 50,
            output_ns: 10_000_000_000,
        };
        let reply = CallReply {
            result: Ok(enrichment()),
            usage: Some(usage),
        };
        let effects = core.replied("a".into(), reply, 20_000, t(20));
        assert!(effects.iter().any(|e| matches!(e, Effect::Save { .. })));
        with_body(&mut core, "long", &"word ".repeat(6_000), t(21));
        let effects = core.woke(t(22));
        let (_, plan) = plan_of(&mut core, effects, t(22));
        // ~8,000 prompt tokens at 20/s and 512 at 5/s, twice over: past the longest.
        assert_eq!(plan.deadline, std::time::Duration::from_secs(600));
        assert_eq!(plan.context_tokens, 8192);
        assert!(plan.prompt.read_chars.is_some(), "cut to fit the context");
    }

    #[test]
    fn the_models_own_context_caps_the_calls_and_the_note_is_cut_to_it() {
        let mut core = WorkerCore::new(rules());
        core.loaded([], t(0));
        core.health_changed(up(), t(0));
        with_body(&mut core, "a", &"word ".repeat(4_000), t(0));
        let effects = core.woke(t(1));
        assert!(effects.contains(&Effect::ReadModelContext), "{effects:?}");
        let effects = core.context_read(Ok(Some(2048)), t(0));
        assert!(loads(&effects));
        let effects = core.model_loaded(Ok(()), t(1));
        let (_, plan) = plan_of(&mut core, effects, t(1));
        assert_eq!(plan.context_tokens, 2048);
        let read = plan.prompt.read_chars.expect("cut");
        assert!(plan.prompt.estimated_tokens + 512 <= 2048, "{plan:?}");
        // The answer says how much of the note was read.
        let reply = CallReply {
            result: Ok(enrichment()),
            usage: None,
        };
        let effects = core.replied("a".into(), reply, 5, t(2));
        let saved = effects.iter().find_map(|e| match e {
            Effect::Save { enrichment, .. } => Some(enrichment.read_chars),
            _ => None,
        });
        assert_eq!(saved, Some(Some(read)));
    }

    fn exceeded(prompt: Option<u32>, context: Option<u32>) -> CallReply {
        CallReply::failed(ProviderError::ContextExceeded {
            prompt_tokens: prompt,
            context_tokens: context,
            message: "the request exceeds the available context size".into(),
        })
    }

    #[test]
    fn a_prompt_that_did_not_fit_is_cut_by_the_servers_numbers_and_asked_again_at_once() {
        let mut core = started();
        with_body(&mut core, "a", &"한국어 문장 ".repeat(1_500), t(0));
        let effects = core.woke(t(1));
        let (_, first) = plan_of(&mut core, effects, t(1));
        // The server counted twice what was estimated, in a context of 4096.
        let counted = (first.prompt.estimated_tokens * 2) as u32;
        let effects = core.replied("a".into(), exceeded(Some(counted), Some(4096)), 50, t(1));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, Effect::StoreAttempt { .. })),
            "never an attempt: {effects:?}"
        );
        let (note, again) = plan_of(&mut core, effects, t(1));
        assert_eq!(note, "a", "asked again at once, its body kept");
        assert_eq!(again.context_tokens, 4096);
        assert!(
            again.prompt.estimated_tokens * 2 + 512 <= 4096 * 105 / 100,
            "cut to what fits by the server's count: {} estimated",
            again.prompt.estimated_tokens
        );
        assert_eq!(core.queues.jobs.attempts("a"), 0);
    }

    #[test]
    fn without_numbers_a_prompt_that_did_not_fit_halves_its_room_and_then_fails_as_other() {
        let mut core = started();
        with_body(&mut core, "a", &"word ".repeat(6_000), t(0));
        let effects = core.woke(t(1));
        let (_, mut plan) = plan_of(&mut core, effects, t(1));
        let mut cuts = 0;
        let failed = loop {
            cuts += 1;
            assert!(
                cuts <= super::super::context::MAX_OVERFLOW_CUTS + 1,
                "it ends"
            );
            let before = plan.prompt.estimated_tokens;
            let now = t(1 + i64::from(cuts));
            let mut effects = untimed(core.replied("a".into(), exceeded(None, None), 5, now));
            if effects
                .iter()
                .any(|e| matches!(e, Effect::PrepareCall { .. }))
            {
                effects = untimed(core.prepared(
                    "a".into(),
                    Vec::new(),
                    NeighboursRead::NotAsked,
                    None,
                    now,
                ));
            }
            // Either asked again with less of the note, or (no room left for any of
            // it, or out of cuts) the note's own failure: never a call about nothing.
            match effects.iter().find_map(|e| match e {
                Effect::CallProvider { plan, .. } => Some(plan.clone()),
                _ => None,
            }) {
                Some(again) => {
                    assert!(again.prompt.estimated_tokens < before, "cut {cuts}");
                    assert_ne!(again.prompt.read_chars, Some(0));
                    plan = again;
                }
                None => break effects,
            }
        };
        assert!(
            failed.iter().any(|e| matches!(e, Effect::StoreAttempt { last_error, .. } if last_error.starts_with("other"))),
            "{failed:?}"
        );
        assert!(cuts >= 2, "halved at least once before giving up");
    }
}
