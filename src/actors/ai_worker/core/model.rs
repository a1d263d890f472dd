//! The model: loading it first on its own deadline so a cold load is never charged to
//! a note, keeping it warm until keep-alive runs out, and counting where its time went
//! (what is known of it is [`super::knowledge`]).

use chrono::{DateTime, Utc};

use super::knowledge::Warmth;
use super::state::WorkerCore;
use super::Effect;
use crate::ai::{classify_reason, ProviderError};
use crate::api::worker::ModelUse;

impl WorkerCore {
    /// The model's time since the call or load in flight started (none in flight: 0).
    pub(super) fn model_ms(&mut self, now: DateTime<Utc>) -> u64 {
        self.flight.model_ms(now)
    }

    /// Counts a stretch of the model's time, for `/api/status` and the usage log; a
    /// stretch of no time (nothing was in flight) is no event.
    pub(super) fn spent(&mut self, usage: ModelUse, ms: u64) -> Vec<Effect> {
        if !self.model.count(usage, ms) {
            return Vec::new();
        }
        vec![Effect::CountModelTime { usage, ms }]
    }

    /// The answer to [`Effect::LoadModel`]. Loaded: on to the notes. Failed (Ollama
    /// gone, the model missing, a load past its deadline, which Ollama goes on with):
    /// the next note's call goes ahead, and what it meets decides as for any call (an
    /// outage parks the worker with that job's bookkeeping; a timeout is judged by the
    /// health check). A load charges no note either way.
    pub fn model_loaded(
        &mut self,
        loaded: Result<(), ProviderError>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        self.flight.loading_model = false;
        let ms = self.model_ms(now);
        let mut effects = self.spent(ModelUse::Loading, ms);
        match loaded {
            Ok(()) => {
                tracing::info!("model loaded");
                self.model_used(now);
            }
            Err(error) => {
                tracing::warn!(reason = classify_reason(&error).as_str(), %error,
                    "loading the model failed; the next note's call goes ahead");
                self.model.warmth = Warmth::LoadFailed;
            }
        }
        effects.extend(self.schedule(now));
        effects
    }

    /// Ollama just answered (a note, a load): the model stays loaded for keep-alive.
    pub(super) fn model_used(&mut self, now: DateTime<Utc>) {
        self.model.used(now, self.rules.keep_alive);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;
    use crate::ai::ProviderHealth;

    #[test]
    fn a_missing_model_parks_with_no_attempt_and_no_call_until_it_is_there() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.call_failed(
            "a".into(),
            failure(FailureReason::ModelMissing, "404"),
            t(0),
        );
        assert!(effects.contains(&Effect::SuspectDown));
        write_answered(&mut core, &effects, t(0));
        assert_eq!(core.queues.jobs.attempts("a"), 0);
        // The monitor confirms: no call at all while the model is missing, whatever
        // the park's timer says, and captures wait too.
        assert!(core.health_changed(model_missing(), t(1)).is_empty());
        assert_eq!(core.woke(t(30)), [Effect::Wake(None)]);
        assert_eq!(
            core.enqueued(vec!["b".into()], t(40), t(40)),
            [Effect::Wake(None)]
        );
        assert_eq!(core.status(t(40)).state, WorkerState::WaitingForModel);
        // Pulled: notes failed for it by an older release are requeued, the new
        // model's context is read and it is loaded in it, and the work resumes at once.
        let effects = core.health_changed(up(), t(300));
        assert_eq!(effects[0], Effect::RequeueModelMissingFailures);
        assert!(effects.contains(&Effect::ReadModelContext), "{effects:?}");
        let effects = core.context_read(Ok(Some(4096)), t(301));
        assert_eq!(
            effects,
            [Effect::LoadModel(crate::ai::LoadPlan {
                deadline: std::time::Duration::from_secs(300),
                context_tokens: 4096
            })],
            "the model's own context, smaller than the configured one"
        );
        let effects = core.model_loaded(Ok(()), t(310));
        assert_eq!(call_started(&mut core, effects, t(310)), "a");
    }

