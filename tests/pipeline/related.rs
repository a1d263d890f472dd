//! The notes' vectors and related notes (docs/DESIGN.md, "Related notes"), end to
//! end on virtual time: a new note's vector is made just before its title, again after its body
//! changes, again with a new model (never mixing dimensions); an outage, a missing
//! model, a server without embeddings and vectors of the wrong length are never a
//! note's failure.

use chrono::TimeDelta;
use inkling::actors::ai_worker::GetWorkerStatus;
use inkling::actors::provider_monitor::Recheck;
use inkling::actors::repository::GetRelated;
use inkling::api::worker::EmbeddingsState;
use inkling::domain::{NoteBody, NoteEdit};
use inkling::search::floors::RELATED_FLOOR;
use inkling::storage::vectors::RELATED_NOTES;
use inkling::storage::{NoteVector, Store};

use crate::fake_ollama::{EmbedReply, FakeOllama};
use crate::harness::{t0, PausedSystem, Pipeline};

/// The ids of a note's related notes, best first.
async fn related(p: &Pipeline, id: &str) -> (Vec<String>, bool) {
    let found = p
        .ask(
            &p.services.repository,
            GetRelated {
                id: id.to_string(),
                limit: RELATED_NOTES,
                floor: |_| RELATED_FLOOR,
            },
        )
        .await
        .expect("read");
    (
        found.notes.into_iter().map(|(note, _)| note.id).collect(),
        found.embedded,
    )
}

