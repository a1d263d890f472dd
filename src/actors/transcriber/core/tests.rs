use chrono::TimeZone;

use super::*;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 6, 9, 0, 0)
        .single()
        .expect("a time")
}

fn secs(n: i64) -> chrono::Duration {
    chrono::Duration::seconds(n)
}

fn core() -> TranscriberCore {
    TranscriberCore::new(TranscriberRules {
        deadline: Duration::from_secs(300),
        health_interval: Duration::from_secs(1),
        language: Some("ko".into()),
        worker: WorkerSettings {
            unreachable_backoffs_ms: vec![30_000],
            retry_backoffs_ms: vec![0, 30_000, 120_000],
            max_attempts: 3,
            longest_read_ms: 0,
        },
    })
}

fn read(note: &str) -> Effect {
    Effect::ReadRecording {
        note_id: note.into(),
    }
}

fn unreachable() -> ProviderError {
    ProviderError::Unreachable("connection refused".into())
}

fn bad_answer() -> ProviderError {
    ProviderError::Invalid("the server heard no words in the recording".into())
}

#[test]
fn a_voice_note_just_captured_is_read_and_sent_at_once() {
    let mut core = core();
    assert_eq!(core.captured("a".into(), t0()), vec![read("a")]);
    assert_eq!(
        core.recording_read("a", Ok(true), t0()),
        vec![Effect::Transcribe {
            note_id: "a".into(),
            deadline: Duration::from_secs(300),
            language: Some("ko".into()),
        }]
    );
    assert_eq!(
        core.transcribed("a", Ok("내일 우유 사기".into()), t0()),
        vec![Effect::Save {
            note_id: "a".into(),
            text: "내일 우유 사기".into()
        }]
    );
    assert_eq!(
        core.saved("a", Ok(true), t0()),
        vec![Effect::Enrich {
            note_id: "a".into()
        }]
    );
    assert_eq!(core.waiting(), 0);
}

#[test]
fn one_call_at_a_time_the_next_after_it() {
    let mut core = core();
    assert_eq!(core.captured("a".into(), t0()), vec![read("a")]);
    assert_eq!(core.captured("b".into(), t0()), vec![], "a is in flight");
    core.recording_read("a", Ok(true), t0());
    core.transcribed("a", Ok("words".into()), t0());
    assert_eq!(
        core.saved("a", Ok(true), t0()),
        vec![
            Effect::Enrich {
                note_id: "a".into()
            },
            read("b")
        ]
    );
}

#[test]
fn an_outage_spends_no_attempt_and_resumes_the_moment_the_server_is_ready() {
    let mut core = core();
    core.captured("a".into(), t0());
    core.recording_read("a", Ok(true), t0());
    assert_eq!(
        core.transcribed("a", Err(unreachable()), t0()),
        vec![Effect::WakeAt(t0() + secs(1))]
    );
    assert!(core.parked().is_some());
    assert_eq!(core.woke(t0() + secs(1)), vec![Effect::CheckHealth]);
    let loading = ProviderHealth::Loading {
        detail: "loading model".into(),
    };
    assert_eq!(
        core.health_checked(loading, t0() + secs(1)),
        vec![Effect::WakeAt(t0() + secs(2))],
        "still loading: asked again after the interval"
    );
    assert_eq!(core.woke(t0() + secs(2)), vec![Effect::CheckHealth]);
    assert_eq!(
        core.health_checked(ProviderHealth::Ready, t0() + secs(2)),
        vec![read("a")],
        "ready: at once"
    );
    core.recording_read("a", Ok(true), t0() + secs(2));
    core.transcribed("a", Ok("words".into()), t0() + secs(2));
    assert_eq!(core.jobs.attempts("a"), 0, "nothing was counted");
}

