//! `POST /api/ask` and `inkling ask` (docs/DESIGN.md, "Ask your notes") against the
//! fake model servers, whose streamed answers the test writes (`fake_answers`): the
//! notes first, the answer after them with its citations checked, the model down or
//! missing, bad questions, a newer question from the same page, a client that hangs up.

use std::time::Duration;

use futures_util::StreamExt;
use inkling::api::ask::{AskEvent, NoAnswer, MAX_QUESTION_CHARS};
use serde_json::{json, Value};

use crate::desktop::fake_on_a_thread_with;
use crate::eventually::eventually;
use crate::fake_ollama::{Answers, FakeOllama, Reply};
use crate::fake_openai::FakeOpenAi;
use crate::helpers::{free_port, spawn_app_with, ServiceProcess, TestApp};

/// An answer being read, an event at a time, as it streams.
struct Asking {
    response: futures_util::stream::LocalBoxStream<
        'static,
        Result<actix_web::web::Bytes, awc::error::PayloadError>,
    >,
    buffer: Vec<u8>,
}

impl Asking {
    /// The next event; `None` when the stream ended. Fails after 10 s of real time.
    async fn next(&mut self) -> Option<AskEvent> {
        loop {
            if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                let line = String::from_utf8(line).unwrap();
                return Some(AskEvent::from_line(&line)?.expect("an event"));
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.response.next())
                .await
                .expect("the answer goes on within 10 s");
            match chunk {
                Some(chunk) => self.buffer.extend_from_slice(&chunk.unwrap()),
                None => return None,
            }
        }
    }

    /// Every event to the stream's end.
    async fn rest(mut self) -> Vec<AskEvent> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}

/// Asks `question` with `bearer` (the token, or a page's access): the status, and the
/// answer's stream when it is 200 (else the refusal's body).
async fn ask_with(app: &TestApp, bearer: &str, question: &str) -> Result<Asking, (u16, Value)> {
    let mut response = awc::Client::new()
        .post(format!("{}/api/ask", app.address))
        .bearer_auth(bearer)
        .send_json(&json!({ "question": question }))
        .await
        .expect("the service answers");
    if response.status() != 200 {
        let body = response.body().await.unwrap();
        return Err((
            response.status().as_u16(),
            serde_json::from_slice(&body).unwrap_or(Value::Null),
        ));
    }
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "application/x-ndjson"
    );
    Ok(Asking {
        response: Box::pin(response),
        buffer: Vec::new(),
    })
}

async fn ask(app: &TestApp, question: &str) -> Asking {
    match ask_with(app, &app.token, question).await {
        Ok(asking) => asking,
        Err(refused) => panic!("refused: {refused:?}"),
    }
}

async fn capture(app: &TestApp, body: &str) -> String {
    let (status, note) = app.post_json("/api/notes", &json!({ "body": body })).await;
    assert_eq!(status, 201, "{note}");
    note["id"].as_str().unwrap().to_string()
}

/// The three notes every test asks about; the watering one is the best match.
async fn garden(app: &TestApp) -> (String, String) {
    let water = capture(app, "Water the tomato plants on Sunday morning").await;
    let compost = capture(app, "Buy compost for the tomato bed").await;
    capture(app, "File the tax return before April").await;
    (water, compost)
}

fn ids(event: &AskEvent) -> Vec<String> {
    match event {
        AskEvent::Notes { notes } => notes.iter().map(|n| n.note.id.clone()).collect(),
        other => panic!("not the notes: {other:?}"),
    }
}

