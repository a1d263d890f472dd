//! Editing as the worker sees it (docs/DESIGN.md, "Editing"): a body edited while the
//! AI reads it gets a fresh answer, never the stale one; a title or tags the user set
//! stay the user's; the prompt carries the tags in use and answers take their spelling.
//! Two checklist ticks at once: the one made from a body that changed meanwhile is
//! refused, never written over the other.

use std::time::Duration;

use inkling::actors::repository::GetNote;
use inkling::domain::{AiStatus, Note, NoteEdit};
use serde_json::json;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

fn edit(body: Option<&str>, title: Option<&str>, tags: Option<&[&str]>) -> NoteEdit {
    NoteEdit::parse(
        body.map(String::from),
        title.map(String::from),
        tags.map(|tags| tags.iter().map(|t| t.to_string()).collect()),
        65536,
    )
    .unwrap()
}

async fn note(p: &Pipeline, id: &str) -> Note {
    p.ask(&p.services.repository, GetNote { id: id.into() })
        .await
        .unwrap()
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_body_edited_while_the_ai_reads_it_gets_an_answer_for_the_new_body_only() {
    let p = Pipeline::start(&[]).await;
    p.fake.push(&[Reply::OkAfterSeconds(5)]);
    let id = p.capture("first draft").await;
    p.settle_until("the slow call is made", |p| p.fake.calls().len() == 1)
        .await;

    let edited = p
        .run(
            p.services
                .inbox
                .edit(id.clone(), edit(Some("second draft"), None, None)),
        )
        .await
        .unwrap();
    assert_eq!(edited.ai_status, AiStatus::Pending);

    // The answer about "first draft" comes in after the edit: it is not saved, and the
    // note's new job runs.
    tokio::time::advance(Duration::from_secs(5)).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    p.settle().await;
    assert_eq!(p.asked(), ["first draft", "second draft"]);
    let note = note(&p, &id).await;
    assert_eq!(note.title.as_deref(), Some("About: second draft"));
    assert_eq!(note.body, "second draft");
    assert_eq!(p.invariant_violations(), Vec::<String>::new());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_title_and_tags_the_user_set_stay_and_new_tags_take_the_spelling_in_use() {
    let p = Pipeline::start(&[]).await;
    let a = p.capture("notes on neural networks").await;
    p.settle_until("a done", |p| p.note(&a).status == "done")
        .await;

    let mine = edit(None, Some("My ML notes"), Some(&["Machine Learning"]));
    let edited = p.run(p.services.inbox.edit(a.clone(), mine)).await.unwrap();
    assert_eq!(
        edited.ai_status,
        AiStatus::Done,
        "no body change: no new AI"
    );
    assert!(edited.title_set_by_user && edited.tags_set_by_user);

    // The body changes: the AI runs again, and keeps off the user's title and tags.
    p.fake.set_tags(&["Machine-Learning", "ideas"]);
    let body = edit(Some("notes on neural networks, revised"), None, None);
    p.run(p.services.inbox.edit(a.clone(), body)).await.unwrap();
    p.settle_until("a done again", |p| p.note(&a).status == "done")
        .await;
    let note_a = note(&p, &a).await;
    assert_eq!(note_a.title.as_deref(), Some("My ML notes"));
    assert_eq!(note_a.tags, ["machine learning"]);
    assert_eq!(
        note_a.summary.as_deref(),
        Some("A note the fake model read.")
    );

    // Another note on the topic: the prompt offers the tags in use that its text
    // supports, and "Machine-Learning" is stored as the existing "machine learning".
    let b = p.capture("gradient descent in machine learning").await;
    p.settle_until("b done", |p| p.note(&b).status == "done")
        .await;
    assert_eq!(note(&p, &b).await.tags, ["machine learning", "ideas"]);
    let calls = p.fake.calls();
    let prompt = calls.last().unwrap().request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(prompt.contains(r#"["machine learning"]"#), "{prompt}");

    p.settle().await;
    assert_eq!(
        p.events_of("note_edited"),
        [
            json!({ "body": false, "title": true, "tags": true }),
            json!({ "body": true, "title": false, "tags": false }),
        ]
    );
    assert_eq!(p.invariant_violations(), Vec::<String>::new());
}

#[actix_rt::test(system = "PausedSystem")]
async fn two_ticks_at_once_from_the_same_body_one_goes_through_the_other_is_refused_not_lost() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("- [ ] milk\n- [ ] eggs").await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;

    // Two windows tick at once: both read the body before either writes. Made so
    // here rather than raced (two whole ticks joined ran the second read after the
    // first write on a loaded machine, and then both rightly went through): each
    // window's edit is made from the same body it read.
    let inbox = &p.services.inbox;
    let read = note(&p, &id).await.body;
    let tick = |index| {
        let body = inkling::render::set_task(&read, index, true)
            .expect("a task")
            .expect("a change");
        inkling::domain::NoteEdit::parse(Some(body), None, None, 65536)
            .expect("an edit")
            .made_from(read.clone())
    };
    let milk = p
        .run(inbox.edit(id.clone(), tick(0)))
        .await
        .expect("the first edit goes through");
    assert_eq!(milk.body, "- [x] milk\n- [ ] eggs");
    let eggs = p.run(inbox.edit(id.clone(), tick(1))).await;
    assert!(
        matches!(&eggs, Err(inkling::storage::StoreError::Conflict(_))),
        "the second was made from a body that changed meanwhile: {eggs:?}"
    );
    assert_eq!(
        note(&p, &id).await.body,
        "- [x] milk\n- [ ] eggs",
        "the first tick is not overwritten"
    );

    // Tried again, from the body as it is now, it goes through: both stay ticked.
    let eggs = p
        .run(inbox.tick_task(id.clone(), 1, true))
        .await
        .expect("ticked from the current body");
    assert_eq!(eggs.body, "- [x] milk\n- [x] eggs");
    assert_eq!(p.invariant_violations(), Vec::<String>::new());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_tick_keeps_the_ais_answer_and_asks_no_model_but_a_changed_word_does() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("Shopping\n- [ ] milk\n- [ ] eggs").await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    let answered = note(&p, &id).await;
    let calls = p.fake.calls().len();

    let inbox = &p.services.inbox;
    let ticked = p
        .run(inbox.tick_task(id.clone(), 0, true))
        .await
        .expect("ticked");
    p.settle().await;
    assert_eq!(ticked.body, "Shopping\n- [x] milk\n- [ ] eggs");
    let now = note(&p, &id).await;
    assert_eq!(
        (now.ai_status, &now.title, &now.tags, &now.summary),
        (
            answered.ai_status,
            &answered.title,
            &answered.tags,
            &answered.summary
        ),
        "the AI's answer stands"
    );
    assert_eq!(p.fake.calls().len(), calls, "no model asked");
    assert_eq!(p.note(&id).job, None, "no job");

    // A word changed is another note to the AI: asked again.
    let edit = inkling::domain::NoteEdit::parse(
        Some("Shopping\n- [x] milk\n- [ ] bread".into()),
        None,
        None,
        65536,
    )
    .unwrap();
    p.run(inbox.edit(id.clone(), edit)).await.expect("edited");
    p.settle_until("done again", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(p.fake.calls().len(), calls + 1);
    assert_eq!(p.invariant_violations(), Vec::<String>::new());
}