fn vectors(p: &Pipeline) -> Vec<(String, String, i64)> {
    let mut stmt = p
        .reader()
        .prepare("SELECT note_id, model, dims FROM note_vectors ORDER BY note_id")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

async fn embeddings_state(p: &Pipeline) -> EmbeddingsState {
    p.ask(&p.services.worker, GetWorkerStatus).await.embeddings
}

#[actix_rt::test(system = "PausedSystem")]
async fn each_note_gets_its_vector_after_its_title_and_the_related_notes_share_its_subject() {
    let p = Pipeline::start(&[]).await;
    let tomato = p.capture("Water the tomato plants in the garden").await;
    let garden = p.capture("Tomato plants in the garden need compost").await;
    let tax = p.capture("File the tax return before April").await;
    let taxes = p.capture("Tax return for April: file the receipts").await;
    p.settle().await;

    for id in [&tomato, &garden, &tax, &taxes] {
        assert_eq!(p.note(id).status, "done");
    }
    assert_eq!(vectors(&p).len(), 4);
    assert!(vectors(&p)
        .iter()
        .all(|(_, model, dims)| model == "embeddinggemma" && *dims == 64));
    // Each new note was embedded on its own just before its title (its neighbours'
    // tags go into its prompt: tests/pipeline/neighbours.rs), so nothing was left for
    // the batches after the titles.
    let mut inputs: Vec<Vec<String>> = p
        .fake
        .embed_calls()
        .iter()
        .map(crate::fake_ollama::fake_embeddings::inputs_of)
        .collect();
    inputs.sort();
    assert_eq!(
        inputs,
        [
            ["File the tax return before April"],
            ["Tax return for April: file the receipts"],
            ["Tomato plants in the garden need compost"],
            ["Water the tomato plants in the garden"],
        ]
    );

    assert_eq!(related(&p, &tomato).await, (vec![garden.clone()], true));
    assert_eq!(related(&p, &tax).await, (vec![taxes.clone()], true));
    assert_eq!(embeddings_state(&p).await, EmbeddingsState::UpToDate);

    // An edit makes the vector stale: the note is embedded again from its new body.
    let edit = NoteEdit {
        body: Some(
            NoteBody::parse("File the tax return before April, deadline".into(), 65536).unwrap(),
        ),
        title: None,
        tags: None,
        made_from_body: None,
    };
    p.run(p.services.inbox.edit(tomato.clone(), edit))
        .await
        .unwrap();
    p.settle().await;
    assert_eq!(related(&p, &tomato).await.0.first(), Some(&tax));
    let last = p.fake.embed_calls().last().cloned().unwrap();
    assert_eq!(
        last["input"],
        serde_json::json!(["File the tax return before April, deadline"])
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn an_outage_a_missing_model_or_a_server_without_embeddings_never_fails_a_note() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.set_embed(EmbedReply::ModelMissing);
    let id = p
        .capture("A note while the embedding model is missing")
        .await;
    p.settle().await;
    assert_eq!(p.note(&id).status, "done", "the title is not held up");
    assert_eq!(
        embeddings_state(&p).await,
        EmbeddingsState::ModelMissing {
            model: "embeddinggemma".into()
        }
    );
    assert!(vectors(&p).is_empty());
    let asked = p.fake.embed_calls().len();
    // No polling: nothing more is asked while nothing changes, short of the longest wait.
    p.advance(std::time::Duration::from_secs(600)).await;
    assert_eq!(p.fake.embed_calls().len(), asked);

    // The model pulled, a recheck: the vectors are made at once.
    p.fake.set_embed(EmbedReply::Ok);
    p.ask(&p.services.monitor, Recheck).await;
    p.settle().await;
    assert_eq!(vectors(&p).len(), 1);

    // A server that makes none: a state with its fix, the notes done all the same.
    p.fake.set_embed(EmbedReply::NotServed);
    let other = p.capture("Another note").await;
    p.settle().await;
    assert_eq!(p.note(&other).status, "done");
    let state = embeddings_state(&p).await;
    assert!(
        matches!(state, EmbeddingsState::NotServed { .. }),
        "{state:?}"
    );
    assert!(state
        .words()
        .unwrap()
        .contains("start llama-server with --embeddings"));

    // Down: no attempt spent, and back the moment the monitor sees it ready.
    p.fake.set_embed(EmbedReply::Ok);
    p.fake.stop();
    p.ask(&p.services.monitor, Recheck).await;
    p.settle().await;
    p.fake.start().await;
    p.advance(std::time::Duration::from_secs(2)).await;
    assert_eq!(vectors(&p).len(), 2);
    assert_eq!(p.note(&other).status, "done");
}

/// Before (issue #43 point 4): a note whose vector was refused got none until a
/// restart, while the state said `up_to_date`. Now it is asked again by the retry
/// schedule (30 s after the first refusal), and the state says what happened.
#[actix_rt::test(system = "PausedSystem")]
async fn refused_vectors_are_said_and_asked_again_and_the_note_keeps_its_title() {
    let p = Pipeline::start(&[]).await;
    let a = p.capture("Tomato plants in the garden").await;
    p.settle().await;
    for (stored, bad, why, text) in [
        (
            1,
            EmbedReply::WrongLength(32),
            "a vector of 32 numbers where the model's have",
            "Tomato garden compost",
        ),
        (
            2,
            EmbedReply::Zeros,
            "a vector of zeros",
            "Compost the tomato garden",
        ),
    ] {
        p.fake.set_embed(bad);
        let b = p.capture(text).await;
        p.settle().await;
        assert_eq!(vectors(&p).len(), stored, "the bad vector is refused");
        assert!(!vectors(&p).iter().any(|(id, _, _)| *id == b));
        assert!(!related(&p, &b).await.1, "no vector, no related notes");
        assert_eq!(p.note(&b).status, "done", "never the note's failure");
        match embeddings_state(&p).await {
            EmbeddingsState::Refused {
                notes: 1,
                detail,
                until: Some(_),
            } => assert!(detail.starts_with(why), "{detail}"),
            other => panic!("{other:?}"),
        }
        // Asked again 30 s later, by the notes' retry schedule: taken now.
        p.fake.set_embed(EmbedReply::Ok);
        p.advance(std::time::Duration::from_secs(29)).await;
        assert_eq!(vectors(&p).len(), stored, "not before its time");
        p.advance(std::time::Duration::from_secs(2)).await;
        assert_eq!(vectors(&p).len(), stored + 1);
        let (found, embedded) = related(&p, &b).await;
        assert!(embedded && found.contains(&a), "{found:?}");
        assert_eq!(embeddings_state(&p).await, EmbeddingsState::UpToDate);
    }
}

#[actix_rt::test(system = "PausedSystem")]
async fn after_an_upgrade_or_a_new_model_every_note_is_embedded_newest_first_never_mixed() {
    // Notes from before: one with a vector of another model (another length), the
    // others with none (an upgrade from a release without vectors).
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<String> = {
        let mut store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
        let texts = [
            "Tomato plants in the garden",
            "Invoice for the plumber",
            "Garden tomato compost",
            "Plumber invoice paid",
        ];
        let ids: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(n, text)| {
                let body = NoteBody::parse(text.to_string(), 1000).unwrap();
                let at = t0() - TimeDelta::hours(10 - n as i64);
                store.capture(&body, at).unwrap().id
            })
            .collect();
        // Done before the upgrade: their titles are not asked for again, so the vectors
        // are the background's work (a pending note is embedded just before its title).
        store
            .connection()
            .execute_batch(
                "DELETE FROM pending_jobs;
                 UPDATE notes SET ai_status = 'done', title = body, summary = '';",
            )
            .unwrap();
        let old = NoteVector {
            note_id: ids[0].clone(),
            body: texts[0].into(),
            vector: vec![1.0, 0.0, 0.0],
        };
        assert_eq!(store.save_vectors("old-embed", &[old], t0()).unwrap(), 1);
        ids
    };
    let p = Pipeline::start_with(FakeOllama::start_new().await, dir, &[]).await;
    p.settle().await;
    assert_eq!(p.fake.calls().len(), 0, "no title asked for");
    let stored = vectors(&p);
    assert_eq!(stored.len(), 4);
    assert!(
        stored
            .iter()
            .all(|(_, model, dims)| model == "embeddinggemma" && *dims == 64),
        "{stored:?}"
    );
    let embedded: Vec<String> = p
        .fake
        .embed_calls()
        .iter()
        .flat_map(crate::fake_ollama::fake_embeddings::inputs_of)
        .collect();
    assert_eq!(
        embedded[0], "Plumber invoice paid",
        "newest first: {embedded:?}"
    );
    assert_eq!(related(&p, &ids[0]).await, (vec![ids[2].clone()], true));
    assert_eq!(related(&p, &ids[1]).await, (vec![ids[3].clone()], true));
}

#[actix_rt::test(system = "PausedSystem")]
async fn notes_imported_as_done_get_their_vectors_too() {
    let p = Pipeline::start(&[]).await;
    let at = inkling::domain::timestamp(t0());
    let done = |body: &str| inkling::domain::Note {
        id: String::new(),
        body: body.into(),
        title: Some(body.into()),
        summary: Some(String::new()),
        tags: Vec::new(),
        ai_status: inkling::domain::AiStatus::Done,
        ai_error: None,
        created_at: at.clone(),
        updated_at: at.clone(),
        edited_at: None,
        remind_at: None,
        remind_state: None,
        kind: inkling::domain::NoteKind::Note,
        imported_at: None,
        remind_suggested_at: None,
        remind_suggestion_dismissed: false,
        opened_at: None,
        deleted_at: None,
        kept_at: None,
        title_set_by_user: false,
        tags_set_by_user: false,
        ai_read_chars: None,
    };
    let notes = vec![
        done("Invoice for the plumber"),
        done("Plumber invoice paid"),
    ];
    let imported = p.run(p.services.inbox.import(notes)).await.unwrap();
    p.settle().await;
    assert_eq!(p.fake.calls().len(), 0, "no title asked for");
    assert_eq!(vectors(&p).len(), 2);
    let first = imported.notes[0].id.clone();
    assert_eq!(
        related(&p, &first).await,
        (vec![imported.notes[1].id.clone()], true)
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_ticked_checklist_keeps_its_title_and_gets_its_vector_again() {
    let p = Pipeline::start(&[]).await;
    let list = p
        .capture("Garden shopping\n- [ ] tomato seeds\n- [ ] compost")
        .await;
    let garden = p.capture("Tomato seeds and compost for the garden").await;
    p.settle().await;
    assert_eq!(vectors(&p).len(), 2);
    let chats = p.fake.calls().len();

    // A tick keeps the AI's answer (no model asked), but the body changed: its vector
    // went with the old body and is made again.
    p.run(p.services.inbox.tick_task(list.clone(), 0, true))
        .await
        .unwrap();
    p.settle().await;
    assert_eq!(p.fake.calls().len(), chats, "no title asked for");
    assert_eq!(vectors(&p).len(), 2, "the ticked note has its vector again");
    let last = p.fake.embed_calls().last().cloned().unwrap();
    assert_eq!(
        last["input"],
        serde_json::json!(["Garden shopping\n- [x] tomato seeds\n- [ ] compost"])
    );
    assert_eq!(related(&p, &list).await, (vec![garden], true));
}
