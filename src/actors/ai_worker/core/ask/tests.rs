use super::super::test_fixture::*;
use super::*;

fn job(id: u64, asker: Option<&str>) -> AskJob {
    let note: Note = serde_json::from_value(serde_json::json!({
        "id": "n1", "body": "Water the tomatoes on Sunday.", "title": "Garden",
        "summary": null, "tags": [], "ai_status": "done", "ai_error": null,
        "created_at": "2026-03-01T12:00:00Z", "updated_at": "2026-03-01T12:00:00Z",
        "deleted_at": null, "kept_at": null,
    }))
    .unwrap();
    AskJob {
        id,
        asker: asker.map(str::to_string),
        question: "When do I water?".into(),
        notes: vec![note],
    }
}

fn asks_started(effects: &[Effect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::StartAsk { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

fn ended(effects: &[Effect]) -> Vec<(u64, AskEnd)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::EndAsk { id, end } => Some((*id, end.clone())),
            _ => None,
        })
        .collect()
}

fn not_answered(reason: NoAnswer) -> impl Fn(&AskEnd) -> bool {
    move |end| matches!(end, AskEnd::NotAnswered { reason: r, .. } if *r == reason)
}

#[test]
fn with_nothing_in_flight_a_question_starts_at_once_with_the_notes_numbered_in_its_prompt() {
    let mut core = started();
    let effects = core.ask_arrived(job(1, None), t(0));
    let [Effect::StartAsk {
        id: 1,
        plan,
        given: 1,
    }] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    assert!(plan.messages[1]
        .content
        .contains("<note n=\"1\">\nGarden\nWater the tomatoes"));
    assert_eq!(plan.context_tokens, 8192);
    assert_eq!(plan.output_tokens, ASK_OUTPUT_TOKENS);
    // While it runs no background call starts, whatever comes.
    assert!(core.enqueued(vec!["a".into()], t(1), t(1)).is_empty());
    assert!(core.woke(t(2)).is_empty());
    // Its end counts the model's time as answering, and the note's call goes next.
    let effects = core.ask_ended(1, AskOutcome::Answered, t(12));
    assert!(effects.contains(&Effect::CountModelTime {
        usage: ModelUse::Asked,
        ms: 12_000
    }));
    assert_eq!(ended(&effects), [(1, AskEnd::Answered)]);
    assert_eq!(call_started(&mut core, effects, t(12)), "a");
    assert_eq!(core.status(t(12)).model_time.asked_ms, 12_000);
}

#[test]
fn a_question_waits_for_the_call_in_flight_and_runs_before_any_other_background_call() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    assert!(core.enqueued(vec!["b".into()], t(0), t(0)).is_empty());
    // The call in flight is waited for, not cancelled.
    let effects = core.ask_arrived(job(1, None), t(1));
    assert!(asks_started(&effects).is_empty(), "{effects:?}");
    assert!(effects.is_empty(), "nothing is cancelled: {effects:?}");
    // The note's answer is saved beside the question, which goes before "b".
    let effects = core.answered("a".into(), enrichment(), 5, t(5));
    assert!(effects.iter().any(|e| matches!(e, Effect::Save { .. })));
    assert_eq!(asks_started(&effects), [1]);
    assert!(
        walk_to_call(&mut core, effects, t(5)).is_none(),
        "no note's call beside it"
    );
    // After it, the background resumes with "b".
    let effects = core.ask_ended(1, AskOutcome::Answered, t(9));
    assert_eq!(call_started(&mut core, effects, t(9)), "b");
}

#[test]
fn a_newer_question_from_the_same_page_replaces_the_older_one_and_others_wait_their_turn() {
    let mut core = started();
    assert_eq!(
        asks_started(&core.ask_arrived(job(1, Some("page")), t(0))),
        [1]
    );
    // Another asker's question waits for the one streaming.
    assert!(core.ask_arrived(job(2, Some("other")), t(1)).is_empty());
    // The same page asks again: its streaming question ends (its stream is
    // dropped), its time is counted, and the next waiting question runs first.
    let effects = core.ask_arrived(job(3, Some("page")), t(3));
    let ends = ended(&effects);
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].0, 1);
    assert!(not_answered(NoAnswer::Replaced)(&ends[0].1));
    assert!(effects.contains(&Effect::CountModelTime {
        usage: ModelUse::Asked,
        ms: 3_000
    }));
    assert_eq!(asks_started(&effects), [2]);
    // The late end of the replaced stream changes nothing.
    assert!(core.ask_ended(1, AskOutcome::Answered, t(4)).is_empty());
    // A waiting question is replaced too.
    let effects = core.ask_arrived(job(4, Some("page")), t(5));
    assert_eq!(ended(&effects).len(), 1);
    assert_eq!(ended(&effects)[0].0, 3);
    assert_eq!(
        asks_started(&core.ask_ended(2, AskOutcome::Answered, t(6))),
        [4]
    );
}

