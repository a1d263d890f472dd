//! The worker's whole state ([`WorkerCore`]), in named parts, each in a file of its own
//! with the rules that concern it alone: the rules applied ([`super::rules`]), the call
//! in flight ([`super::in_flight`]), what is known of the model
//! ([`super::knowledge`]), the notes' queue ([`super::queues`]), the worker-wide waits
//! ([`super::waits`]), the notes' vectors ([`super::embedding`]) and the person's
//! questions ([`super::ask`]). The rules that weigh several parts are `WorkerCore`'s
//! methods, one rule a file (`mod.rs` lists them); which work goes next is
//! [`super::lanes`].

use super::ask::Asks;
use super::embedding::Embedding;
use super::in_flight::InFlight;
use super::knowledge::ModelKnowledge;
use super::queues::Queues;
use super::rules::WorkerRules;
use super::waits::Waits;

/// The worker's whole state.
#[derive(Debug)]
pub struct WorkerCore {
    pub(super) rules: WorkerRules,
    /// The call in flight (at most one): while it runs, no timer is pending.
    pub(super) flight: InFlight,
    /// The provider's health, the model's warmth, speed and context, its time.
    pub(super) model: ModelKnowledge,
    /// The notes' jobs, their bodies read ahead, what their calls taught.
    pub(super) queues: Queues,
    /// The outage park and the disk-trouble wait.
    pub(super) waits: Waits,
    /// The notes' vectors: made when no title is due ([`super::embedding`]).
    pub(super) embedding: Embedding,
    /// The person's questions: the one being answered, those waiting ([`super::ask`]).
    pub(super) asks: Asks,
}

impl WorkerCore {
    pub fn new(rules: WorkerRules) -> Self {
        WorkerCore {
            embedding: Embedding::new(rules.embedding.clone()),
            rules,
            flight: InFlight::default(),
            model: ModelKnowledge::default(),
            queues: Queues::default(),
            waits: Waits::default(),
            asks: Asks::default(),
        }
    }

    pub(super) fn provider_ready(&self) -> bool {
        self.model.provider_ready()
    }

    /// The provider answers but cannot take a call yet: its model is missing or
    /// loading. No call until the monitor says ready.
    pub(super) fn waiting_for_model(&self) -> bool {
        self.model.waiting_for_model()
    }
}
