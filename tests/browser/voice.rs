//! A voice note recorded on the page (docs/DESIGN.md, "Voice notes"), in Chromium with
//! a fake microphone that plays a WAV file made here (a tone): the button records and
//! shows the time, stop sends the recording at once, the card says its words are on
//! their way while the speech-to-text server is down, then shows the words (Hangul, as
//! the fake server writes them) once it is back, and the note is titled. The page is
//! checked with axe while recording and after.

use serde_json::Value;

use crate::fake_whisper::{tone_wav, FakeWhisper, Reply};
use crate::harness::start_with_browser_args;

#[actix_rt::test]
async fn a_note_recorded_on_the_page_is_sent_then_transcribed_then_titled() {
    let mut whisper = FakeWhisper::start_new().await;
    whisper.push(&[Reply::Words("금요일까지 보고서 보내기".into())]);
    let url = whisper.url();
    let microphone = tempfile::tempdir().unwrap();
    let wav = microphone.path().join("tone.wav");
    std::fs::write(&wav, tone_wav(3000)).unwrap();
    let browser = start_with_browser_args(
        &[("INKLING_TRANSCRIPTION__URL", &url)],
        &[
            "--use-fake-ui-for-media-stream".into(),
            "--use-fake-device-for-media-stream".into(),
            format!("--use-file-for-fake-audio-capture={}", wav.display()),
            "--autoplay-policy=no-user-gesture-required".into(),
        ],
    )
    .await;
    browser.open_inbox().await;
    // The server down: the note must wait, said on its card, nothing lost.
    whisper.stop();

    browser.click("#capture-voice").await;
    browser
        .wait_until(
            "the recording's time is shown",
            "document.getElementById('voice-time').textContent.includes('0:01')",
        )
        .await;
    assert_eq!(
        browser
            .eval("return document.getElementById('capture-voice').getAttribute('aria-pressed');")
            .await,
        Value::from("true")
    );
    browser.assert_accessible("while recording").await;
    browser.click("#capture-voice").await;
    browser
        .wait_until(
            "the pending voice note is listed",
            "[...document.querySelectorAll('#notes .note')].some(n => n.textContent.includes('turning it into words'))",
        )
        .await;
    browser
        .wait_until(
            "the page says the server is away and the note waits",
            "document.getElementById('voice-time').textContent.includes(\"isn't answering\")",
        )
        .await;
    let notes = browser.api("GET", "/api/notes", None).await;
    let id = notes[0]["id"].as_str().expect("the voice note").to_string();
    assert_eq!(notes[0]["body"], "");
    assert_eq!(notes[0]["ai_status"], "pending");

    // Back: its words, then its title.
    whisper.start().await;
    browser
        .wait_until(
            "the words are on the card",
            "[...document.querySelectorAll('#notes .note')].some(n => n.textContent.includes('금요일까지 보고서 보내기'))",
        )
        .await;
    let note = browser
        .wait_for_api("titled", &format!("/api/notes/{id}"), |note| {
            note["ai_status"] == "done"
        })
        .await;
    assert!(
        note["title"]
            .as_str()
            .is_some_and(|t| t.contains("금요일까지")),
        "{note}"
    );
    // What the page sent: a 16 kHz mono 16-bit WAV with a few seconds in it.
    let call = &whisper.calls()[0];
    let file = call.file().expect("the recording");
    assert_eq!(file.content_type.as_deref(), Some("audio/wav"));
    let data = &file.data;
    assert_eq!(&data[0..4], b"RIFF");
    assert_eq!(&data[8..12], b"WAVE");
    assert_eq!(
        u32::from_le_bytes([data[24], data[25], data[26], data[27]]),
        16_000
    );
    assert_eq!(u16::from_le_bytes([data[22], data[23]]), 1, "mono");
    assert!(
        data.len() > 44 + 16_000,
        "at least half a second: {} bytes",
        data.len()
    );
    browser.assert_accessible("after the voice note").await;
}
