//! `GET /api/search` and `inkling search` (docs/DESIGN.md, "Hybrid search"), against
//! a fake Ollama whose embeddings are bag-of-words vectors with a few synonyms
//! ("automobile" read as "car"), so what a search finds by meaning is known; and with
//! no model at all, where a search finds by words and says so in one line.

use serde_json::{json, Value};

use crate::desktop::fake_on_a_thread_with;
use crate::eventually::eventually;
use crate::fake_ollama::{FakeOllama, Reply};
use crate::helpers::{free_port, spawn_app, spawn_app_with, ServiceProcess, TestApp};

async fn capture(app: &TestApp, body: &str) -> String {
    let (status, note) = app.post_json("/api/notes", &json!({ "body": body })).await;
    assert_eq!(status, 201, "{note}");
    note["id"].as_str().unwrap().to_string()
}

/// The answer to `path` once `hits` hits are there and every one is found by its
/// meaning too (a note captured a moment ago is found by its words alone until its
/// vector is made, one note at a time, just before its title).
async fn once_by_meaning(app: &TestApp, path: &str, hits: usize) -> Value {
    eventually("every hit found by meaning", || async {
        let (status, body) = app.get(path).await;
        assert_eq!(status, 200, "{body}");
        let found = body["hits"].as_array().unwrap();
        (found.len() == hits && found.iter().all(|hit| hit["found_by"] != "words")).then_some(body)
    })
    .await
}

#[actix_rt::test]
async fn a_search_answers_the_words_hits_and_the_meanings_merged_each_saying_what_found_it() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    let car = capture(&app, "Take the car to the garage Friday").await;
    let insurance = capture(&app, "Automobile insurance renewal").await;
    capture(&app, "Tomato soup recipe").await;

    let answer = once_by_meaning(&app, "/api/search?q=automobile", 2).await;
    let hits = answer["hits"].as_array().unwrap();
    let found: Vec<(&str, &str)> = hits
        .iter()
        .map(|h| (h["id"].as_str().unwrap(), h["found_by"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [(insurance.as_str(), "both"), (car.as_str(), "meaning")],
        "{answer}"
    );
    // A hit is a note as every answer carries it, with its snippet: the words marked,
    // or for the meaning's hit the start of its body.
    assert_eq!(
        hits[0]["snippet"][0],
        json!({ "text": "Automobile", "matched": true })
    );
    assert_eq!(
        hits[1]["snippet"],
        json!([{ "text": "Take the car to the garage Friday" }])
    );
    assert_eq!(hits[1]["expired"], false);
    assert_eq!(answer["keyword_only"], Value::Null);

    // The filters hold for the meaning's hits too.
    let (_, answer) = app.get("/api/search?q=automobile&status=failed").await;
    assert_eq!(answer, json!({ "hits": [], "keyword_only": null }));
    // The keyword search alone is still `GET /api/notes?q=`.
    let (_, by_words) = app.get("/api/notes?q=automobile").await;
    assert_eq!(by_words.as_array().unwrap().len(), 1, "{by_words}");
}

#[actix_rt::test]
async fn without_a_model_a_search_finds_by_words_and_says_why_in_one_line() {
    // Nothing listens where Ollama should be.
    let app = spawn_app().await;
    let id = capture(&app, "Automobile insurance renewal").await;
    let (status, answer) = app.get("/api/search?q=insurance").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["hits"][0]["id"], id.as_str());
    assert_eq!(answer["hits"][0]["found_by"], "words");
    assert_eq!(answer["keyword_only"]["reason"], "provider_down");
    assert_eq!(
        answer["keyword_only"]["line"],
        "Found by words only: the model server is not answering; meaning comes back with it."
    );
    let (_, trash) = app.get("/api/search?q=insurance&trash=true").await;
    assert_eq!(trash["keyword_only"]["reason"], "trash");
}

#[actix_rt::test]
async fn a_bad_search_is_refused_in_words_and_changes_nothing() {
    let app = spawn_app().await;
    let id = capture(&app, "Soup").await;
    for (query, says) in [
        ("", "empty"),
        ("q=", "empty"),
        ("q=%20", "empty"),
        (&*format!("q={}", "x".repeat(501)), "limit is 500"),
        (&*format!("q=soup&before={id}"), "`before`"),
        ("q=soup&limit=0", "limit"),
        ("q=soup&status=lost", "unknown status"),
        ("q=tomato%00soup", "control character"),
    ] {
        let (status, body) = app.get(&format!("/api/search?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(says), "{query}: {error}");
    }
    let (_, notes) = app.get("/api/notes").await;
    assert_eq!(notes.as_array().unwrap().len(), 1);
}

/// `inkling search`: a hit found by meaning says so; the quiet line goes to standard
/// error, the hits alone to standard output; `--json` is the API's answer.
#[test]
fn inkling_search_marks_a_hit_found_by_meaning_and_says_when_it_found_by_words_only() {
    let (url, _calls) = fake_on_a_thread_with(Reply::Ok, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let service =
        ServiceProcess::start_with(dir.path(), free_port(), &[("INKLING_OLLAMA__URL", &url)]);
    assert!(service
        .cli(&["capture", "Take the car to the garage Friday"])
        .status
        .success());
    let printed = actix_rt::System::new().block_on(eventually("the search by meaning", || {
        let output = service.cli(&["search", "automobile"]);
        async move {
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            (output.status.success() && stderr.is_empty() && stdout.contains("garage"))
                .then_some(stdout)
        }
    }));
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 2, "{printed}");
    assert_eq!(
        lines[1],
        "    (by meaning) Take the car to the garage Friday"
    );

    let output = service.cli(&["--json", "search", "automobile"]);
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["hits"][0]["found_by"], "meaning");

    let plain = tempfile::tempdir().unwrap();
    let alone = ServiceProcess::start(plain.path(), free_port());
    assert!(alone
        .cli(&["capture", "Automobile insurance"])
        .status
        .success());
    let output = alone.cli(&["search", "insurance"]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim(),
        "Found by words only: the model server is not answering; meaning comes back with it."
    );
}

#[test]
fn a_search_cut_by_its_limit_says_so_on_standard_error() {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    for body in ["tomato soup", "tomato seedlings", "tomato sauce"] {
        assert!(service.cli(&["capture", body]).status.success());
    }
    let cut = service.cli(&["search", "tomato", "--limit", "2"]);
    assert!(cut.status.success(), "{}", text(&cut.stderr));
    assert_eq!(
        text(&cut.stdout)
            .lines()
            .filter(|l| !l.starts_with(' '))
            .count(),
        2
    );
    assert!(
        text(&cut.stderr).contains("the best 2 shown; more notes match"),
        "{}",
        text(&cut.stderr)
    );
    let whole = service.cli(&["search", "tomato", "--limit", "3"]);
    assert_eq!(
        text(&whole.stdout)
            .lines()
            .filter(|l| !l.starts_with(' '))
            .count(),
        3
    );
    assert!(
        !text(&whole.stderr).contains("more notes match"),
        "{}",
        text(&whole.stderr)
    );
}
