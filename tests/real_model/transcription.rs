//! Speech to text with the real model (issue #40): whisper.cpp's `whisper-server` running
//! Whisper base, given recordings espeak-ng spoke, answers OpenAI's
//! `POST /v1/audio/transcriptions` the way inkling's transcription provider relies on
//! (docs/PLATFORM.md, "Speech-to-text servers"): an English recording comes back as its
//! words; a Korean one in Hangul, not romanised, when the language is named; what is
//! not audio is refused with 400.

use crate::ports::free_port;
use crate::speech::{hangul_share, speak, ENGLISH, KOREAN};
use crate::tools::SpeechTools;
use crate::whisper::{post, transcribe, WhisperServer, TRANSCRIPTIONS};

/// The lowercase words of `text`, punctuation dropped.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[tokio::test]
async fn an_english_recording_comes_back_as_its_words() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let tools = SpeechTools::from_environment();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("whisper-server.log");
    let server = WhisperServer::start(&tools, free_port(), &log, &["-l", "auto"]).await;
    let wav = std::fs::read(speak(ENGLISH, dir.path(), "english")).expect("the recording");

    // As an OpenAI client sends it: `model` too, which whisper-server ignores.
    let reply = transcribe(server.port, "note.wav", &wav, &[("model", "whisper-1")]);
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.content_type, "application/json", "{reply:?}");
    let text = reply.text();
    println!("English transcript: {text:?}");
    // Whisper's text starts with a space and ends with a line break: the provider trims.
    assert_ne!(text.trim(), text, "{text:?}");
    let heard = words(&text);
    let said = words(ENGLISH.text);
    let found = said.iter().filter(|w| heard.contains(w)).count();
    assert!(
        found * 10 >= said.len() * 8,
        "at least 80% of {said:?} heard, got {heard:?}"
    );
    for word in ["milk", "bread", "home"] {
        assert!(heard.iter().any(|w| w == word), "{word} in {heard:?}");
    }

    // `response_format=text`: the bare text (served as text/html, sic).
    let reply = transcribe(
        server.port,
        "note.wav",
        &wav,
        &[("response_format", "text")],
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(reply.content_type.starts_with("text/"), "{reply:?}");
    assert!(
        words(&reply.body).contains(&"milk".to_string()),
        "{reply:?}"
    );
}

#[tokio::test]
async fn a_korean_recording_comes_back_in_hangul_when_the_language_is_named() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let tools = SpeechTools::from_environment();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("whisper-server.log");
    let server = WhisperServer::start(&tools, free_port(), &log, &["-l", "auto"]).await;
    let wav = std::fs::read(speak(KOREAN, dir.path(), "korean")).expect("the recording");

    // espeak-ng's Korean is robotic: Whisper's own language detection took it for Thai,
    // Japanese or Finnish. Named, the language is what the provider sends: Hangul back.
    let reply = transcribe(server.port, "note.wav", &wav, &[("language", "ko")]);
    assert_eq!(reply.status, 200, "{reply:?}");
    let text = reply.text();
    println!("Korean transcript: {text:?}");
    let share = hangul_share(&text);
    assert!(
        share >= 0.9,
        "written in Hangul, not romanised: {share:.2} of the letters of {text:?}"
    );
    // The robotic voice's words come back near, not exact ("감사합니당", "감사하니 다"
    // in two runs): the first syllables of "thank you" are what is stable.
    assert!(
        text.contains("감사"),
        "\"thank you\" (감사합니다) heard in {text:?}"
    );
}

#[tokio::test]
async fn what_is_not_a_recording_is_refused_with_400() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let tools = SpeechTools::from_environment();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("whisper-server.log");
    let server = WhisperServer::start(&tools, free_port(), &log, &[]).await;

    // Bytes no decoder reads (as a browser's WebM/Opus is, to this build: it decodes
    // WAV, MP3, FLAC and Ogg Vorbis), an empty file, a form without the file, JSON.
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for (what, reply) in [
        ("noise", transcribe(server.port, "note.webm", &noise, &[])),
        ("an empty file", transcribe(server.port, "note.wav", &[], &[])),
        (
            "no file part",
            post(
                server.port,
                TRANSCRIPTIONS,
                None,
                "multipart/form-data; boundary=b",
                b"--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b--\r\n",
            ),
        ),
        (
            "JSON",
            post(server.port, TRANSCRIPTIONS, None, "application/json", b"{}"),
        ),
    ] {
        assert_eq!(reply.status, 400, "{what}: {reply:?}");
        // Not OpenAI's JSON error: the server's error handler answers in plain text.
        assert_eq!(reply.content_type, "text/plain", "{what}: {reply:?}");
        assert_eq!(reply.body, "Invalid request", "{what}: {reply:?}");
    }
}