#[test]
fn each_outage_of_the_server_parks_never_counts() {
    for error in [
        unreachable(),
        ProviderError::Status {
            code: 503,
            message: "loading model".into(),
        },
        ProviderError::Misconfigured("refused inkling's API key".into()),
        ProviderError::Status {
            code: 404,
            message: "model 'x' not found".into(),
        },
    ] {
        let mut core = core();
        core.captured("a".into(), t0());
        core.recording_read("a", Ok(true), t0());
        let effects = core.transcribed("a", Err(error.clone()), t0());
        assert_eq!(effects, vec![Effect::WakeAt(t0() + secs(1))], "{error:?}");
    }
}

#[test]
fn a_bad_answer_is_retried_then_the_note_is_failed_with_its_reason() {
    let mut core = core();
    core.captured("a".into(), t0());
    core.recording_read("a", Ok(true), t0());
    let first = core.transcribed("a", Err(bad_answer()), t0());
    assert_eq!(
        first[0],
        Effect::CountAttempt {
            note_id: "a".into(),
            next_run_at: t0() + secs(30),
            error: "schema: transcription: the server heard no words in the recording".into(),
        }
    );
    assert_eq!(first[1], Effect::WakeAt(t0() + secs(30)));
    assert_eq!(core.woke(t0() + secs(30)), vec![read("a")]);
    core.recording_read("a", Ok(true), t0() + secs(30));
    let second = core.transcribed("a", Err(bad_answer()), t0() + secs(30));
    assert!(
        matches!(&second[0], Effect::CountAttempt { next_run_at, .. } if *next_run_at == t0() + secs(150))
    );
    core.woke(t0() + secs(150));
    core.recording_read("a", Ok(true), t0() + secs(150));
    let last = core.transcribed("a", Err(bad_answer()), t0() + secs(150));
    assert_eq!(
        last,
        vec![Effect::MarkFailed {
            note_id: "a".into(),
            reason: FailureReason::Schema,
            error: "schema: transcription: the server heard no words in the recording".into(),
        }]
    );
    assert_eq!(core.waiting(), 0);
}

#[test]
fn no_answer_in_time_is_the_recordings_failure_not_an_outage() {
    assert_eq!(
        failure_reason(&ProviderError::TimedOut(
            "no transcript within 300000 ms".into()
        )),
        FailureReason::Other
    );
    assert_eq!(failure_reason(&unreachable()), FailureReason::Unreachable);
}

#[test]
fn a_note_that_no_longer_waits_is_dropped() {
    let mut core = core();
    core.captured("a".into(), t0());
    core.captured("b".into(), t0() + secs(1));
    assert_eq!(
        core.recording_read("a", Ok(false), t0() + secs(1)),
        vec![read("b")]
    );
    core.recording_read("b", Ok(true), t0() + secs(1));
    core.transcribed("b", Ok("words".into()), t0() + secs(1));
    assert_eq!(core.saved("b", Ok(false), t0() + secs(1)), vec![]);
    assert_eq!(core.waiting(), 0);
}

#[test]
fn jobs_loaded_at_start_keep_their_attempts_and_times() {
    let mut core = core();
    let job = |id: &str, attempts, at| Job {
        note_id: id.into(),
        attempts,
        next_run_at: at,
        wait_reason: None,
        slow_timeouts: 0,
    };
    let effects = core.loaded(
        vec![job("late", 2, t0() + secs(60)), job("due", 1, t0())],
        t0(),
    );
    assert_eq!(effects, vec![read("due")]);
    assert_eq!(core.jobs.attempts("late"), 2);
    core.recording_read("due", Ok(true), t0());
    core.transcribed("due", Ok("w".into()), t0());
    assert_eq!(
        core.saved("due", Ok(true), t0()),
        vec![
            Effect::Enrich {
                note_id: "due".into()
            },
            Effect::WakeAt(t0() + secs(60))
        ]
    );
}

#[test]
fn a_store_that_cannot_read_tries_the_note_again_later() {
    let mut core = core();
    core.captured("a".into(), t0());
    assert_eq!(
        core.recording_read("a", Err("disk I/O error".into()), t0()),
        vec![Effect::WakeAt(t0() + secs(5))]
    );
}
