//! A person's question goes first (docs/DESIGN.md, "Ask your notes"): it shares the
//! one call in flight with the background work (the notes' titles, their vectors) and
//! runs next, before any background call; the background resumes after it.
//!
//! A background call already in flight is **waited for, not cancelled**: the person
//! has the matching notes at once anyway (retrieval answers before the model), a
//! cancelled call throws away the model's reading of a note, which would be read
//! again from the start, and a call is bounded by its deadline. A newer question from
//! the same page replaces the older one (waiting or streaming: its stream is dropped,
//! which stops the model). A question is refused at once, with the reason, while the
//! provider is not ready: the person gets the notes alone with one line why. The
//! model's time an answer takes is counted as `asked`; an answer that could not reach
//! the server makes the health monitor look, as a failed note's call does.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::state::WorkerCore;
use super::Effect;
use crate::ai::ask::{ask_prompt, AskEnd, ChatPlan, ASK_OUTPUT_TOKENS, ASK_STALL};
use crate::ai::{classify_reason, FailureReason, ProviderError, ProviderHealth};
use crate::api::ask::NoAnswer;
use crate::api::worker::ModelUse;
use crate::domain::Note;

/// A question, as the worker gets it: the notes retrieved for it, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskJob {
    pub id: u64,
    /// Who asked (a page's session): a newer question of theirs replaces this one.
    /// `None`: no one else's question replaces it (the CLI, a script).
    pub asker: Option<String>,
    pub question: String,
    pub notes: Vec<Note>,
}

/// How an answer's stream ended, as the actor saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum AskOutcome {
    /// The server said the answer was complete.
    Answered,
    /// The stream failed (what came before it stands).
    Failed(ProviderError),
    /// The person went away (the ask's channel closed).
    HungUp,
    /// The answer passed its limits and was cut (what came before stands).
    Cut(Cut),
}

/// Which of an answer's limits it passed (`super::super::ask::AnswerLimits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// This many bytes of text.
    Length(usize),
    /// This long.
    Time(std::time::Duration),
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cut::Length(bytes) => write!(f, "the answer passed {bytes} bytes"),
            Cut::Time(time) => write!(f, "the answer took longer than {} s", time.as_secs()),
        }
    }
}

/// The questions: those waiting for the call in flight, first come first served, and
/// the one being answered.
#[derive(Debug, Default)]
pub(super) struct Asks {
    waiting: VecDeque<AskJob>,
    running: Option<Running>,
}

#[derive(Debug)]
struct Running {
    id: u64,
    asker: Option<String>,
    since: DateTime<Utc>,
}

impl Asks {
    pub(super) fn running(&self) -> bool {
        self.running.is_some()
    }

    /// A question waits for the call.
    pub(super) fn waiting(&self) -> bool {
        !self.waiting.is_empty()
    }
}

impl WorkerCore {
    /// A question came: it replaces the asker's older one, and runs as soon as no call
    /// is in flight (at once when none is).
    pub fn ask_arrived(&mut self, job: AskJob, now: DateTime<Utc>) -> Vec<Effect> {
        let mut effects = Vec::new();
        if let Some(asker) = job.asker.clone() {
            let replaced = AskEnd::NotAnswered {
                reason: NoAnswer::Replaced,
                detail: "a newer question from the same page".into(),
            };
            let (older, waiting): (Vec<AskJob>, Vec<AskJob>) = self
                .asks
                .waiting
                .drain(..)
                .partition(|waiting| waiting.asker.as_deref() == Some(asker.as_str()));
            self.asks.waiting = waiting.into();
            for older in older {
                effects.push(Effect::EndAsk {
                    id: older.id,
                    end: replaced.clone(),
                });
            }
            if let Some(running) = self
                .asks
                .running
                .take_if(|running| running.asker.as_deref() == Some(asker.as_str()))
            {
                let id = running.id;
                effects.extend(self.ask_over(running, now));
                effects.push(Effect::EndAsk { id, end: replaced });
            }
        }
        self.asks.waiting.push_back(job);
        effects.extend(self.schedule(now));
        effects
    }