#[test]
fn a_person_who_hangs_up_ends_the_question_waiting_or_streaming_and_the_background_resumes() {
    let mut core = started();
    capture_and_call(&mut core, "a", t(0));
    assert!(core.ask_arrived(job(1, None), t(1)).is_empty());
    assert_eq!(
        ended(&core.ask_ended(1, AskOutcome::HungUp, t(2))),
        [(1, AskEnd::HungUp)]
    );
    let effects = core.answered("a".into(), enrichment(), 5, t(3));
    assert!(asks_started(&effects).is_empty());

    let mut core = started();
    core.ask_arrived(job(1, None), t(0));
    core.enqueued(vec!["b".into()], t(0), t(0));
    let effects = core.ask_ended(1, AskOutcome::HungUp, t(4));
    assert_eq!(ended(&effects)[0], (1, AskEnd::HungUp));
    assert_eq!(call_started(&mut core, effects, t(4)), "b");
}

#[test]
fn with_the_provider_not_ready_a_question_is_refused_at_once_with_the_reason() {
    for (health, reason) in [
        (down(), NoAnswer::ModelDown),
        (model_missing(), NoAnswer::ModelMissing),
        (
            ProviderHealth::Loading {
                detail: "loading".into(),
            },
            NoAnswer::ModelUnavailable,
        ),
    ] {
        let mut core = started();
        core.health_changed(health, t(0));
        let effects = core.ask_arrived(job(1, None), t(1));
        assert!(asks_started(&effects).is_empty());
        let ends = ended(&effects);
        assert!(
            ends.len() == 1 && not_answered(reason)(&ends[0].1),
            "{ends:?}"
        );
    }
}

#[test]
fn an_answer_that_fails_says_why_and_an_unreachable_server_makes_the_monitor_look() {
    let mut core = started();
    core.ask_arrived(job(1, None), t(0));
    let gone = ProviderError::Unreachable("connection refused".into());
    let effects = core.ask_ended(1, AskOutcome::Failed(gone), t(1));
    assert!(effects.contains(&Effect::SuspectDown));
    assert!(not_answered(NoAnswer::ModelDown)(&ended(&effects)[0].1));

    core.ask_arrived(job(2, None), t(2));
    let crashed = ProviderError::Status {
        code: 500,
        message: "runner crashed".into(),
    };
    let effects = core.ask_ended(2, AskOutcome::Failed(crashed), t(3));
    assert!(!effects.contains(&Effect::SuspectDown));
    assert!(not_answered(NoAnswer::Failed)(&ended(&effects)[0].1));
}

#[test]
fn an_answer_cut_at_its_limits_says_too_long_and_the_background_resumes() {
    for cut in [
        Cut::Length(65_536),
        Cut::Time(std::time::Duration::from_secs(420)),
    ] {
        let mut core = started();
        core.ask_arrived(job(1, None), t(0));
        core.enqueued(vec!["b".into()], t(0), t(0));
        let effects = core.ask_ended(1, AskOutcome::Cut(cut), t(7));
        assert!(!effects.contains(&Effect::SuspectDown));
        let ends = ended(&effects);
        assert!(not_answered(NoAnswer::TooLong)(&ends[0].1), "{ends:?}");
        let AskEnd::NotAnswered { detail, .. } = &ends[0].1 else {
            unreachable!()
        };
        assert!(
            detail.contains("65536 bytes") || detail.contains("420 s"),
            "{detail}"
        );
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Asked,
            ms: 7_000
        }));
        assert_eq!(call_started(&mut core, effects, t(7)), "b");
    }
}
