//! The plan of one provider call: its deadline, and after a refused answer that
//! answer shown to the model, a new seed and, if it was cut off, more room.

use chrono::{DateTime, Utc};

use super::super::backoff::slow_note_deadline;
use super::{Effect, WorkerCore};
use crate::ai::enrichment::output_tokens;
use crate::ai::CallPlan;

impl WorkerCore {
    /// The deadline of a call after `slow_timeouts` timeouts while Ollama was up.
    pub(super) fn deadline_for(&self, slow_timeouts: u32) -> std::time::Duration {
        slow_note_deadline(
            slow_timeouts,
            self.rules.request_timeout,
            self.rules.max_request_timeout,
        )
    }

    /// The provider call for the job in flight, its body kept for the save, planned:
    /// the deadline its slow timeouts give it, and after a refused answer that answer
    /// (shown to the model), a new seed and, if it was cut off, more room.
    pub(super) fn call(&mut self, note_id: String, body: String, now: DateTime<Utc>) -> Effect {
        self.in_flight_body = Some(body.clone());
        self.model_busy_since = Some(now);
        let job = self.queue.get(&note_id).copied();
        let attempt = job.map_or(0, |job| job.attempts);
        let refused = self.refused.get(&note_id).cloned();
        let cut_offs = match &refused {
            Some(refused) if refused.cut_off => attempt.max(1),
            _ => 0,
        };
        let plan = CallPlan {
            deadline: self.deadline_for(job.map_or(0, |job| job.slow_timeouts)),
            refused,
            attempt,
            output_tokens: output_tokens(cut_offs),
        };
        Effect::CallProvider {
            note_id,
            body,
            plan,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::*;

    #[test]
    fn a_retry_after_a_refused_answer_shows_it_to_the_model_and_gets_more_room_if_cut_off() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into()], t(0), t(0));
        let (_, plan) = plan_of(&mut core, effects, t(0));
        assert_eq!(
            (plan.refused.clone(), plan.attempt, plan.output_tokens),
            (None, 0, 512)
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
        assert_eq!(
            (plan.refused, plan.attempt, plan.output_tokens),
            (Some(cut), 1, 1024)
        );

        let wrong = RefusedAnswer::new("\"tags\" is \"a\", not a list", "{\"tags\":\"a\"}", false);
        let effects = core.call_failed("a".into(), ProviderError::Unusable(wrong.clone()), t(32));
        write_answered(&mut core, &effects, t(32));
        let woke = core.woke(t(152));
        let (_, plan) = plan_of(&mut core, woke, t(152));
        assert_eq!(
            (plan.refused, plan.attempt, plan.output_tokens),
            (Some(wrong), 2, 512)
        );

        // An edit queues the note afresh: its next call starts from scratch.
        let effects = untimed(core.call_failed(
            "a".into(),
            ProviderError::Unusable(RefusedAnswer::new("x", "y", false)),
            t(153),
        ));
        assert!(
            matches!(effects[0], Effect::MarkFailed { .. }),
            "the third counts"
        );
        assert!(core.refused.is_empty(), "a note given up on keeps no hint");
    }
}
