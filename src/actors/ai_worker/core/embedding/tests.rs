//! The unit tests of the notes' vectors' rules (`embedding.rs`), on plain data.

use super::super::test_fixture::*;
use super::*;

fn embedding_rules() -> WorkerRules {
    WorkerRules {
        embedding: Some(EmbeddingRules {
            model: "embeddinggemma".into(),
            context_tokens: 2048,
            in_process: false,
        }),
        ..rules()
    }
}

fn started_embedding() -> WorkerCore {
    let mut core = WorkerCore::new(embedding_rules());
    core.loaded([], t(0));
    core.health_changed(up(), t(0));
    core
}

fn reads(effects: &[Effect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, Effect::ReadEmbeddingBacklog { .. }))
}

fn backlog(notes: &[(&str, &str)], dims: Option<usize>) -> EmbeddingBacklog {
    EmbeddingBacklog {
        notes: notes
            .iter()
            .map(|(id, body)| (id.to_string(), body.to_string()))
            .collect(),
        dims,
        next: None,
    }
}

fn plan_in(effects: &[Effect]) -> EmbedPlan {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Embed(plan) => Some(plan.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("an embedding call: {effects:?}"))
}

fn saved(effects: &[Effect]) -> Vec<NoteVector> {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::SaveVectors { vectors, .. } => Some(vectors.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn with_no_title_due_the_next_notes_are_embedded_in_one_call_and_then_only_changed_notes_are_read()
{
    let mut core = WorkerCore::new(embedding_rules());
    let effects = core.loaded([], t(0));
    assert!(!reads(&effects), "nothing before the first health check");
    let effects = core.health_changed(up(), t(0));
    assert!(reads(&effects), "{effects:?}");
    assert_eq!(core.status(t(0)).embeddings, EmbeddingsState::Working);
    let effects =
        core.embedding_backlog_read(Ok(backlog(&[("b", "newer"), ("a", "older")], None)), t(0));
    let plan = plan_in(&effects);
    assert_eq!(plan.texts, ["newer", "older"]);
    assert_eq!(plan.deadline, std::time::Duration::from_secs(120));
    assert_eq!(core.status(t(0)).state, WorkerState::Embedding { notes: 2 });
    let effects = core.embedded(Ok(vec![vec![3.0, 4.0], vec![0.0, 2.0]]), t(1));
    let vectors = saved(&effects);
    assert_eq!(vectors.len(), 2);
    assert_eq!(
        (vectors[0].note_id.as_str(), vectors[0].body.as_str()),
        ("b", "newer")
    );
    assert_eq!(vectors[0].vector, vec![0.6, 0.8], "normalised");
    assert!(effects.contains(&Effect::CountModelTime {
        usage: ModelUse::Vectors,
        ms: 1000
    }));
    assert!(reads(&effects), "the next batch: {effects:?}");
    let effects = core.embedding_backlog_read(Ok(backlog(&[], Some(2))), t(1));
    assert_eq!(effects, [Effect::Wake(None)], "idle: no timer at all");
    assert_eq!(core.status(t(1)).embeddings, EmbeddingsState::UpToDate);
    // A capture (or an edit) may leave something to embed: after its title, and
    // that note alone is read, by id (not a walk over every note).
    let effects = core.enqueued(vec!["c".into()], t(2), t(2));
    assert!(!reads(&effects), "the title first: {effects:?}");
    assert_eq!(call_started(&mut core, effects, t(2)), "c");
    let effects = core.answered("c".into(), enrichment(), 5, t(3));
    let only = effects.iter().find_map(|e| match e {
        Effect::ReadEmbeddingBacklog { only, .. } => Some(only.clone()),
        _ => None,
    });
    assert_eq!(only, Some(Some(vec!["c".to_string()])), "{effects:?}");
    let effects = core.embedding_backlog_read(Ok(backlog(&[("c", "new")], Some(2))), t(3));
    plan_in(&effects);
    let effects = core.embedded(Ok(vec![vec![1.0, 0.0]]), t(4));
    assert!(!reads(&effects), "nothing else changed: {effects:?}");
    assert_eq!(saved(&effects).len(), 1);
}

#[test]
fn a_note_stored_while_the_first_read_of_every_note_is_in_flight_is_read_by_id_after_it() {
    let mut core = WorkerCore::new(embedding_rules());
    core.loaded([], t(0));
    assert!(
        reads(&core.health_changed(up(), t(0))),
        "the read of every note"
    );
    core.enqueued(vec!["new".into()], t(0), t(0));
    // The read was made before the note was stored: it finds nothing. Then the
    // note's title goes first, and after it the note is read by id.
    let effects = core.embedding_backlog_read(Ok(backlog(&[], None)), t(0));
    assert_eq!(call_started(&mut core, effects, t(0)), "new");
    let effects = core.answered("new".into(), enrichment(), 5, t(1));
    let only = effects.iter().find_map(|e| match e {
        Effect::ReadEmbeddingBacklog { only, .. } => Some(only.clone()),
        _ => None,
    });
    assert_eq!(only, Some(Some(vec!["new".to_string()])), "{effects:?}");
}

#[test]
fn a_title_due_goes_before_the_vectors_and_waits_only_for_the_call_in_flight() {
    let mut core = started_embedding();
    let effects = core.embedding_backlog_read(Ok(backlog(&[("old", "old note")], None)), t(0));
    plan_in(&effects);
    // A note captured while the vectors' call runs: no second call meanwhile.
    assert!(core.enqueued(vec!["new".into()], t(1), t(1)).is_empty());
    let effects = core.embedded(Ok(vec![vec![1.0, 0.0]]), t(2));
    assert!(!reads(&effects), "{effects:?}");
    assert_eq!(call_started(&mut core, effects, t(2)), "new");
}

#[test]
fn an_outage_waits_spends_no_note_and_resumes_the_moment_the_provider_is_ready() {
    let mut core = started_embedding();
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", "body")], None)), t(0));
    plan_in(&effects);
    let effects = core.embedded(Err(ProviderError::Unreachable("refused".into())), t(0));
    assert!(effects.contains(&Effect::SuspectDown), "{effects:?}");
    assert_eq!(
        wake_of(&effects),
        Some(Some(t(30))),
        "the outage's first wait"
    );
    assert!(matches!(
        core.status(t(0)).embeddings,
        EmbeddingsState::Waiting { .. }
    ));
    assert_eq!(core.status(t(0)).queued, 0, "no note's job was touched");
    core.health_changed(down(), t(1));
    let effects = core.health_changed(up(), t(5));
    assert!(reads(&effects), "at once, not at 30 s: {effects:?}");
}

#[test]
fn every_note_is_walked_a_slice_at_a_time_going_on_from_where_the_last_slice_stopped() {
    let mut core = started_embedding();
    let before = |effects: &[Effect]| {
        effects.iter().find_map(|e| match e {
            Effect::ReadEmbeddingBacklog { before, only, .. } => {
                assert_eq!(*only, None, "the walk, not a read by id");
                Some(before.clone())
            }
            _ => None,
        })
    };
    // A slice that found nothing: the next slice at once, below it.
    let slice = |next: Option<&str>| EmbeddingBacklog {
        next: next.map(str::to_string),
        ..backlog(&[], Some(2))
    };
    let effects = core.embedding_backlog_read(Ok(slice(Some("m"))), t(0));
    assert_eq!(before(&effects), Some(Some("m".to_string())), "{effects:?}");
    assert_ne!(core.status(t(0)).embeddings, EmbeddingsState::UpToDate);
    // A slice that found notes: they are embedded, then the walk goes on.
    let found = EmbeddingBacklog {
        next: Some("f".into()),
        ..backlog(&[("h", "h"), ("g", "g")], Some(2))
    };
    plan_in(&core.embedding_backlog_read(Ok(found), t(1)));
    let effects = core.embedded(Ok(vec![vec![1.0, 0.0], vec![0.0, 1.0]]), t(2));
    assert_eq!(before(&effects), Some(Some("f".to_string())), "{effects:?}");
    // The oldest note reached, nothing found: caught up, nothing more is read.
    let effects = core.embedding_backlog_read(Ok(slice(None)), t(2));
    assert_eq!(effects, [Effect::Wake(None)]);
    assert_eq!(core.status(t(2)).embeddings, EmbeddingsState::UpToDate);
}

#[test]
fn a_failed_call_reads_its_notes_again_by_id_not_every_note_again() {
    let mut core = started_embedding();
    core.embedding_backlog_read(Ok(backlog(&[], Some(2))), t(0));
    assert_eq!(core.status(t(0)).embeddings, EmbeddingsState::UpToDate);
    let effects = core.to_embed(&["c".into(), "d".into()], t(1));
    let only = effects.iter().find_map(|e| match e {
        Effect::ReadEmbeddingBacklog { only, .. } => Some(only.clone()),
        _ => None,
    });
    assert_eq!(only, Some(Some(vec!["d".to_string(), "c".to_string()])));
    let effects =
        core.embedding_backlog_read(Ok(backlog(&[("d", "d"), ("c", "c")], Some(2))), t(1));
    plan_in(&effects);
    core.embedded(Err(ProviderError::Unreachable("refused".into())), t(1));
    core.health_changed(down(), t(2));
    let effects = core.health_changed(up(), t(5));
    let only = effects.iter().find_map(|e| match e {
        Effect::ReadEmbeddingBacklog { only, .. } => Some(only.clone()),
        _ => None,
    });
    assert_eq!(
        only,
        Some(Some(vec!["d".to_string(), "c".to_string()])),
        "the failed batch by id, not a walk over every note: {effects:?}"
    );
    // A read that fails puts its notes back the same way.
    core.embedding_backlog_read(Err("disk I/O error".into()), t(5));
    core.health_changed(down(), t(6));
    let effects = core.health_changed(up(), t(60));
    let only = effects.iter().find_map(|e| match e {
        Effect::ReadEmbeddingBacklog { only, .. } => Some(only.clone()),
        _ => None,
    });
    assert_eq!(only, Some(Some(vec!["d".to_string(), "c".to_string()])));
}

#[test]
fn a_batch_that_ran_out_of_time_is_tried_again_with_twice_the_time_up_to_the_longest() {
    let mut core = started_embedding();
    let mut deadlines = Vec::new();
    let mut now = 0;
    for _ in 0..4 {
        let effects = core.embedding_backlog_read(Ok(backlog(&[("a", "body")], None)), t(now));
        deadlines.push(plan_in(&effects).deadline.as_secs());
        let effects = core.embedded(Err(ProviderError::TimedOut("no vectors".into())), t(now));
        assert!(
            effects.contains(&Effect::SuspectDown),
            "the health check judges: {effects:?}"
        );
        now += 10_000;
        assert!(reads(&core.woke(t(now))));
    }
    assert_eq!(deadlines, [120, 240, 480, 600]);
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", "body")], None)), t(now));
    plan_in(&effects);
    core.embedded(Ok(vec![vec![1.0]]), t(now));
    let effects = core.embedding_backlog_read(Ok(backlog(&[("b", "body")], None)), t(now));
    assert_eq!(
        plan_in(&effects).deadline.as_secs(),
        120,
        "a success starts again"
    );
}

#[test]
fn a_server_without_embeddings_or_the_model_is_a_state_with_its_fix_and_never_a_note_failure() {
    let mut core = started_embedding();
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", "body")], None)), t(0));
    plan_in(&effects);
    let no =
        ProviderError::NoEmbeddings("HTTP 501: This server does not support embeddings".into());
    let effects = core.embedded(Err(no), t(0));
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::StoreAttempt { .. } | Effect::MarkFailed { .. })));
    let state = core.status(t(0)).embeddings;
    assert!(matches!(state, EmbeddingsState::NotServed { .. }));
    assert!(state
        .words()
        .unwrap()
        .starts_with("This server does not make embeddings: start llama-server with --embeddings"));
    assert_eq!(
        wake_of(&effects),
        Some(Some(t(900))),
        "asked again after the longest wait"
    );
    // A recheck asks again at once.
    let effects = core.resume_requested("recheck", t(10));
    assert!(reads(&effects), "{effects:?}");
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", "body")], None)), t(10));
    plan_in(&effects);
    let missing = ProviderError::Status {
        code: 404,
        message: "model \"embeddinggemma\" not found, try pulling it first".into(),
    };
    core.embedded(Err(missing), t(11));
    assert_eq!(
        core.status(t(11)).embeddings,
        EmbeddingsState::ModelMissing {
            model: "embeddinggemma".into()
        }
    );
}