fn answer_text(events: &[AskEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AskEvent::Answer { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn removed(events: &[AskEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AskEvent::Removed { citation } => Some(citation.clone()),
            _ => None,
        })
        .collect()
}

/// The end, `(answered, reason, why)`.
fn done(events: &[AskEvent]) -> (bool, Option<NoAnswer>, Option<String>) {
    match events.last() {
        Some(AskEvent::Done {
            answered,
            reason,
            why,
        }) => (*answered, *reason, why.clone()),
        other => panic!("no end: {other:?} in {events:?}"),
    }
}

/// The notes, the answer after them with its citations of the notes shown, an
/// invented citation taken out and said; the prompt numbered the same notes.
async fn the_notes_then_the_answer_citing_them_only(app: &TestApp, answers: &Answers) {
    let (water, compost) = garden(app).await;
    answers.set_pieces(&[
        "Water them on Sunday [1",
        "], with compost [2] and salt [7",
        "].",
    ]);

    let mut asking = ask(app, "When do I water the tomato plants?").await;
    let notes = asking.next().await.expect("the notes first");
    assert_eq!(ids(&notes), [water.clone(), compost.clone()]);
    let events = asking.rest().await;
    assert_eq!(
        answer_text(&events),
        "Water them on Sunday [1], with compost [2] and salt."
    );
    assert_eq!(removed(&events), ["[7]"]);
    assert_eq!(done(&events), (true, None, None));

    let asked = answers.calls();
    assert_eq!(asked.len(), 1);
    let prompt = asked[0].request["messages"][1]["content"].as_str().unwrap();
    // Numbered in the order shown (each with the title the AI gave it, if any yet).
    let at = |text: &str| {
        prompt
            .find(text)
            .unwrap_or_else(|| panic!("{text} in {prompt}"))
    };
    assert!(at("[1] ") < at("Water the tomato plants on Sunday morning"));
    assert!(at("Water the tomato plants on Sunday morning") < at("[2] "));
    assert!(at("[2] ") < at("Buy compost for the tomato bed"));
    assert!(!prompt.contains("tax"), "only the notes found: {prompt}");
    assert!(prompt.ends_with("Question: When do I water the tomato plants?"));
    assert_eq!(asked[0].request["stream"], true);

    // Nothing was stored: the question and the answer are not notes.
    let (_, list) = app.get("/api/notes").await;
    assert_eq!(list.as_array().unwrap().len(), 3);
}

#[actix_rt::test]
async fn ollama_the_notes_come_at_once_then_the_answer_with_an_invented_citation_removed_and_said()
{
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    the_notes_then_the_answer_citing_them_only(&app, &fake.answers()).await;
}

#[actix_rt::test]
async fn openai_the_notes_come_at_once_then_the_answer_with_an_invented_citation_removed_and_said()
{
    let fake = FakeOpenAi::start_new().await;
    let (url, model) = (fake.url(), fake.model());
    let app = spawn_app_with(&[
        ("INKLING_AI__PROVIDER", "openai"),
        ("INKLING_OPENAI__URL", &url),
        ("INKLING_OPENAI__MODEL", &model),
    ])
    .await;
    the_notes_then_the_answer_citing_them_only(&app, &fake.answers()).await;
}

/// Waits until the service has seen the provider's health as `state`.
async fn provider_seen(app: &TestApp, state: &str) {
    eventually(&format!("the provider seen {state}"), || async {
        let (_, status) = app.get("/api/status").await;
        (status["provider"]["state"] == state).then_some(())
    })
    .await;
}

#[actix_rt::test]
async fn with_the_model_down_or_missing_the_notes_come_alone_with_one_plain_line_why() {
    let mut fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    let (water, _) = garden(&app).await;

    fake.set_models(&["embeddinggemma:latest"]);
    app.post_json("/api/ollama/recheck", &json!({})).await;
    provider_seen(&app, "model_missing").await;
    let events = ask(&app, "When do I water the tomato plants?")
        .await
        .rest()
        .await;
    assert_eq!(ids(&events[0])[0], water);
    let (answered, reason, why) = done(&events);
    assert!(!answered);
    assert_eq!(reason, Some(NoAnswer::ModelMissing));
    assert!(why.unwrap().contains("not installed"));
    assert!(answer_text(&events).is_empty());

    fake.stop();
    app.post_json("/api/ollama/recheck", &json!({})).await;
    provider_seen(&app, "not_running").await;
    let events = ask(&app, "tomato").await.rest().await;
    assert_eq!(events.len(), 2, "the notes, then the end: {events:?}");
    let (answered, reason, why) = done(&events);
    assert!(!answered && reason == Some(NoAnswer::ModelDown));
    assert!(why.unwrap().contains("not running"));
    assert!(
        fake.answers().calls().is_empty(),
        "the model was never asked"
    );
}

#[actix_rt::test]
async fn a_question_no_note_matches_says_so_and_asks_no_model() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    garden(&app).await;
    let events = ask(&app, "What about the submarine?").await.rest().await;
    assert_eq!(ids(&events[0]), Vec::<String>::new());
    let (answered, reason, why) = done(&events);
    assert!(!answered && reason == Some(NoAnswer::NoNotes));
    assert!(why.unwrap().contains("No note matches"));
    assert!(fake.answers().calls().is_empty());
}

#[actix_rt::test]
async fn an_empty_or_over_long_question_is_refused_with_a_plain_400_and_nothing_is_asked() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    garden(&app).await;
    let (status, body) = ask_with(&app, &app.token, "   ").await.err().unwrap();
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("the question is empty"),
        "{body}"
    );
    let long = "tomato ".repeat(MAX_QUESTION_CHARS / 7 + 2);
    let (status, body) = ask_with(&app, &app.token, &long).await.err().unwrap();
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("the limit is 1000"),
        "{body}"
    );
    let (status, _) = app
        .post_json("/api/ask", &json!({ "question": "tomato", "x": 1 }))
        .await;
    assert_eq!(status, 400, "an unknown field");
    assert!(fake.answers().calls().is_empty());
}

