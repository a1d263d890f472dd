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
mod tests;
