//! The model's context: how many tokens a call may fill, learned from the provider,
//! and what a prompt that did not fit does.
//!
//! - The context every call uses is the configured one (`ollama.num_ctx`,
//!   `openai.context_tokens`), never above the model's own once the provider said it:
//!   asked before the first load or call, again after a new model came, and before the
//!   next call when the provider did not answer.
//! - A prompt that did not fit (llama.cpp's `exceed_context_size_error`, vLLM's 400, an
//!   empty answer at the context's end) is never an attempt and waits for nothing: the
//!   note is cut to what fits and asked again at once. The server's numbers, when it
//!   gives them, correct the context and how many tokens an estimate is worth for every
//!   later call; without numbers, the note's own room is halved, at most
//!   [`MAX_OVERFLOW_CUTS`] times, after which it counts as the note's own failure.

use chrono::{DateTime, Utc};

use super::state::WorkerCore;
use super::Effect;
use crate::ai::ProviderError;
use crate::api::worker::ModelUse;

/// A note whose prompt did not fit this many times, with no numbers to correct by, is
/// failing for a reason cutting does not fix.
pub const MAX_OVERFLOW_CUTS: u32 = 4;

/// A little more than the server's count, so the next prompt is not on the edge.
const SCALE_MARGIN: f64 = 1.05;

impl WorkerCore {
    /// What the provider said of the model's context: its own (the smaller of it and
    /// the configured one is used), nothing (the configured one), or no answer (the
    /// configured one for now, asked again before the next call).
    pub(super) fn learn_context(&mut self, read: Result<Option<u32>, ProviderError>) {
        self.model.learn_context(read, self.rules.context_cap);
    }

    /// The answer to [`Effect::ReadModelContext`], asked before a load: the load goes
    /// ahead in the context learned (or the configured one).
    pub fn context_read(
        &mut self,
        read: Result<Option<u32>, ProviderError>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        self.learn_context(read);
        if self.flight.loading_model {
            vec![Effect::LoadModel(self.load_plan())]
        } else {
            self.schedule(now)
        }
    }

    /// The room a note's prompt is cut to fit, in estimated tokens, with an answer of
    /// `output_tokens`: the context, less what the server's counts showed the estimates
    /// to miss, halved for each earlier prompt of this note that did not fit without
    /// numbers, and no more than the reading cap allows ([`super::order`]).
    pub(super) fn room_for(&self, note_id: &str, output_tokens: u32) -> u32 {
        let scaled = f64::from(self.context_tokens()) / self.model.token_scale.max(1.0);
        let halvings = self.queues.overflows.get(note_id).copied().unwrap_or(0);
        let room = (scaled as u32) >> halvings.min(16);
        self.read_cap(output_tokens)
            .map_or(room, |cap| room.min(cap))
    }

    /// A call's prompt did not fit. Learn from the server's numbers, or halve the
    /// note's room; then ask again at once, no attempt counted. A note that keeps not
    /// fitting with no numbers to go by fails as its own problem.
    pub(super) fn context_exceeded(
        &mut self,
        note_id: String,
        error: ProviderError,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let ProviderError::ContextExceeded {
            prompt_tokens,
            context_tokens,
            ..
        } = &error
        else {
            return self.call_failed(note_id, error, now);
        };
        let mut learned = false;
        if let Some(context) = *context_tokens {
            if self.model.context.is_none_or(|known| context < known) {
                let cap = self.rules.context_cap.unwrap_or(u32::MAX);
                self.model.context = Some(context.min(cap));
                learned = true;
            }
        }
        if let Some(counted) = *prompt_tokens {
            let estimated = self.flight.estimate.max(1) as f64;
            let scale = f64::from(counted) / estimated * SCALE_MARGIN;
            if scale > self.model.token_scale {
                self.model.token_scale = scale;
                learned = true;
            }
        }
        if !learned {
            let cuts = self.queues.overflows.entry(note_id.clone()).or_insert(0);
            *cuts += 1;
            if *cuts > MAX_OVERFLOW_CUTS {
                self.queues.overflows.remove(&note_id);
                return self.call_failed(note_id, error, now);
            }
        }
        tracing::info!(%note_id, %error, room = self.room_for(&note_id, 0),
            "the prompt did not fit the model's context; cut to fit and asked again");
        let ms = self.model_ms(now);
        let mut effects = self.spent(ModelUse::Other, ms);
        self.model_used(now);
        if let Some(body) = self.flight.body.take() {
            if !self.flight.requeued {
                self.queues.bodies.insert(note_id, body);
            }
        }
        effects.extend(self.finish(now));
        effects
    }
}
