use super::super::test_fixture::*;
use super::*;

#[test]
fn unreachable_parks_the_worker_30_60_120_240_480_900_capped_never_counting_an_attempt() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    let mut now = t(0);
    let mut waits = Vec::new();
    for _ in 0..8 {
        let effects = core.call_failed(
            "a".into(),
            failure(FailureReason::Unreachable, "refused"),
            now,
        );
        // The first in a row looks at once (`look.rs`; here nothing answers it).
        let told = if waits.is_empty() {
            Effect::LookNow
        } else {
            Effect::SuspectDown
        };
        assert!(effects.contains(&told), "{effects:?}");
        let Some(Effect::StoreNextRun {
            at,
            last_error,
            ends_call,
            ..
        }) = effects
            .iter()
            .find(|e| matches!(e, Effect::StoreNextRun { .. }))
            .cloned()
        else {
            panic!("the park is stored: {effects:?}")
        };
        assert!(ends_call);
        assert_eq!(last_error, "unreachable: refused");
        waits.push((at - now).num_seconds());
        let effects = core.write_done(true, now);
        assert_eq!(effects, [Effect::Wake(Some(at))], "one probe per wake-up");
        assert_eq!(core.queues.jobs.attempts("a"), 0, "never counted");
        now = at;
        let effects = core.woke(now);
        assert_eq!(call_started(&mut core, effects, now), "a");
    }
    assert_eq!(waits, [30, 60, 120, 240, 480, 900, 900, 900]);
}

#[test]
fn a_timeout_parks_the_worker_like_unreachable() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    let effects = core.call_failed(
        "a".into(),
        failure(FailureReason::Timeout, "no answer"),
        t(120),
    );
    assert!(effects.contains(&Effect::SuspectDown));
    assert!(effects.iter().any(|e| matches!(e,
            Effect::StoreNextRun { at, .. } if *at == t(150))));
    core.write_done(true, t(120));
    assert_eq!(
        core.status(t(120)).state,
        WorkerState::Parked {
            until: timestamp(t(150)),
            step: 0
        }
    );
}

#[test]
fn while_parked_the_worker_tries_nothing_else() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    let effects = core.call_failed(
        "a".into(),
        failure(FailureReason::Unreachable, "refused"),
        t(0),
    );
    write_answered(&mut core, &effects, t(0));
    let effects = core.enqueued(vec!["b".into()], t(1), t(1));
    assert_eq!(
        effects,
        [Effect::Wake(Some(t(30)))],
        "b waits for the probe"
    );
}

#[test]
fn a_success_resets_the_outage_step() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    let mut now = t(0);
    for _ in 0..3 {
        let effects = core.call_failed("a".into(), failure(FailureReason::Unreachable, "x"), now);
        write_answered(&mut core, &effects, now);
        now += TimeDelta::seconds(900);
        let effects = core.woke(now);
        call_started(&mut core, effects, now);
    }
    assert_eq!(core.waits.outage_step, 3);
    let effects = core.answered("a".into(), enrichment(), 5, now);
    assert_eq!(core.waits.outage_step, 0);
    assert_eq!(wake_of(&effects), Some(None));
    capture_and_call(&mut core, "b", now);
    let effects = core.call_failed("b".into(), failure(FailureReason::Unreachable, "x"), now);
    assert!(effects.iter().any(|e| matches!(e,
            Effect::StoreNextRun { at, .. } if *at == now + TimeDelta::seconds(30))));
}

#[test]
fn a_ready_provider_resumes_at_once_and_jobs_waiting_out_their_own_delay_keep_their_time() {
    let mut core = started();
    let effects = core.enqueued(vec!["parked".into(), "retrying".into()], t(0), t(0));
    assert_eq!(call_started(&mut core, effects, t(0)), "parked");
    let effects = core.call_failed(
        "parked".into(),
        failure(FailureReason::Unreachable, "x"),
        t(0),
    );
    write_answered(&mut core, &effects, t(0));
    // The park (30 s) holds "retrying" back too; give it a delay of its own.
    core.queues
        .jobs
        .reschedule("retrying", t(100), Some(WaitReason::Retry));
    core.waits.outage_step = 4;

    let effects = core.health_changed(up(), t(10));
    assert_eq!(
        call_started(&mut core, effects, t(10)),
        "parked",
        "at once, not at 30 s"
    );
    assert_eq!(
        core.queues.jobs.get("retrying").map(|j| j.next_run_at),
        Some(t(100))
    );
    assert_eq!(core.waits.outage_step, 4, "kept until a real success");
    assert!(core.health_changed(down(), t(11)).is_empty());
}

