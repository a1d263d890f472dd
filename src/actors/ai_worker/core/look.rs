//! A call that found no server, while the server may already be back: one look at
//! once. A model server restarting (llama-server reloaded with another model, Ollama
//! updated) refuses the call that lands in its restart; sitting out the outage park's
//! first wait (30 s) for that would keep the note the person just wrote waiting for
//! nothing. So the first unreachable failure after an answer asks the health monitor
//! now ([`Effect::LookNow`]), and a ready answer resumes the worker at once.
//!
//! Only the first in a row: a server whose health check answers but which drops every
//! call would otherwise be called in a loop. A second unreachable failure before any
//! answer parks for the schedule's next step (60 s, 120 s, …) like any outage, with
//! the monitor told as before ([`Effect::SuspectDown`]); a success starts it again.

use chrono::{DateTime, Utc};

use super::state::WorkerCore;
use super::Effect;
use crate::ai::{FailureReason, ProviderHealth};

/// Whether a failure of `reason`, with `outage_step` outage failures in a row before
/// it, gets a look at once instead of the park's plain wait.
pub(super) fn looks_at_once(reason: FailureReason, outage_step: usize) -> bool {
    reason == FailureReason::Unreachable && outage_step == 0
}

impl WorkerCore {
    /// The answer to [`Effect::LookNow`]. Ready: the park ends and the work resumes
    /// now. Not ready: nothing more here; the monitor keeps looking and announces the
    /// return, which resumes the worker as any return does.
    pub fn looked(&mut self, health: ProviderHealth, now: DateTime<Utc>) -> Vec<Effect> {
        // Only the look asked for, and only while its park stands: an answer that
        // comes after another failure parked the worker again must not end that park.
        let asked = std::mem::take(&mut self.waits.looking);
        if !asked || !health.is_ready() || self.waits.parked.is_none() {
            return Vec::new();
        }
        self.resume(
            "a look right after a refused call finds the provider ready",
            now,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    fn refused(core: &mut WorkerCore, now: DateTime<Utc>) -> Vec<Effect> {
        let mut effects = core.call_failed(
            "a".into(),
            failure(FailureReason::Unreachable, "connection refused"),
            now,
        );
        effects.extend(core.write_done(true, now));
        effects
    }

    #[test]
    fn a_refused_call_looks_at_once_and_a_ready_server_is_called_again_at_once() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = refused(&mut core, t(1));
        assert!(effects.contains(&Effect::LookNow), "{effects:?}");
        assert!(!effects.contains(&Effect::SuspectDown), "one look, not two");

        let effects = core.looked(up(), t(1));
        assert_eq!(call_started(&mut core, effects, t(1)), "a", "no 30 s wait");
        assert_eq!(core.queues.jobs.attempts("a"), 0, "never counted");
    }

    #[test]
    fn a_server_that_drops_every_call_gets_one_quick_look_then_the_parks_60_s_120_s() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = refused(&mut core, t(0));
        assert!(effects.contains(&Effect::LookNow));
        let effects = core.looked(up(), t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "a");

        // Refused again before any answer: no look, the schedule's next wait.
        let effects = refused(&mut core, t(1));
        assert!(!effects.contains(&Effect::LookNow), "{effects:?}");
        assert!(effects.contains(&Effect::SuspectDown));
        assert_eq!(wake_of(&effects), Some(Some(t(61))));
        // A ready answer to no look asked (a late one) does not call it sooner.
        assert_eq!(core.looked(up(), t(2)), []);
        assert_eq!(wake_of(&core.woke(t(2))), Some(Some(t(61))));

        let effects = core.woke(t(61));
        assert_eq!(call_started(&mut core, effects, t(61)), "a");
        let effects = refused(&mut core, t(61));
        assert_eq!(wake_of(&effects), Some(Some(t(181))), "then 120 s");
    }

    #[test]
    fn a_look_that_finds_no_server_leaves_the_park_and_the_monitor_to_it() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = refused(&mut core, t(0));
        assert!(effects.contains(&Effect::LookNow));
        assert_eq!(core.looked(down(), t(0)), []);
        assert_eq!(wake_of(&core.woke(t(5))), Some(Some(t(30))));
    }

    #[test]
    fn only_unreachable_looks_and_only_the_first_in_a_row() {
        assert!(looks_at_once(FailureReason::Unreachable, 0));
        assert!(!looks_at_once(FailureReason::Unreachable, 1));
        for reason in [
            FailureReason::Timeout,
            FailureReason::ModelMissing,
            FailureReason::Schema,
            FailureReason::Other,
        ] {
            assert!(!looks_at_once(reason, 0), "{reason:?}");
        }
    }
}
