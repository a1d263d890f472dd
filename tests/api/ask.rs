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
    ask_body(app, bearer, json!({ "question": question })).await
}

/// [`ask_with`] of a whole request body (`include_answers`, say).
async fn ask_body(app: &TestApp, bearer: &str, body: Value) -> Result<Asking, (u16, Value)> {
    let mut response = awc::Client::new()
        .post(format!("{}/api/ask", app.address))
        .bearer_auth(bearer)
        .send_json(&body)
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
    assert!(at("<note n=\"1\">") < at("Water the tomato plants on Sunday morning"));
    assert!(at("Water the tomato plants on Sunday morning") < at("<note n=\"2\">"));
    assert!(at("<note n=\"2\">") < at("Buy compost for the tomato bed"));
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
async fn an_answer_that_only_says_the_question_back_ends_as_no_answer_with_its_line() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    garden(&app).await;
    // What SmolLM2-135M-Instruct does with a question it cannot answer from the notes.
    fake.answers()
        .set_pieces(&["Question: when do I water the tomato", " plants? [1]"]);
    let events = ask(&app, "When do I water the tomato plants?")
        .await
        .rest()
        .await;
    let (answered, reason, why) = done(&events);
    assert!(!answered, "{events:?}");
    assert_eq!(reason, Some(NoAnswer::Echoed));
    assert!(why
        .unwrap()
        .contains("said the question or its instructions back"));
}

/// Before (issue #42 point 3): an answer saved as a note came back as sources [1] and
/// [2] of the same question. Now it is stored as an answer and left out of a
/// question's notes, unless the question asks for answers.
#[actix_rt::test]
async fn a_saved_answer_is_not_a_source_of_a_question_unless_it_asks_for_answers() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    let (water, _) = garden(&app).await;
    let body = format!(
        "Q: When do I water the tomato plants?\n\nOn Sunday morning [1].\n\n\
         1. [Water the tomato plants](/?note={water})"
    );
    let (status, saved) = app
        .post_json("/api/notes", &json!({ "body": body, "kind": "answer" }))
        .await;
    assert_eq!(status, 201, "{saved}");
    assert_eq!(saved["kind"], "answer");
    let answer = saved["id"].as_str().unwrap().to_string();
    let shown = app.note(&answer).await;
    assert_eq!(shown["kind"], "answer", "stored as an answer");
    // A note says nothing of its kind.
    let note = app.note(&water).await;
    assert_eq!(note.get("kind"), None);

    let question = "When do I water the tomato plants?";
    let events = ask(&app, question).await.rest().await;
    let sources = ids(&events[0]);
    assert_eq!(sources.first(), Some(&water), "{sources:?}");
    assert!(
        !sources.contains(&answer),
        "the saved answer is a source: {sources:?}"
    );

    let asked = ask_body(
        &app,
        &app.token,
        json!({ "question": question, "include_answers": true }),
    )
    .await
    .expect("asked");
    let sources = ids(&asked.rest().await[0]);
    assert!(sources.contains(&answer), "asked for answers: {sources:?}");
    assert!(sources.contains(&water), "{sources:?}");
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
    // Its notes as links by title, and stored as an answer.
    let saved = notes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["body"]
                .as_str()
                .unwrap()
                .starts_with("Q: tomato\n\nFrom your notes: water them on Sunday [1].\n\n1. [")
        })
        .unwrap_or_else(|| panic!("{bodies:?}"));
    assert!(
        saved["body"].as_str().unwrap().contains("](/?note="),
        "{bodies:?}"
    );
    assert_eq!(saved["kind"], "answer");
    // Asked again, the saved answer is not one of the notes, unless asked for.
    let notes_listed = |args: &[&str]| {
        let printed = service.cli(args);
        let out = String::from_utf8_lossy(&printed.stdout).into_owned();
        assert!(printed.status.success(), "{out}");
        out.lines().take_while(|l| l.starts_with('[')).count()
    };
    assert_eq!(notes_listed(&["ask", "tomato"]), 1);
    assert_eq!(notes_listed(&["ask", "tomato", "--include-answers"]), 2);
    // Asked again, the saved answer is not one of the notes, unless asked for.
    let notes_listed = |args: &[&str]| {
        let printed = service.cli(args);
        let out = String::from_utf8_lossy(&printed.stdout).into_owned();
        assert!(printed.status.success(), "{out}");
        out.lines().take_while(|l| l.starts_with('[')).count()
    };
    assert_eq!(notes_listed(&["ask", "tomato"]), 1);
    assert_eq!(notes_listed(&["ask", "tomato", "--include-answers"]), 2);
}