/// The read the effects ask for: `(skip, only)`.
fn read_in(effects: &[Effect]) -> (Vec<String>, Option<Vec<String>>) {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::ReadEmbeddingBacklog { skip, only, .. } => Some((skip.clone(), only.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a read: {effects:?}"))
}

/// Before (issue #43 point 4): after one vector of zeros or of the wrong length, those
/// notes got no vector until a restart, while the state said `up_to_date`. Now they
/// are asked again by the notes' retry schedule (30 s, then 120 s; three times), and
/// the state says how many were refused, why, and when they are asked again.
#[test]
fn a_refused_vector_is_asked_again_by_the_retry_schedule_and_the_state_says_so() {
    let mut core = started_embedding();
    let effects = core.embedding_backlog_read(
        Ok(backlog(
            &[("a", "one"), ("b", "two"), ("c", "three")],
            Some(3),
        )),
        t(0),
    );
    plan_in(&effects);
    let effects = core.embedded(
        Ok(vec![
            vec![1.0, 0.0, 0.0],
            vec![1.0, 0.0],
            vec![0.0, 0.0, 0.0],
        ]),
        t(1),
    );
    let ids: Vec<String> = saved(&effects).into_iter().map(|v| v.note_id).collect();
    assert_eq!(ids, ["a"], "the 2-long and the zero vector are refused");
    assert_eq!(read_in(&effects).0, ["b", "c"], "left out while they wait");
    // Every other note has its vector: not up to date, refused, asked again at 31 s.
    let effects = core.embedding_backlog_read(Ok(backlog(&[], Some(3))), t(1));
    assert_eq!(wake_of(&effects), Some(Some(t(31))));
    assert_eq!(
        core.status(t(1)).embeddings,
        EmbeddingsState::Refused {
            notes: 2,
            detail: "a vector of zeros".into(),
            until: Some(timestamp(t(31))),
        }
    );
    let words = core.status(t(1)).embeddings.words().unwrap();
    assert!(words.contains("2 note(s) were refused"), "{words}");

    // At 31 s both are read again, by id; b's vector is good now, c's zeros again.
    let effects = core.woke(t(31));
    let (skip, only) = read_in(&effects);
    assert!(skip.is_empty(), "{skip:?}");
    assert_eq!(only, Some(vec!["c".to_string(), "b".to_string()]));
    let effects =
        core.embedding_backlog_read(Ok(backlog(&[("c", "three"), ("b", "two")], Some(3))), t(31));
    plan_in(&effects);
    let effects = core.embedded(Ok(vec![vec![0.0; 3], vec![0.0, 1.0, 0.0]]), t(32));
    let ids: Vec<String> = saved(&effects).into_iter().map(|v| v.note_id).collect();
    assert_eq!(ids, ["b"]);
    // c waits 120 s after its second refusal, then its third is the last.
    assert!(matches!(
        core.status(t(32)).embeddings,
        EmbeddingsState::Refused { notes: 1, until: Some(ref until), .. } if *until == timestamp(t(152))
    ));
    assert_eq!(wake_of(&effects), Some(Some(t(152))));
    let effects = core.woke(t(152));
    assert_eq!(read_in(&effects).1, Some(vec!["c".to_string()]));
    let effects = core.embedding_backlog_read(Ok(backlog(&[("c", "three")], Some(3))), t(152));
    plan_in(&effects);
    let effects = core.embedded(Ok(vec![vec![1.0, 0.0]]), t(153));
    assert!(saved(&effects).is_empty());
    assert_eq!(wake_of(&effects), Some(None), "not asked again this run");
    let state = core.status(t(153)).embeddings;
    assert_eq!(
        state,
        EmbeddingsState::Refused {
            notes: 1,
            detail: "a vector of 2 numbers where the model's have 3".into(),
            until: None,
        }
    );
    assert!(state
        .words()
        .unwrap()
        .contains("until inkling restarts or the note is edited"));

    // An edit is a new text: asked again at once.
    let effects = core.to_embed(&["c".to_string()], t(200));
    assert_eq!(read_in(&effects).1, Some(vec!["c".to_string()]));
    let effects = core.embedding_backlog_read(Ok(backlog(&[("c", "four")], Some(3))), t(200));
    plan_in(&effects);
    core.embedded(Ok(vec![vec![0.0, 0.0, 1.0]]), t(201));
    assert_eq!(core.status(t(201)).embeddings, EmbeddingsState::UpToDate);
}

#[test]
fn an_answer_that_cannot_be_matched_to_its_notes_stores_nothing_and_waits() {
    let mut core = started_embedding();
    let effects = core.embedding_backlog_read(Ok(backlog(&[("d", "four")], Some(3))), t(1));
    plan_in(&effects);
    let effects = core.embedded(Ok(vec![]), t(2));
    assert!(saved(&effects).is_empty());
    assert!(matches!(
        core.status(t(2)).embeddings,
        EmbeddingsState::Waiting { .. }
    ));
}

#[test]
fn a_text_too_long_for_the_model_is_cut_shorter_and_asked_again_at_once() {
    let mut core = started_embedding();
    let long = "word ".repeat(3_000);
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", &long)], None)), t(0));
    let first = plan_in(&effects).texts[0].len();
    assert!(first < long.len(), "cut to the context from the start");
    let too_long = ProviderError::ContextExceeded {
        prompt_tokens: None,
        context_tokens: None,
        message: "the input length exceeds the context length".into(),
    };
    let effects = core.embedded(Err(too_long), t(1));
    assert!(reads(&effects), "at once: {effects:?}");
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", &long)], None)), t(1));
    let again = plan_in(&effects).texts[0].len();
    assert!(again < first * 6 / 10, "{again} of {first}");
}

#[test]
fn without_an_embedding_model_nothing_is_read_or_called() {
    let mut core = started();
    assert_eq!(core.status(t(0)).embeddings, EmbeddingsState::Off);
    let effects = core.resume_requested("recheck", t(0));
    assert!(!reads(&effects));
}

#[test]
fn vectors_made_in_the_process_are_made_with_no_model_server_and_a_query_too() {
    // No model server at all (issue #37 point 3): the notes wait for it, the built-in
    // embedder does not, and a search's words are embedded all the same.
    let mut core = WorkerCore::new(WorkerRules {
        embedding: Some(EmbeddingRules {
            model: "builtin:e5".into(),
            context_tokens: 512,
            in_process: true,
        }),
        ..rules()
    });
    core.loaded([], t(0));
    // The chat model not there holds every call to the server (so would an outage's
    // park): not the vectors made here.
    let chat_model_missing = ProviderHealth::ModelMissing {
        model: "llama3.2".into(),
        server: Default::default(),
    };
    let effects = core.health_changed(chat_model_missing.clone(), t(0));
    assert!(reads(&effects), "the vectors go on: {effects:?}");
    let effects = core.embedding_backlog_read(Ok(backlog(&[("a", "a note")], None)), t(0));
    let plan = plan_in(&effects);
    assert_eq!(plan.kind, crate::ai::embedding::TextKind::Passage);
    core.embedded(Ok(vec![vec![1.0, 0.0]]), t(1));
    core.embedding_backlog_read(Ok(backlog(&[], Some(2))), t(1));
    assert_eq!(core.status(t(1)).embeddings, EmbeddingsState::UpToDate);
    let query = core
        .query_call("tomatoes")
        .expect("a query call with the server down");
    assert_eq!(query.plan.kind, crate::ai::embedding::TextKind::Query);

    // A server's embedding model waits with the server, and so does a search's words.
    let mut core = WorkerCore::new(embedding_rules());
    core.loaded([], t(0));
    assert!(!reads(&core.health_changed(chat_model_missing, t(0))));
    core.health_changed(down(), t(1));
    assert_eq!(
        core.query_call("tomatoes").map(|_| ()),
        Err(crate::api::search::KeywordOnly::ProviderDown)
    );
}
