//! Voice notes over HTTP and the CLI (docs/API.md, "Voice notes"): `POST
//! /api/notes/voice` stores a recording durably and answers 201 with the pending note,
//! refuses a wrong type (415), an empty body (400) and a recording past its limit
//! (413) with nothing stored; `GET /api/transcription` says whether voice notes are on;
//! `inkling capture --audio FILE` sends one, and the words come back in Hangul as the
//! fake speech-to-text server wrote them.

use std::time::Duration;

use serde_json::Value;

use crate::desktop::fake_on_a_thread_with;
use crate::eventually::eventually;
use crate::fake_ollama::Reply as ChatReply;
use crate::fake_whisper::{tone_wav, FakeWhisper, Reply};
use crate::helpers::{free_port, spawn_app_with, ServiceProcess, TestApp};

/// The recordings stored in the app's data dir.
fn recordings(app: &TestApp) -> usize {
    std::fs::read_dir(app.data_dir.path().join("voice")).map_or(0, |dir| dir.count())
}

#[actix_rt::test]
async fn a_recording_is_stored_at_once_then_its_words_become_the_body() {
    let whisper = FakeWhisper::start_new().await;
    whisper.push(&[Reply::Words("금요일까지 보고서 보내기".into())]);
    let app = spawn_app_with(&[
        ("INKLING_TRANSCRIPTION__URL", &whisper.url()),
        ("INKLING_TRANSCRIPTION__LANGUAGE", "ko"),
    ])
    .await;
    let (status, note) = app
        .post_raw("/api/notes/voice", "audio/wav", tone_wav(400))
        .await;
    assert_eq!(status, 201, "{note}");
    assert_eq!(note["ai_status"], "pending");
    assert_eq!(note["body"], "");
    let id = note["id"].as_str().unwrap().to_string();
    assert_eq!(recordings(&app), 1, "the recording is on the disk");
    let body = eventually("the words", || async {
        let note = app.note(&id).await;
        let body = note["body"].as_str().unwrap_or_default().to_string();
        (!body.is_empty()).then_some(body)
    })
    .await;
    assert_eq!(body, "금요일까지 보고서 보내기");
    assert_eq!(whisper.calls()[0].field("language").as_deref(), Some("ko"));
    let (status, voice) = app.get("/api/transcription").await;
    assert_eq!(status, 200);
    assert_eq!(voice["enabled"], true);
    assert_eq!(voice["health"]["state"], "ready", "{voice}");
}

#[actix_rt::test]
async fn a_wrong_type_an_empty_body_or_too_big_a_recording_stores_nothing() {
    let whisper = FakeWhisper::start_new().await;
    let app = spawn_app_with(&[
        ("INKLING_TRANSCRIPTION__URL", &whisper.url()),
        ("INKLING_TRANSCRIPTION__MAX_AUDIO_BYTES", "2000"),
    ])
    .await;
    let (status, refused) = app
        .post_raw("/api/notes/voice", "text/plain", b"hello".to_vec())
        .await;
    assert_eq!(status, 415, "{refused}");
    let words = refused["error"].as_str().unwrap();
    assert!(
        words.contains("audio/wav") && words.contains("text/plain"),
        "{words}"
    );
    let (status, refused) = app
        .post_raw("/api/notes/voice", "audio/wav", Vec::new())
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("empty"));
    let (status, refused) = app
        .post_raw("/api/notes/voice", "audio/wav", tone_wav(1000))
        .await;
    assert_eq!(status, 413, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("transcription.max_audio_bytes"),
        "{refused}"
    );
    assert_eq!(app.note_count_in_db(), 0);
    assert_eq!(recordings(&app), 0);
    assert!(whisper.calls().is_empty());
}

