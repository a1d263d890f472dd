//! What the worker knows of the provider and its model ([`ModelKnowledge`]): the
//! provider's health as the monitor last said it, whether the model is loaded, its
//! speed on this machine, its context and how far the token estimates are off, and
//! where its time went. What is learned of the model is learned again when the
//! provider comes back (it may have restarted with another model or context).

use chrono::{DateTime, Utc};

use super::rules::after;
use crate::ai::speed::ModelSpeed;
use crate::ai::{ProviderError, ProviderHealth};
use crate::api::worker::{ModelTime, ModelUse};
use crate::configuration::UNSAID_CONTEXT_TOKENS;

/// Whether the model is loaded, as far as the worker knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Warmth {
    /// Not loaded, or not known to be (start-up, after an outage, after keep-alive).
    Cold,
    /// Loaded by a call or a load, and kept until then (`None`: for ever).
    WarmUntil(Option<DateTime<Utc>>),
    /// A load failed: the next note's call loads it (or finds Ollama gone, and parks
    /// the worker with that note's bookkeeping, as any failed call does).
    LoadFailed,
}

/// The provider and its model, as the worker knows them.
#[derive(Debug)]
pub(super) struct ModelKnowledge {
    /// The provider's health as the monitor last announced it (`None`: not checked
    /// yet, and no call is made before it is: the first check takes milliseconds, and
    /// it says whether to load the model first or to wait for one to be pulled).
    pub(super) health: Option<ProviderHealth>,
    pub(super) warmth: Warmth,
    /// The model's speed on this machine, from the answers so far.
    pub(super) speed: Option<ModelSpeed>,
    /// The context every call uses, once the provider has said the model's own (the
    /// smaller of it and the configured one); `None`: ask before the next load or call.
    pub(super) context: Option<u32>,
    /// How many tokens the server counts for each one estimated, once a prompt that
    /// did not fit said (1.0 until then; estimates are meant to run high).
    pub(super) token_scale: f64,
    /// When the provider was last seen ready after it was not: a note due before it
    /// is the backlog's, and waits from then (an outage is no one's turn:
    /// [`super::order`], [`super::fair`]).
    pub(super) ready_since: Option<DateTime<Utc>>,
    /// Where the model's time went, for `/api/status`.
    pub(super) time: ModelTime,
    /// A call was hung up at its deadline and the next call has not yet said whether
    /// the server went on with it.
    hang_up_to_measure: bool,
}

impl Default for ModelKnowledge {
    fn default() -> Self {
        ModelKnowledge {
            health: None,
            warmth: Warmth::Cold,
            speed: None,
            context: None,
            token_scale: 1.0,
            ready_since: None,
            time: ModelTime::default(),
            hang_up_to_measure: false,
        }
    }
}

impl ModelKnowledge {
    pub(super) fn provider_ready(&self) -> bool {
        self.health.as_ref().is_some_and(ProviderHealth::is_ready)
    }

    /// The provider answers but cannot take a call yet: its model is missing or
    /// loading. No call until the monitor says ready.
    pub(super) fn waiting_for_model(&self) -> bool {
        self.health
            .as_ref()
            .is_some_and(ProviderHealth::holds_calls)
    }

    /// The provider is back after it was not: what was learned of the model (its
    /// context, its speed, the estimates' error) is learned again.
    pub(super) fn back(&mut self, now: DateTime<Utc>) {
        self.context = None;
        self.speed = None;
        self.token_scale = 1.0;
        self.ready_since = Some(now);
    }

    /// The model answered (a note, a load): it stays loaded for `keep_alive`.
    pub(super) fn used(&mut self, now: DateTime<Utc>, keep_alive: Option<std::time::Duration>) {
        self.warmth = Warmth::WarmUntil(keep_alive.map(|keep| after(now, keep)));
    }

    /// Whether the model must be loaded before the next call: only with the provider
    /// known up (a call to a down provider is the probe) and the model not known loaded.
    pub(super) fn needs_load(&self, now: DateTime<Utc>) -> bool {
        self.provider_ready()
            && match self.warmth {
                Warmth::Cold => true,
                Warmth::WarmUntil(None) | Warmth::LoadFailed => false,
                Warmth::WarmUntil(Some(until)) => until <= now,
            }
    }

    /// The context the calls run in: the model's own once known, never above the
    /// configured `cap`; until known, the configured one.
    pub(super) fn context_tokens(&self, cap: Option<u32>) -> u32 {
        self.context.or(cap).unwrap_or(UNSAID_CONTEXT_TOKENS)
    }

