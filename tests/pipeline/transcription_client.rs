//! `TranscriptionClient` against the fake speech-to-text server (whisper.cpp's
//! `whisper-server` as it was seen to answer, and the states of the other
//! OpenAI-compatible servers): the multipart parts it sends, its key, the answers and
//! refusals read, the server's states. Real time, with a short deadline: nothing here
//! is a timed rule.

use std::time::Duration;

use inkling::ai::transcription::TranscriptionClient;
use inkling::ai::{
    classify_reason, FailureReason, Health, ModelServer, ProviderError, ProviderHealth, Transcribe,
    TranscribePlan,
};
use inkling::api::voice::AudioFormat;
use inkling::configuration::ApiKey;

use crate::fake_whisper::{tone_wav, FakeWhisper, Reply, DEFAULT_WORDS};
use crate::harness::pipeline_settings;

fn client(url: &str, extra: &[(&str, &str)], key: Option<&str>) -> TranscriptionClient {
    let dir = tempfile::tempdir().unwrap();
    let mut env = vec![("INKLING_TRANSCRIPTION__URL", url)];
    env.extend_from_slice(extra);
    let settings = pipeline_settings(dir.path(), "http://127.0.0.1:9", &env);
    let key = match key {
        Some(key) => {
            let env = std::collections::HashMap::from([("KEY".to_string(), key.to_string())]);
            ApiKey::from_env("KEY", &env).unwrap()
        }
        None => ApiKey::default(),
    };
    TranscriptionClient::new(&settings.transcription, key)
}

fn plan(audio: Vec<u8>, format: AudioFormat, language: Option<&str>) -> TranscribePlan {
    TranscribePlan {
        deadline: Duration::from_secs(5),
        audio,
        format,
        language: language.map(String::from),
    }
}

#[actix_rt::test]
async fn the_recording_goes_as_a_multipart_form_and_the_words_come_back_trimmed() {
    let fake = FakeWhisper::start_new().await;
    let client = client(&fake.url(), &[], Some("secret"));
    let wav = tone_wav(300);
    let transcript = client
        .transcribe(plan(wav.clone(), AudioFormat::Wav, Some("ko")))
        .await
        .expect("words");
    assert_eq!(
        transcript.text, DEFAULT_WORDS,
        "leading space and newline gone"
    );
    let calls = fake.calls();
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    assert!(call
        .content_type
        .as_deref()
        .is_some_and(|t| t.starts_with("multipart/form-data; boundary=")));
    assert_eq!(call.authorization.as_deref(), Some("Bearer secret"));
    let file = call.file().expect("a file part");
    assert_eq!(file.data, wav, "the recording, byte for byte");
    assert_eq!(file.filename.as_deref(), Some("recording.wav"));
    assert_eq!(file.content_type.as_deref(), Some("audio/wav"));
    assert_eq!(call.field("model").as_deref(), Some("whisper-1"));
    assert_eq!(call.field("language").as_deref(), Some("ko"));
    assert_eq!(call.field("response_format").as_deref(), Some("json"));
}

#[actix_rt::test]
async fn no_language_and_no_key_send_neither() {
    let fake = FakeWhisper::start_new().await;
    let client = client(&fake.url(), &[], None);
    client
        .transcribe(plan(tone_wav(100), AudioFormat::Wav, None))
        .await
        .expect("words");
    let call = &fake.calls()[0];
    assert_eq!(call.field("language"), None);
    assert_eq!(call.authorization, None);
}

#[actix_rt::test]
async fn hangul_comes_back_as_the_server_wrote_it() {
    let fake = FakeWhisper::start_new().await;
    fake.push(&[Reply::Words("내일 아침에 우유 사기".into())]);
    let client = client(&fake.url(), &[], None);
    let transcript = client
        .transcribe(plan(tone_wav(100), AudioFormat::Wav, Some("ko")))
        .await
        .expect("words");
    assert_eq!(transcript.text, "내일 아침에 우유 사기");
}

#[actix_rt::test]
async fn each_bad_answer_is_the_notes_and_each_state_of_the_server_an_outage() {
    let fake = FakeWhisper::start_new().await;
    let client = client(&fake.url(), &[], None);
    let wav = || plan(tone_wav(100), AudioFormat::Wav, None);
    for (reply, reason) in [
        (Reply::Blank, FailureReason::Schema),
        (Reply::Garbage, FailureReason::Schema),
        (Reply::Failed, FailureReason::Other),
    ] {
        fake.push(std::slice::from_ref(&reply));
        let error = client.transcribe(wav()).await.expect_err("refused");
        assert_eq!(classify_reason(&error), reason, "{reply:?}: {error}");
    }
    // A browser's WebM, which whisper.cpp reads only with ffmpeg: the note's failure,
    // with the fix in its words.
    let error = client
        .transcribe(plan(
            vec![0x1A, 0x45, 0xDF, 0xA3, 1, 2, 3],
            AudioFormat::WebmOpus,
            None,
        ))
        .await
        .expect_err("400");
    assert_eq!(classify_reason(&error), FailureReason::Other);
    assert!(error.to_string().contains("--convert"), "{error}");
    // Loading: 503, an outage.
    fake.set_loading(true);
    let error = client.transcribe(wav()).await.expect_err("loading");
    assert!(classify_reason(&error).is_provider_outage(), "{error}");
    fake.set_loading(false);
    // A key refused: the server's state, an outage.
    fake.require_key("right");
    let error = client.transcribe(wav()).await.expect_err("401");
    assert!(
        matches!(error, ProviderError::Misconfigured(_)),
        "{error:?}"
    );
    assert!(classify_reason(&error).is_provider_outage());
}

#[actix_rt::test]
async fn a_server_that_is_not_there_is_unreachable() {
    let mut fake = FakeWhisper::start_new().await;
    let client = client(&fake.url(), &[], None);
    fake.stop();
    let error = client
        .transcribe(plan(tone_wav(100), AudioFormat::Wav, None))
        .await
        .expect_err("down");
    assert_eq!(classify_reason(&error), FailureReason::Unreachable);
    assert!(matches!(
        client.health().await,
        ProviderHealth::NotRunning { .. }
    ));
}

#[actix_rt::test]
async fn the_health_says_ready_loading_model_missing_or_key_refused() {
    let fake = FakeWhisper::start_new().await;
    let client = client(
        &fake.url(),
        &[("INKLING_TRANSCRIPTION__MODEL", "small")],
        Some("k"),
    );
    assert_eq!(
        client.health().await,
        ProviderHealth::Ready,
        "whisper.cpp's server lists no models: ready once it answers"
    );
    fake.set_loading(true);
    assert!(matches!(
        client.health().await,
        ProviderHealth::Loading { .. }
    ));
    fake.set_loading(false);
    fake.list_models(&["large-v3"]);
    assert_eq!(
        client.health().await,
        ProviderHealth::ModelMissing {
            model: "small".into(),
            server: ModelServer::SpeechToText
        }
    );
    fake.list_models(&["small"]);
    assert_eq!(client.health().await, ProviderHealth::Ready);
    fake.require_key("another");
    assert!(matches!(
        client.health().await,
        ProviderHealth::KeyRefused { .. }
    ));
}
