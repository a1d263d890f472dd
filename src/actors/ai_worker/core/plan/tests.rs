use super::super::test_fixture::*;
use crate::ai::{CallReply, Role, Sampling, Usage};
use chrono::{DateTime, Utc};

/// Queues `id`, due a second after `now`, with `body` as if read ahead.
fn with_body(core: &mut WorkerCore, id: &str, body: &str, now: DateTime<Utc>) {
    core.enqueued(vec![id.into()], now + chrono::TimeDelta::seconds(1), now);
    core.queues.bodies.insert(id.into(), body.into());
}

/// The retry part of a plan: the answer shown to the model, how it samples, its cap.
fn retry_of(plan: &CallPlan) -> (Option<String>, Sampling, u32) {
    let shown = plan
        .prompt
        .messages
        .iter()
        .find(|m| m.role == Role::Assistant)
        .map(|m| m.content.clone());
    (shown, plan.sampling, plan.output_tokens)
}

#[test]
fn a_retry_after_a_refused_answer_shows_it_to_the_model_and_gets_more_room_if_cut_off() {
    let mut core = started();
    let effects = core.enqueued(vec!["a".into()], t(0), t(0));
    let (_, plan) = plan_of(&mut core, effects, t(0));
    assert_eq!(retry_of(&plan), (None, Sampling::Greedy, 512));
    assert_eq!(
        plan.prompt.messages.len(),
        2,
        "the system prompt and the note"
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
    let (shown, sampling, cap) = retry_of(&plan);
    assert_eq!((shown, cap), (Some(cut.answer), 1024));
    assert!(matches!(sampling, Sampling::Reseeded { seed: 1, .. }));
    assert_eq!(
        plan.prompt.messages.len(),
        4,
        "the answer and what was wrong"
    );

    let wrong = RefusedAnswer::new("\"tags\" is \"a\", not a list", "{\"tags\":\"a\"}", false);
    let effects = core.call_failed("a".into(), ProviderError::Unusable(wrong.clone()), t(32));
    write_answered(&mut core, &effects, t(32));
    let woke = core.woke(t(152));
    let (_, plan) = plan_of(&mut core, woke, t(152));
    let (shown, sampling, cap) = retry_of(&plan);
    assert_eq!((shown, cap), (Some(wrong.answer), 512));
    assert!(matches!(sampling, Sampling::Reseeded { seed: 2, .. }));

    let effects = untimed(core.call_failed(
        "a".into(),
        ProviderError::Unusable(RefusedAnswer::new("x", "y", false)),
        t(153),
    ));
    assert!(
        matches!(effects[0], Effect::MarkFailed { .. }),
        "the third counts"
    );
    assert!(
        core.queues.refused.is_empty(),
        "a note given up on keeps no hint"
    );
}

#[test]
fn a_long_note_at_the_measured_speed_gets_a_longer_deadline_from_its_first_call() {
    let mut core = started();
    core.rules.longest_read = None; // read as far as the context goes
    let effects = core.enqueued(vec!["a".into()], t(0), t(0));
    let (_, plan) = plan_of(&mut core, effects, t(0));
    assert_eq!(
        plan.deadline,
        std::time::Duration::from_secs(120),
        "no speed yet"
    );
    // A slow CPU: 20 prompt tokens a second, 5 written.
    let usage = Usage {
        prompt_tokens: 200,
        prompt_ns: 10_000_000_000,
        output_tokens: 50,
        output_ns: 10_000_000_000,
    };
    let reply = CallReply {
        result: Ok(enrichment()),
        usage: Some(usage),
    };
    let effects = core.replied("a".into(), reply, 20_000, t(20));
    assert!(effects.iter().any(|e| matches!(e, Effect::Save { .. })));
    with_body(&mut core, "long", &"word ".repeat(6_000), t(21));
    let effects = core.woke(t(22));
    let (_, plan) = plan_of(&mut core, effects, t(22));
    // ~8,000 prompt tokens at 20/s and 512 at 5/s, twice over: past the longest.
    assert_eq!(plan.deadline, std::time::Duration::from_secs(600));
    assert_eq!(plan.context_tokens, 8192);
    assert!(plan.prompt.read_chars.is_some(), "cut to fit the context");
}

#[test]
fn the_models_own_context_caps_the_calls_and_the_note_is_cut_to_it() {
    let mut core = WorkerCore::new(rules());
    core.loaded([], t(0));
    core.health_changed(up(), t(0));
    with_body(&mut core, "a", &"word ".repeat(4_000), t(0));
    let effects = core.woke(t(1));
    assert!(effects.contains(&Effect::ReadModelContext), "{effects:?}");
    let effects = core.context_read(Ok(Some(2048)), t(0));
    assert!(loads(&effects));
    let effects = core.model_loaded(Ok(()), t(1));
    let (_, plan) = plan_of(&mut core, effects, t(1));
    assert_eq!(plan.context_tokens, 2048);
    let read = plan.prompt.read_chars.expect("cut");
    assert!(plan.prompt.estimated_tokens + 512 <= 2048, "{plan:?}");
    // The answer says how much of the note was read.
    let reply = CallReply {
        result: Ok(enrichment()),
        usage: None,
    };
    let effects = core.replied("a".into(), reply, 5, t(2));
    let saved = effects.iter().find_map(|e| match e {
        Effect::Save { enrichment, .. } => Some(enrichment.read_chars),
        _ => None,
    });
    assert_eq!(saved, Some(Some(read)));
}

fn exceeded(prompt: Option<u32>, context: Option<u32>) -> CallReply {
    CallReply::failed(ProviderError::ContextExceeded {
        prompt_tokens: prompt,
        context_tokens: context,
        message: "the request exceeds the available context size".into(),
    })
}

#[test]
fn a_prompt_that_did_not_fit_is_cut_by_the_servers_numbers_and_asked_again_at_once() {
    let mut core = started();
    with_body(&mut core, "a", &"한국어 문장 ".repeat(1_500), t(0));
    let effects = core.woke(t(1));
    let (_, first) = plan_of(&mut core, effects, t(1));
    // The server counted twice what was estimated, in a context of 4096.
    let counted = (first.prompt.estimated_tokens * 2) as u32;
    let effects = core.replied("a".into(), exceeded(Some(counted), Some(4096)), 50, t(1));
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::StoreAttempt { .. })),
        "never an attempt: {effects:?}"
    );
    let (note, again) = plan_of(&mut core, effects, t(1));
    assert_eq!(note, "a", "asked again at once, its body kept");
    assert_eq!(again.context_tokens, 4096);
    assert!(
        again.prompt.estimated_tokens * 2 + 512 <= 4096 * 105 / 100,
        "cut to what fits by the server's count: {} estimated",
        again.prompt.estimated_tokens
    );
    assert_eq!(core.queues.jobs.attempts("a"), 0);
}

