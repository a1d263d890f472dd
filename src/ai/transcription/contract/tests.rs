use std::time::Duration;

use super::*;

fn plan(audio: &[u8], language: Option<&str>) -> TranscribePlan {
    TranscribePlan {
        deadline: Duration::from_secs(30),
        audio: audio.to_vec(),
        format: AudioFormat::Wav,
        language: language.map(String::from),
    }
}

#[test]
fn the_form_carries_the_file_the_model_the_language_and_json() {
    let form = transcription_form(&plan(b"RIFF-audio", Some("ko")), "whisper-1", [7; 16]);
    let boundary = "inkling-07070707070707070707070707070707";
    assert_eq!(
        form.content_type,
        format!("multipart/form-data; boundary={boundary}")
    );
    let expected = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nko\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\njson\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"recording.wav\"\r\n\
         Content-Type: audio/wav\r\n\r\nRIFF-audio\r\n--{boundary}--\r\n"
    );
    assert_eq!(String::from_utf8_lossy(&form.body), expected);
}

#[test]
fn no_language_lets_the_server_tell() {
    let form = transcription_form(&plan(b"x", None), "m", [1; 16]);
    assert!(!String::from_utf8_lossy(&form.body).contains("name=\"language\""));
}

#[test]
fn a_boundary_found_in_the_recording_is_made_longer() {
    let boundary = "inkling-01010101010101010101010101010101";
    let audio = format!("before {boundary} after");
    let form = transcription_form(&plan(audio.as_bytes(), None), "m", [1; 16]);
    assert!(form.content_type.ends_with(&format!("{boundary}x")));
}

#[test]
fn the_words_are_read_as_the_server_wrote_them_hangul_included() {
    let answer = r#"{"text":" 내일 아침에 우유 사기 "}"#;
    let transcript =
        read_transcript(200, answer.as_bytes(), "http://x/v1", AudioFormat::Wav).expect("words");
    assert_eq!(transcript.text, "내일 아침에 우유 사기");
    let verbose = r#"{"text":"hello","language":"en","duration":2.5}"#;
    let transcript =
        read_transcript(200, verbose.as_bytes(), "http://x/v1", AudioFormat::Wav).expect("words");
    assert_eq!(transcript.language.as_deref(), Some("en"));
    assert_eq!(transcript.duration, Some(Duration::from_millis(2500)));
}

#[test]
fn silence_and_a_wrong_answer_are_bad_answers_of_the_note() {
    for answer in [
        r#"{"text":" [BLANK_AUDIO]"}"#,
        r#"{"text":""}"#,
        r#"{"words":"hello"}"#,
        "not json",
        r#"{"error":"failed to read the WAV file"}"#,
    ] {
        let error = read_transcript(200, answer.as_bytes(), "http://x/v1", AudioFormat::Wav)
            .expect_err(answer);
        assert!(
            matches!(error, ProviderError::Invalid(_)),
            "{answer}: {error:?}"
        );
    }
}

#[test]
fn a_refused_key_and_a_missing_route_are_the_servers_state() {
    let refused = read_transcript(401, b"{}", "http://x/v1", AudioFormat::Wav).expect_err("401");
    assert!(matches!(&refused, ProviderError::Misconfigured(w) if w.contains("api_key_env")));
    let no_route =
        read_transcript(404, b"Not Found", "http://x/v1", AudioFormat::Wav).expect_err("404");
    assert!(
        matches!(&no_route, ProviderError::Misconfigured(w) if w.contains("--inference-path")),
        "{no_route:?}"
    );
    let loading = read_transcript(
        503,
        br#"{"error":"loading model"}"#,
        "http://x/v1",
        AudioFormat::Wav,
    )
    .expect_err("503");
    assert_eq!(
        crate::ai::classify_reason(&loading),
        crate::ai::FailureReason::Timeout,
        "an outage, never the note's"
    );
    let model = read_transcript(
        404,
        br#"{"error":{"message":"model 'x' not found"}}"#,
        "http://x/v1",
        AudioFormat::Wav,
    )
    .expect_err("404 model");
    assert_eq!(
        crate::ai::classify_reason(&model),
        crate::ai::FailureReason::ModelMissing
    );
}

#[test]
fn a_server_that_cannot_read_webm_says_to_convert() {
    let error = read_transcript(
        400,
        b"Invalid request",
        "http://x/v1",
        AudioFormat::WebmOpus,
    )
    .expect_err("400");
    assert!(error.to_string().contains("--convert"), "{error}");
}

#[test]
fn the_health_says_loading_missing_refused_or_ready() {
    assert!(matches!(
        health_from_health(503, br#"{"status":"loading model"}"#, "http://x"),
        Some(ProviderHealth::Loading { .. })
    ));
    assert!(matches!(
        health_from_health(401, b"", "http://x"),
        Some(ProviderHealth::KeyRefused { .. })
    ));
    assert_eq!(
        health_from_health(200, br#"{"status":"ok"}"#, "http://x"),
        None
    );
    assert_eq!(health_from_health(404, b"", "http://x"), None);
    let listed = br#"{"data":[{"id":"whisper-1"}]}"#;
    assert_eq!(
        health_from_models(200, listed, "http://x/v1", "whisper-1"),
        ProviderHealth::Ready
    );
    assert_eq!(
        health_from_models(200, listed, "http://x/v1", "large-v3"),
        ProviderHealth::ModelMissing {
            model: "large-v3".into(),
            server: ModelServer::SpeechToText
        }
    );
    assert_eq!(
        health_from_models(404, b"", "http://x/v1", "whisper-1"),
        ProviderHealth::Ready,
        "whisper.cpp's server lists no models"
    );
    assert!(matches!(
        health_from_models(403, b"", "http://x/v1", "whisper-1"),
        ProviderHealth::KeyRefused { .. }
    ));
    assert!(matches!(
        health_from_models(200, b"<html>", "http://x/v1", "whisper-1"),
        ProviderHealth::NotRunning { .. }
    ));
}

#[test]
fn whisper_cpps_lines_are_joined_back_into_prose() {
    let answer = r#"{"text":" I need to call the dentist on Monday morning to move my\n appointment to the afternoon.\n After that, the bank.\n"}"#;
    let transcript =
        read_transcript(200, answer.as_bytes(), "http://x/v1", AudioFormat::Wav).expect("words");
    assert_eq!(
        transcript.text,
        "I need to call the dentist on Monday morning to move my appointment to the \
         afternoon. After that, the bank."
    );
}