#[actix_rt::test]
async fn with_voice_notes_off_nothing_is_stored_and_the_answer_says_how_to_turn_them_on() {
    let app = spawn_app_with(&[]).await;
    let (status, refused) = app
        .post_raw("/api/notes/voice", "audio/wav", tone_wav(100))
        .await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("[transcription] url"),
        "{refused}"
    );
    assert_eq!(app.note_count_in_db(), 0);
    let (status, voice) = app.get("/api/transcription").await;
    assert_eq!(status, 200);
    assert_eq!(voice["enabled"], false);
}

/// The fake speech-to-text server on a thread of its own (for the real binary's tests).
fn whisper_on_a_thread(replies: Vec<Reply>) -> String {
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_rt::System::new().block_on(async move {
            let whisper = FakeWhisper::start_new().await;
            whisper.push(&replies);
            url_tx.send(whisper.url()).unwrap();
            loop {
                actix_rt::time::sleep(Duration::from_secs(3600)).await;
            }
        });
    });
    url_rx.recv().unwrap()
}

#[test]
fn inkling_capture_audio_sends_a_recording_and_the_note_is_transcribed_then_titled() {
    let whisper = whisper_on_a_thread(vec![Reply::Words("우유랑 빵 사기".into())]);
    let (ollama, _calls) = fake_on_a_thread_with(ChatReply::Ok, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with(
        dir.path(),
        port,
        &[
            ("INKLING_OLLAMA__URL", &ollama),
            ("INKLING_TRANSCRIPTION__URL", &whisper),
        ],
    );
    let recording = dir.path().join("memo.wav");
    std::fs::write(&recording, tone_wav(300)).unwrap();
    let captured = service.cli(&["--json", "capture", "--audio", recording.to_str().unwrap()]);
    assert!(
        captured.status.success(),
        "{}",
        String::from_utf8_lossy(&captured.stderr)
    );
    let note: Value = serde_json::from_slice(&captured.stdout).unwrap();
    let id = note["id"].as_str().unwrap().to_string();
    let shown = actix_rt::System::new().block_on(eventually("transcribed and titled", || {
        let output = service.cli(&["--json", "show", &id]);
        async move {
            let note: Value = serde_json::from_slice(&output.stdout).ok()?;
            (note["ai_status"] == "done").then_some(note)
        }
    }));
    assert_eq!(shown["body"], "우유랑 빵 사기");
    assert!(shown["title"].is_string(), "{shown}");
    let status = String::from_utf8_lossy(&service.cli(&["status"]).stdout).into_owned();
    assert!(
        status.contains("voice:  speech-to-text server ready"),
        "{status}"
    );

    // Not a recording: refused before anything is sent.
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "just words").unwrap();
    let refused = service.cli(&["capture", "--audio", text.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a recording"));
}

#[test]
fn inkling_capture_audio_with_voice_notes_off_says_how_to_turn_them_on() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let recording = dir.path().join("memo.wav");
    std::fs::write(&recording, tone_wav(100)).unwrap();
    let refused = service.cli(&["capture", "--audio", recording.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    let words = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(words.contains("[transcription] url"), "{words}");
    let status = String::from_utf8_lossy(&service.cli(&["status"]).stdout).into_owned();
    assert!(status.contains("voice notes are off"), "{status}");
}

#[actix_rt::test]
async fn the_speech_to_text_servers_state_is_asked_afresh_down_loading_ready() {
    let mut whisper = FakeWhisper::start_new().await;
    let app = spawn_app_with(&[("INKLING_TRANSCRIPTION__URL", &whisper.url())]).await;
    whisper.stop();
    let (_, voice) = app.get("/api/transcription").await;
    assert_eq!(voice["health"]["state"], "not_running", "{voice}");
    whisper.set_loading(true);
    whisper.start().await;
    let (_, voice) = app.get("/api/transcription").await;
    assert_eq!(voice["health"]["state"], "loading", "{voice}");
    whisper.set_loading(false);
    let (_, voice) = app.get("/api/transcription").await;
    assert_eq!(voice["health"]["state"], "ready", "{voice}");
}