#[test]
fn a_manual_resume_ends_the_park_too() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    let effects = core.call_failed("a".into(), failure(FailureReason::Unreachable, "x"), t(0));
    write_answered(&mut core, &effects, t(0));
    let effects = core.resume_requested("manual retry", t(5));
    assert_eq!(call_started(&mut core, effects, t(5)), "a");
}

#[test]
fn schema_and_other_wait_30_then_120_s_then_mark_the_note_failed_at_the_third() {
    for reason in [FailureReason::Schema, FailureReason::Other] {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let mut now = t(0);
        let mut waits = Vec::new();
        for attempt in 1..=2 {
            let effects = core.call_failed("a".into(), failure(reason, "bad"), now);
            let Some(Effect::StoreAttempt { next_run_at, .. }) = effects.first().cloned() else {
                panic!("an attempt is counted: {effects:?}")
            };
            assert!(
                !effects.contains(&Effect::SuspectDown),
                "the provider is fine"
            );
            assert_eq!(core.queues.jobs.attempts("a"), attempt);
            waits.push((next_run_at - now).num_seconds());
            assert_eq!(
                core.write_done(true, now),
                [Effect::Wake(Some(next_run_at))]
            );
            now = next_run_at;
            let effects = core.woke(now);
            call_started(&mut core, effects, now);
        }
        assert_eq!(waits, [30, 120]);
        let effects = core.call_failed("a".into(), failure(reason, "bad"), now);
        let failure = Failure {
            note_id: "a".into(),
            reason,
            attempts: 3,
            error: format!("{}: bad", reason.as_str()),
        };
        assert_eq!(
            effects,
            [Effect::MarkFailed {
                failure: failure.clone(),
                ends_call: true
            }]
        );
        assert!(
            !core.queues.jobs.contains("a"),
            "out of the queue before it is marked"
        );
        let failed = note("a", crate::domain::AiStatus::Failed);
        let effects = core.marked_failed(
            failure.clone(),
            MarkOutcome::Marked(Box::new(failed.clone())),
            true,
            now,
        );
        assert_eq!(effects[0], Effect::AnnounceFailed { failure });
        assert_eq!(core.status(now).state, WorkerState::Idle);
    }
}

#[test]
fn a_schema_wait_delays_only_its_own_job() {
    let mut core = started();
    let effects = core.enqueued(vec!["bad".into(), "good".into()], t(0), t(0));
    assert_eq!(call_started(&mut core, effects, t(0)), "bad");
    let effects = core.call_failed("bad".into(), failure(FailureReason::Schema, "x"), t(0));
    let effects = write_answered(&mut core, &effects, t(0));
    assert_eq!(call_started(&mut core, effects, t(0)), "good", "at once");
}

#[test]
fn a_note_that_cannot_be_marked_failed_stays_queued_and_is_tried_again_in_30_s() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    let failure = Failure {
        note_id: "a".into(),
        reason: FailureReason::Schema,
        attempts: 3,
        error: "schema: x".into(),
    };
    core.queues.jobs.remove("a");
    let effects = core.marked_failed(failure, MarkOutcome::Refused("busy".into()), true, t(0));
    assert_eq!(effects, [Effect::Wake(Some(t(30)))]);
    let job = core.queues.jobs.get("a").copied().expect("queued again");
    assert_eq!(
        (job.attempts, job.wait_reason),
        (2, Some(WaitReason::Retry))
    );
}

#[test]
fn a_retry_all_between_giving_up_and_the_mark_keeps_its_fresh_entry() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    core.queues.jobs.set_attempts("a", 2);
    let effects = core.call_failed("a".into(), failure(FailureReason::Schema, "x"), t(0));
    let Some(Effect::MarkFailed { failure, .. }) = effects.first().cloned() else {
        panic!("{effects:?}")
    };
    core.enqueued(vec!["a".into()], t(1), t(1)); // retry-all, while in flight
    core.marked_failed(failure, MarkOutcome::NoteGone, true, t(1));
    assert_eq!(core.queues.jobs.get("a"), Some(&QueuedJob::fresh(t(1))));
}

#[test]
fn decide_counts_only_schema_and_other() {
    assert_eq!(
        decide(FailureReason::Timeout, 2, 2, &rules().schedule),
        FailureDecision::ParkWorker {
            wait: std::time::Duration::from_secs(120),
            next_step: 3
        }
    );
    assert_eq!(
        decide(FailureReason::Other, 0, 1, &rules().schedule),
        FailureDecision::RetryJobLater {
            wait: std::time::Duration::from_secs(120),
            attempts: 2
        }
    );
    assert_eq!(
        decide(FailureReason::Schema, 0, 2, &rules().schedule),
        FailureDecision::GiveUp { attempts: 3 }
    );
}