    /// What the provider said of the model's context: its own (the smaller of it and
    /// the configured `cap` is used), nothing (the configured one), or no answer (the
    /// configured one for now, asked again before the next call).
    pub(super) fn learn_context(
        &mut self,
        read: Result<Option<u32>, ProviderError>,
        cap: Option<u32>,
    ) {
        match read {
            Ok(Some(model)) => {
                if cap.is_some_and(|cap| model < cap) {
                    tracing::info!(
                        model_context = model,
                        configured = cap,
                        "the model's context is smaller than the configured one; using the model's"
                    );
                }
                self.context = Some(cap.map_or(model, |cap| model.min(cap)));
            }
            Ok(None) => self.context = Some(cap.unwrap_or(UNSAID_CONTEXT_TOKENS)),
            Err(error) => {
                tracing::debug!(%error, "the model's context is not known yet");
                self.context = None;
            }
        }
    }

    /// A reply's measured speed joins the estimate.
    pub(super) fn learn_speed(&mut self, measured: ModelSpeed) {
        self.speed = Some(ModelSpeed::updated(self.speed, measured));
    }

    /// A call was hung up at its deadline: counted, and measured by the next call.
    pub(super) fn hung_up(&mut self) {
        self.time.hung_up += 1;
        self.hang_up_to_measure = true;
    }

    /// A call ended with the server's account of its time (`server_ns`, 0: none given)
    /// after `latency_ms` in inkling's hands. The first after a hang-up measures how
    /// long the server went on with the call given up: the time this one waited beyond
    /// its own work (a server that stops at once leaves only the way there and back).
    pub(super) fn call_timed(&mut self, latency_ms: u64, server_ns: u64) {
        if !std::mem::take(&mut self.hang_up_to_measure) || server_ns == 0 {
            return;
        }
        let waited = latency_ms.saturating_sub(server_ns / 1_000_000);
        self.time.after_hang_up_ms = self.time.after_hang_up_ms.saturating_add(waited);
        self.time.after_hang_up_measured += 1;
    }

    /// Counts a stretch of the model's time; a stretch of no time (nothing was in
    /// flight) is not counted (`false`).
    pub(super) fn count(&mut self, usage: ModelUse, ms: u64) -> bool {
        if ms == 0 {
            return false;
        }
        self.time.add(usage, ms);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::{down, t, up};
    use super::*;

    #[test]
    fn a_model_is_loaded_first_only_with_the_provider_up_and_the_model_not_warm() {
        let mut model = ModelKnowledge::default();
        assert!(!model.needs_load(t(0)), "not checked yet");
        model.health = Some(down());
        assert!(
            !model.needs_load(t(0)),
            "a call to a down provider is the probe"
        );
        model.health = Some(up());
        assert!(model.needs_load(t(0)));
        model.used(t(0), Some(std::time::Duration::from_secs(300)));
        assert!(!model.needs_load(t(299)));
        assert!(model.needs_load(t(300)), "keep-alive ran out");
    }

    #[test]
    fn the_context_is_the_smaller_of_the_model_s_and_the_configured_one() {
        let mut model = ModelKnowledge::default();
        assert_eq!(model.context_tokens(Some(8192)), 8192);
        model.learn_context(Ok(Some(4096)), Some(8192));
        assert_eq!(model.context_tokens(Some(8192)), 4096);
        model.learn_context(Ok(Some(32768)), Some(8192));
        assert_eq!(model.context_tokens(Some(8192)), 8192);
        model.back(t(5));
        assert_eq!(model.context, None, "learned again after an outage");
        assert_eq!(model.ready_since, Some(t(5)));
    }

    #[test]
    fn the_call_after_a_hang_up_measures_how_long_the_server_went_on() {
        let mut model = ModelKnowledge::default();
        model.call_timed(5_000, 1_000_000_000);
        assert_eq!(model.time.after_hang_up_measured, 0, "no hang-up before it");
        model.hung_up();
        // 1.2 s in inkling's hands, 1 s of it the server's own work: it was busy
        // 200 ms before it began (still on the call hung up).
        model.call_timed(1_200, 1_000_000_000);
        assert_eq!((model.time.hung_up, model.time.after_hang_up_ms), (1, 200));
        model.call_timed(9_000, 1_000_000_000);
        assert_eq!(
            model.time.after_hang_up_ms, 200,
            "only the first call after"
        );
        model.hung_up();
        model.call_timed(9_000, 0);
        assert_eq!(
            (model.time.hung_up, model.time.after_hang_up_measured),
            (2, 1),
            "a server that gives no durations is not measured"
        );
    }
}