    #[test]
    fn another_users_listener_on_the_port_holds_every_call_until_the_real_server_is_back() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        // The guard refused the call as an outage: no attempt, the monitor asked (a
        // look at once, `look.rs`, which finds the listener held, below).
        let refused = ProviderError::Misconfigured("Another user (uid 1001) …".into());
        let effects = core.call_failed("a".into(), refused, t(0));
        assert!(effects.contains(&Effect::LookNow));
        write_answered(&mut core, &effects, t(0));
        assert_eq!(core.queues.jobs.attempts("a"), 0);
        let held = ProviderHealth::UntrustedListener {
            port: 11434,
            uid: 1001,
            user: None,
            server: crate::ai::ModelServer::Ollama,
        };
        assert!(core.health_changed(held, t(1)).is_empty());
        assert_eq!(
            core.woke(t(30)),
            [Effect::Wake(None)],
            "no call, whatever the park says"
        );
        assert_eq!(
            core.enqueued(vec!["b".into()], t(40), t(40)),
            [Effect::Wake(None)]
        );
        assert_eq!(core.status(t(40)).state, WorkerState::Withheld);
        // The real server back: the work resumes at once.
        let effects = core.health_changed(up(), t(300));
        assert!(effects.contains(&Effect::ReadModelContext), "{effects:?}");
    }

    #[test]
    fn a_cold_model_is_loaded_first_and_again_after_keep_alive() {
        let mut rules = rules();
        rules.keep_alive = Some(std::time::Duration::from_secs(1800));
        let mut core = WorkerCore::new(rules);
        core.loaded([("a".to_string(), QueuedJob::fresh(t(0)))], t(0));
        let effects = core.health_changed(up(), t(0));
        assert!(
            effects.contains(&Effect::ReadModelContext),
            "start-up with work: the model's context first"
        );
        assert!(loads(&core.context_read(Ok(None), t(0))), "then load it");
        assert_eq!(core.status(t(0)).state, WorkerState::LoadingModel);
        assert!(
            core.enqueued(vec!["b".into()], t(1), t(1)).is_empty(),
            "no call while loading"
        );
        let effects = core.model_loaded(Ok(()), t(20));
        let id = call_started(&mut core, effects, t(20));
        let effects = core.answered(id, enrichment(), 5, t(25));
        let id = call_started(&mut core, effects, t(25));
        let effects = core.answered(id, enrichment(), 5, t(30));
        assert_eq!(wake_of(&effects), Some(None));
        // Within keep-alive: straight to the call. After it: load first.
        let effects = core.enqueued(vec!["c".into()], t(600), t(600));
        let id = call_started(&mut core, effects, t(600));
        let effects = core.answered(id, enrichment(), 5, t(601));
        assert!(!loads(&effects));
        let effects = core.enqueued(vec!["d".into()], t(601 + 1800), t(601 + 1800));
        assert!(loads(&effects), "{effects:?}");
    }

    #[test]
    fn after_a_failed_load_the_notes_call_goes_ahead_and_decides_as_any_call() {
        let mut core = WorkerCore::new(rules());
        core.loaded([("a".to_string(), QueuedJob::fresh(t(0)))], t(0));
        core.health_changed(up(), t(0));
        assert!(loads(&core.context_read(Ok(None), t(0))));
        let refused = ProviderError::Unreachable("refused".into());
        let effects = core.model_loaded(Err(refused), t(1));
        assert_eq!(
            call_started(&mut core, effects, t(1)),
            "a",
            "the call is the probe"
        );
        let effects = core.call_failed("a".into(), failure(FailureReason::Unreachable, "x"), t(1));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::StoreNextRun { at, .. } if *at == t(31))));
        write_answered(&mut core, &effects, t(1));
        let effects = core.resume_requested("recheck", t(5));
        assert!(loads(&effects), "back: load first again: {effects:?}");
        let slow = ProviderError::TimedOut("slow disk".into());
        let effects = core.model_loaded(Err(slow), t(300));
        assert_eq!(call_started(&mut core, effects, t(300)), "a");
    }

    #[test]
    fn the_models_time_is_counted_as_kept_loading_or_wasted_per_reason() {
        let mut core = WorkerCore::new(rules());
        core.loaded([("a".to_string(), QueuedJob::fresh(t(0)))], t(0));
        core.health_changed(up(), t(0));
        let effects = core.model_loaded(Ok(()), t(15));
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Loading,
            ms: 15_000
        }));
        let id = call_started(&mut core, effects, t(15));
        let effects = core.call_failed(id, failure(FailureReason::Schema, "bad"), t(25));
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Schema,
            ms: 10_000
        }));
        write_answered(&mut core, &effects, t(25));
        let effects = core.woke(t(55));
        let id = call_started(&mut core, effects, t(55));
        let effects = core.answered(id, enrichment(), 5, t(60));
        let effects = core.saved(the_save(&effects), saved("a"), t(61));
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Kept,
            ms: 5_000
        }));
        // An answer for an edited body is time wasted, not kept.
        let effects = core.enqueued(vec!["b".into()], t(70), t(70));
        let id = call_started(&mut core, effects, t(70));
        let effects = core.answered(id, enrichment(), 5, t(72));
        core.saved(the_save(&effects), SaveOutcome::Stale, t(72));
        let time = core.status(t(72)).model_time;
        assert_eq!((time.kept_ms, time.loading_ms), (5_000, 15_000));
        assert_eq!(
            time.wasted_ms,
            std::collections::BTreeMap::from([
                (ModelUse::Schema, 10_000),
                (ModelUse::Edited, 2_000)
            ])
        );
    }
}