    /// An answer's stream ended (or its asker hung up, waiting or not). Unknown ids
    /// (ended already: replaced) change nothing.
    pub fn ask_ended(&mut self, id: u64, outcome: AskOutcome, now: DateTime<Utc>) -> Vec<Effect> {
        if let Some(at) = self.asks.waiting.iter().position(|job| job.id == id) {
            self.asks.waiting.remove(at);
            return vec![Effect::EndAsk {
                id,
                end: AskEnd::HungUp,
            }];
        }
        let Some(running) = self.asks.running.take_if(|running| running.id == id) else {
            return Vec::new();
        };
        let mut effects = self.ask_over(running, now);
        let end = match outcome {
            AskOutcome::Answered => {
                self.model_used(now);
                AskEnd::Answered
            }
            AskOutcome::HungUp => AskEnd::HungUp,
            AskOutcome::Cut(cut) => {
                // The model was writing all along: it is warm.
                self.model_used(now);
                AskEnd::NotAnswered {
                    reason: NoAnswer::TooLong,
                    detail: cut.to_string(),
                }
            }
            AskOutcome::Failed(error) => {
                let reason = match classify_reason(&error) {
                    FailureReason::Unreachable => {
                        effects.push(Effect::SuspectDown);
                        NoAnswer::ModelDown
                    }
                    FailureReason::ModelMissing => {
                        effects.push(Effect::SuspectDown);
                        NoAnswer::ModelMissing
                    }
                    _ => NoAnswer::Failed,
                };
                AskEnd::NotAnswered {
                    reason,
                    detail: error.to_string(),
                }
            }
        };
        effects.push(Effect::EndAsk { id, end });
        effects.extend(self.schedule(now));
        effects
    }

    /// The questions' turn, before any background call (`schedule`, with no call in
    /// flight and no answer streaming): the first waiting question starts, or those
    /// waiting are refused while the provider is not ready.
    pub(super) fn asks_turn(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        if let Some(reason) = self.model.health.as_ref().and_then(not_ready) {
            let refused = self.asks.waiting.drain(..).map(|job| Effect::EndAsk {
                id: job.id,
                end: AskEnd::NotAnswered {
                    reason,
                    detail: "the provider is not ready".into(),
                },
            });
            return refused.collect();
        }
        let Some(job) = self.asks.waiting.pop_front() else {
            return Vec::new();
        };
        let context_tokens = self.context_tokens();
        let prompt = ask_prompt(&job.question, &job.notes, context_tokens);
        tracing::debug!(
            notes = prompt.notes_read,
            cut = prompt.cut,
            context_tokens,
            estimated_tokens = prompt.estimated_tokens,
            "answering a question"
        );
        self.asks.running = Some(Running {
            id: job.id,
            asker: job.asker,
            since: now,
        });
        let plan = ChatPlan {
            messages: prompt.messages,
            context_tokens,
            output_tokens: ASK_OUTPUT_TOKENS,
            first_piece: self.rules.request_timeout,
            stall: ASK_STALL,
        };
        vec![Effect::StartAsk {
            id: job.id,
            plan,
            given: prompt.notes_read,
        }]
    }

    /// An answer is over: its model time is counted.
    fn ask_over(&mut self, running: Running, now: DateTime<Utc>) -> Vec<Effect> {
        let ms = (now - running.since).num_milliseconds().max(0) as u64;
        self.spent(ModelUse::Asked, ms)
    }
}

/// Why a question cannot be answered with the provider in this state (`None`: ready).
fn not_ready(health: &ProviderHealth) -> Option<NoAnswer> {
    match health {
        ProviderHealth::Ready => None,
        ProviderHealth::NotRunning { .. } => Some(NoAnswer::ModelDown),
        ProviderHealth::ModelMissing { .. } => Some(NoAnswer::ModelMissing),
        _ => Some(NoAnswer::ModelUnavailable),
    }
}

#[cfg(test)]
mod tests;