#[test]
fn without_numbers_a_prompt_that_did_not_fit_halves_its_room_and_then_fails_as_other() {
    let mut core = started();
    with_body(&mut core, "a", &"word ".repeat(6_000), t(0));
    let effects = core.woke(t(1));
    let (_, mut plan) = plan_of(&mut core, effects, t(1));
    let mut cuts = 0;
    let failed = loop {
        cuts += 1;
        assert!(
            cuts <= super::super::context::MAX_OVERFLOW_CUTS + 1,
            "it ends"
        );
        let before = plan.prompt.estimated_tokens;
        let now = t(1 + i64::from(cuts));
        let mut effects = untimed(core.replied("a".into(), exceeded(None, None), 5, now));
        if effects
            .iter()
            .any(|e| matches!(e, Effect::PrepareCall { .. }))
        {
            effects =
                untimed(core.prepared("a".into(), Vec::new(), NeighboursRead::NotAsked, None, now));
        }
        // Either asked again with less of the note, or (no room left for any of
        // it, or out of cuts) the note's own failure: never a call about nothing.
        match effects.iter().find_map(|e| match e {
            Effect::CallProvider { plan, .. } => Some(plan.clone()),
            _ => None,
        }) {
            Some(again) => {
                assert!(again.prompt.estimated_tokens < before, "cut {cuts}");
                assert_ne!(again.prompt.read_chars, Some(0));
                plan = again;
            }
            None => break effects,
        }
    };
    assert!(
            failed.iter().any(|e| matches!(e, Effect::StoreAttempt { last_error, .. } if last_error.starts_with("other"))),
            "{failed:?}"
        );
    assert!(cuts >= 2, "halved at least once before giving up");
}