#[actix_rt::test]
async fn a_client_that_hangs_up_stops_the_models_answer() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    garden(&app).await;
    let answers = fake.answers();
    answers.hold_after(Some(1));
    let mut asking = ask(&app, "tomato").await;
    asking.next().await.expect("the notes");
    assert!(matches!(asking.next().await, Some(AskEvent::Answer { .. })));
    assert_eq!(answers.open(), 1, "the model is still writing");
    drop(asking);
    eventually("the model's answer dropped", || async {
        (answers.open() == 0 && answers.dropped() == 1).then_some(())
    })
    .await;
    // The worker goes on: the next question is answered.
    answers.hold_after(None);
    let events = ask(&app, "tomato").await.rest().await;
    assert!(done(&events).0);
}

#[actix_rt::test]
async fn a_new_question_from_the_same_page_replaces_the_one_streaming() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    garden(&app).await;
    let (id, key) = app.open_page_session().await;
    let access = app.page_access(&id, &key).await.unwrap();
    let answers = fake.answers();
    answers.hold_after(Some(1));

    let mut first = ask_with(&app, &access, "tomato").await.unwrap();
    first.next().await.expect("the notes");
    first.next().await.expect("a piece of the answer");
    answers.hold_after(None);
    let second = ask_with(&app, &access, "compost").await.unwrap();
    let events = first.rest().await;
    let (answered, reason, why) = done(&events);
    assert!(
        !answered && reason == Some(NoAnswer::Replaced),
        "{events:?}"
    );
    assert!(why.unwrap().contains("newer question"));
    let events = second.rest().await;
    assert!(done(&events).0, "{events:?}");
    eventually("the older answer dropped at the model", || async {
        (answers.dropped() == 1 && answers.open() == 0).then_some(())
    })
    .await;
    assert_eq!(answers.calls().len(), 2);
}

#[test]
fn inkling_ask_prints_the_notes_then_the_answer_and_saves_it_only_when_asked() {
    let (url, _calls) = fake_on_a_thread_with(Reply::Ok, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with(dir.path(), port, &[("INKLING_OLLAMA__URL", &url)]);
    let captured = service.cli(&["capture", "Water the tomato plants on Sunday morning"]);
    assert!(captured.status.success());
    let printed = service.cli(&["ask", "When", "do", "I", "water", "the", "tomatoes?"]);
    let out = String::from_utf8_lossy(&printed.stdout).into_owned();
    assert!(printed.status.success(), "{out}");
    assert!(out.starts_with("[1] "), "the notes first: {out}");
    assert!(
        out.contains("\nFrom your notes: water them on Sunday [1].\n"),
        "{out}"
    );
    let listed = service.cli(&["list"]);
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout).lines().count(),
        1,
        "nothing was stored"
    );

    let saved = service.cli(&["ask", "tomato", "--save"]);
    let out = String::from_utf8_lossy(&saved.stdout).into_owned();
    assert!(out.contains("saved as note"), "{out}");
    let listed = service.cli(&["--json", "list"]);
    let notes: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let bodies: Vec<&str> = notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["body"].as_str().unwrap())
        .collect();
    assert!(
        bodies
            .iter()
            .any(|b| b
                .starts_with("Q: tomato\n\nFrom your notes: water them on Sunday [1].\n\n[1] ")),
        "{bodies:?}"
    );
}
