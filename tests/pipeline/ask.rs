//! A person's question against the background work (docs/DESIGN.md, "Ask your
//! notes"), on virtual time: it waits for the note's call in flight (not cancelled),
//! goes before the next note, the background resumes after it, and its model time is
//! accounted. The rule itself is unit-tested on the core (`core/ask.rs`).

use std::time::Duration;

use inkling::ai::ask::{AskEnd, AskUpdate};
use inkling::api::ask::Question;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

/// Reads the answer's updates to their end, without letting the runtime idle.
async fn answer(
    p: &Pipeline,
    updates: &mut tokio::sync::mpsc::Receiver<AskUpdate>,
) -> (String, AskEnd) {
    let mut text = String::new();
    loop {
        match p.run(updates.recv()).await {
            Some(AskUpdate::Given(_)) => {}
            Some(AskUpdate::Piece(piece)) => text.push_str(&piece),
            Some(AskUpdate::End(end)) => return (text, end),
            None => panic!("the answer's channel closed with no end"),
        }
    }
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_question_waits_for_the_call_in_flight_goes_before_the_next_note_and_the_work_resumes() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::OkAfterSeconds(10));
    let water = p.capture("Water the tomato plants on Sunday morning").await;
    p.settle_until("the first note's call", |p| p.fake.calls().len() == 1)
        .await;
    let compost = p.capture("Buy compost for the tomato bed").await;
    p.settle().await;

    // The notes come at once, while the model is busy with the first note.
    let question = Question::parse("When do I water the tomato plants?").unwrap();
    let asked = p
        .run(p.services.inbox.ask(question, None, false))
        .await
        .expect("the notes are read");
    let ids: Vec<&str> = asked.notes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, [water.as_str(), compost.as_str()]);
    let mut updates = asked.updates.expect("the model is asked");
    p.settle().await;
    let answers = p.fake.answers();
    assert!(
        answers.calls().is_empty(),
        "the call in flight is waited for"
    );
    assert_eq!(p.fake.held_calls(), 1, "and not cancelled");

    // The note's call ends at 10 s: the question runs next, before the second note.
    answers.set_pace_seconds(2);
    p.advance(Duration::from_secs(10)).await;
    p.settle_until("the question asked", |_| answers.calls().len() == 1)
        .await;
    assert_eq!(
        answers.calls()[0].calls_before,
        1,
        "only the first note before it"
    );
    assert_eq!(p.note(&water).status, "done");
    // While the answer streams (2 s a piece), the second note waits.
    p.advance(Duration::from_secs(2)).await;
    assert_eq!(p.fake.calls().len(), 1, "no note's call beside the answer");
    p.advance(Duration::from_secs(2)).await;
    let (text, end) = answer(&p, &mut updates).await;
    assert_eq!(text, "From your notes: water them on Sunday [1].");
    assert_eq!(end, AskEnd::Answered);

    // The background resumes after it.
    p.settle_until("the second note's call", |p| p.fake.calls().len() == 2)
        .await;
    p.advance(Duration::from_secs(10)).await;
    assert_eq!(p.note(&compost).status, "done");
    // The answer's model time is accounted: 4 s of streaming after its turn came.
    let asked: u64 = p
        .events_of("ai_model_time")
        .iter()
        .filter(|e| e["use"] == "asked")
        .map(|e| e["ms"].as_u64().unwrap())
        .sum();
    assert_eq!(asked, 4_000);
}

#[actix_rt::test(system = "PausedSystem")]
async fn hanging_up_while_waiting_drops_the_question_and_nothing_is_asked() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::OkAfterSeconds(10));
    p.capture("Water the tomato plants on Sunday morning").await;
    p.settle_until("the note's call", |p| p.fake.calls().len() == 1)
        .await;
    p.capture("Buy compost for the tomato bed").await;
    let question = Question::parse("tomato").unwrap();
    let asked = p
        .run(p.services.inbox.ask(question, None, false))
        .await
        .unwrap();
    drop(asked.updates);
    p.advance(Duration::from_secs(10)).await;
    // The second note's call is the barrier: a question still waiting would have gone
    // before it.
    p.settle_until("the second note's call", |p| p.fake.calls().len() == 2)
        .await;
    assert!(p.fake.answers().calls().is_empty());
}

/// Before: an answer went on for as long as the model server wrote (issue #43 point 1,
/// a server that ignored the token limit streamed for ever); the notes waited behind
/// it. Now it is cut at the first piece's wait and five minutes after it (420 s with
/// the default deadline), said as `too_long`, the model's stream dropped.
#[actix_rt::test(system = "PausedSystem")]
async fn an_answer_that_never_ends_is_cut_at_its_time_and_the_notes_go_on() {
    let p = Pipeline::start(&[]).await;
    let water = p.capture("Water the tomato plants on Sunday morning").await;
    p.settle().await;
    assert_eq!(p.note(&water).status, "done");
    let answers = p.fake.answers();
    answers.set_endless(Some("and water "), usize::MAX);
    answers.set_pace_seconds(10);

    let question = Question::parse("When do I water the tomato plants?").unwrap();
    let asked = p
        .run(p.services.inbox.ask(question, None, false))
        .await
        .unwrap();
    let mut updates = asked.updates.expect("the model is asked");
    // The person reads as the pieces come.
    let read = std::rc::Rc::new(std::cell::RefCell::new((String::new(), None)));
    let reading = read.clone();
    actix_rt::spawn(async move {
        while let Some(update) = updates.recv().await {
            match update {
                AskUpdate::Given(_) => {}
                AskUpdate::Piece(piece) => reading.borrow_mut().0.push_str(&piece),
                AskUpdate::End(end) => reading.borrow_mut().1 = Some(end),
            }
        }
    });
    p.settle_until("the question asked", |_| answers.calls().len() == 1)
        .await;
    let compost = p.capture("Buy compost for the tomato bed").await;
    for _ in 0..41 {
        p.advance(Duration::from_secs(10)).await;
    }
    assert_eq!(answers.open(), 1, "still answering at 410 s");
    assert_eq!(p.fake.calls().len(), 1, "the new note waits for the answer");
    // (A timer fires on the millisecond after its deadline.)
    p.advance(Duration::from_secs(11)).await;
    p.settle_until("the answer's end", |_| read.borrow().1.is_some())
        .await;
    // The fake model notices at its next write that nobody listens any more.
    p.advance(Duration::from_secs(10)).await;
    p.settle_until("the answer's stream dropped", |_| answers.open() == 0)
        .await;
    assert_eq!(answers.dropped(), 1);
    let (text, end) = read.borrow().clone();
    assert!(
        text.starts_with("From your notes: water them on Sunday [1].and water "),
        "{text}"
    );
    match end {
        Some(AskEnd::NotAnswered { reason, detail }) => {
            assert_eq!(reason, inkling::api::ask::NoAnswer::TooLong);
            assert!(detail.contains("longer than 420 s"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    p.settle_until("the new note's call", |p| p.fake.calls().len() == 2)
        .await;
    p.settle().await;
    assert_eq!(p.note(&compost).status, "done");
}