/// Before (issue #43 point 1): with a model server that streamed for ever and a client
/// that read nothing, the service reached 1.48 GB in 20 s and 5.9 GB at its peak. Now
/// the answer is read from the model only as the client reads it, and cut at its
/// length: the service lets the model go and stays under 50 MB at its peak (the
/// kernel's `VmHWM`), and the client, reading at last, gets the answer's start and why
/// it was cut.
#[test]
fn an_endless_answer_to_a_client_that_reads_nothing_keeps_the_service_under_50_mb() {
    use std::io::{Read, Write};
    let (answers_out, answers_in) = std::sync::mpsc::channel();
    let (url, _calls) = fake_on_a_thread_with(Reply::Ok, move |fake| {
        let answers = fake.answers();
        // 4 KiB a piece, as fast as the socket takes it; at most 1 GiB if the service
        // reads it all (the build before this test).
        answers.set_endless(Some(&"word ".repeat(800)), 1 << 30);
        answers_out.send(answers).unwrap();
    });
    let answers = answers_in.recv().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with(dir.path(), port, &[("INKLING_OLLAMA__URL", &url)]);
    let token = service.token().unwrap();
    let captured = service.cli(&["capture", "Water the tomato plants on Sunday morning"]);
    assert!(captured.status.success());

    let body = json!({ "question": "When do I water the tomatoes?" }).to_string();
    let mut client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        client,
        "POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The client reads nothing until the service has let the model go.
    actix_rt::System::new().block_on(eventually("the model's answer dropped", || async {
        (answers.calls().len() == 1 && answers.open() == 0).then_some(())
    }));
    let sent = answers.sent_bytes();
    assert!(sent < 64 << 20, "the model wrote {sent} bytes");
    let peak = crate::flood::memory_mib(&service, "VmHWM:");
    eprintln!("the model wrote {sent} bytes; the service's peak: {peak} MiB");
    assert!(peak < 50, "the service's peak: {peak} MiB");

    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut received = Vec::new();
    let _ = client.read_to_end(&mut received);
    let received = String::from_utf8_lossy(&received);
    let (head, stream) = received.split_once("\r\n\r\n").expect("an answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let events: Vec<AskEvent> = stream
        .lines()
        .filter_map(|line| AskEvent::from_line(line).and_then(Result::ok))
        .collect();
    let text = answer_text(&events);
    assert!(
        text.starts_with("From your notes: water them on Sunday [1].word word"),
        "{}",
        &text[..text.len().min(80)]
    );
    assert!(text.len() <= 64 << 10, "{} bytes", text.len());
    let (answered, reason, why) = done(&events);
    assert!(!answered && reason == Some(NoAnswer::TooLong), "{reason:?}");
    assert!(why.unwrap().contains("cut"));
}

/// Opens `GET /api/events` (or `POST /api/ask` when `question` is given) on a socket
/// of its own: the socket while it streams, or the status of its refusal.
async fn open_stream(
    app: &TestApp,
    question: Option<&str>,
) -> Result<tokio::net::TcpStream, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let request = match question {
        None => format!(
            "GET /api/events HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\r\n",
            app.token
        ),
        Some(question) => {
            let body = json!({ "question": question }).to_string();
            format!(
                "POST /api/ask HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                app.token,
                body.len()
            )
        }
    };
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    match &head {
        b"HTTP/1.1 200" => Ok(stream),
        other => {
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest).await;
            Err(String::from_utf8_lossy(other).into_owned() + &String::from_utf8_lossy(&rest))
        }
    }
}

/// Before (issue #43 point 1): a streaming answer held its connection uncounted, so
/// answers beside the live feeds could take every slot. Now they share the feeds' cap.
#[actix_rt::test]
async fn a_streaming_answer_is_counted_among_the_live_feeds() {
    use inkling::http::live_feeds::MAX_LIVE_FEEDS;
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    garden(&app).await;
    let answers = fake.answers();
    answers.hold_after(Some(1));

    let mut feeds = Vec::new();
    for _ in 1..MAX_LIVE_FEEDS {
        feeds.push(open_stream(&app, None).await.expect("a feed"));
    }
    let asking = open_stream(&app, Some("tomato")).await.expect("an answer");
    let refused = open_stream(&app, None).await.expect_err("one past the cap");
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(
        refused.contains("live feeds and answers are streaming already"),
        "{refused}"
    );

    // The answer's client hangs up (once its question reached the model, so the count
    // below is of the refused one alone): its place is free again.
    eventually("the question reaches the model", || async {
        (answers.calls().len() == 1).then_some(())
    })
    .await;
    drop(asking);
    let _feed = eventually("the answer's place freed", || async {
        open_stream(&app, None).await.ok()
    })
    .await;
    let refused = open_stream(&app, Some("tomato"))
        .await
        .expect_err("at the cap");
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert_eq!(
        answers.calls().len(),
        1,
        "the refused question asked nothing"
    );
}
