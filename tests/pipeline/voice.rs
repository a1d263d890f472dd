//! Voice notes on virtual time (docs/DESIGN.md, "Voice notes"): a recording stored as a
//! pending note, its words from the fake speech-to-text server, then its title as any
//! note's; the server's outage (no attempt spent, resumed the moment it is back); bad
//! answers retried, then the note failed and Try again; the recording kept or not.

use std::time::Duration;

use crate::fake_whisper::{tone_wav, Reply};
use crate::harness::{PausedSystem, Pipeline};

/// The job's kind, and its counted attempts (`None`: no job row).
fn job(p: &Pipeline, id: &str) -> Option<(String, u32)> {
    use rusqlite::OptionalExtension;
    p.reader()
        .query_row(
            "SELECT kind, attempts FROM pending_jobs WHERE note_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .unwrap()
}

fn recording_file(p: &Pipeline, id: &str) -> std::path::PathBuf {
    p.settings
        .data_dir()
        .join("voice")
        .join(format!("{id}.wav"))
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_recording_becomes_the_notes_words_then_it_is_titled() {
    let p = Pipeline::start_voice(&[("INKLING_TRANSCRIPTION__LANGUAGE", "ko")]).await;
    p.whisper()
        .push(&[Reply::Words("내일 아침에 우유랑 빵 사기".into())]);
    let wav = tone_wav(500);
    let id = p.capture_voice(wav.clone()).await;
    assert!(recording_file(&p, &id).exists(), "stored before the answer");
    p.settle_until("transcribed and titled", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(
        p.note_column::<String>(&id, "body"),
        "내일 아침에 우유랑 빵 사기",
        "the server's Hangul, as it wrote it"
    );
    assert!(p.note_column::<Option<String>>(&id, "title").is_some());
    let call = &p.whisper().calls()[0];
    assert_eq!(call.field("language").as_deref(), Some("ko"));
    assert_eq!(call.file().map(|f| f.data.clone()), Some(wav));
    assert!(
        recording_file(&p, &id).exists(),
        "kept by default until the note is deleted for good"
    );
    assert!(
        p.invariant_violations().is_empty(),
        "{:?}",
        p.invariant_violations()
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn while_the_server_is_down_nothing_is_spent_and_it_resumes_the_moment_it_is_back() {
    let mut p = Pipeline::start_voice(&[]).await;
    p.whisper_mut().stop();
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle().await;
    assert_eq!(job(&p, &id), Some(("transcribe".into(), 0)));
    // An hour of outage: still waiting, no attempt counted, the enriching worker idle.
    p.advance(Duration::from_secs(3600)).await;
    assert_eq!(p.note(&id).status, "pending");
    assert_eq!(job(&p, &id), Some(("transcribe".into(), 0)));
    assert!(p.fake.calls().is_empty(), "no enrichment of an empty body");
    p.whisper_mut().start().await;
    // The health is asked every health_interval_ms (1 s).
    p.advance(Duration::from_secs(1)).await;
    p.settle_until("transcribed and titled", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(
        p.whisper().calls().len(),
        1,
        "one call, once the server was back"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_server_loading_its_model_is_waited_for_with_nothing_spent() {
    let p = Pipeline::start_voice(&[]).await;
    p.whisper().set_loading(true);
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle().await;
    p.advance(Duration::from_secs(30)).await;
    assert_eq!(job(&p, &id), Some(("transcribe".into(), 0)));
    p.whisper().set_loading(false);
    p.advance(Duration::from_secs(1)).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn bad_answers_are_retried_then_the_note_fails_and_try_again_transcribes_it() {
    let p = Pipeline::start_voice(&[("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,30000,120000")]).await;
    p.whisper().set_default(Reply::Blank);
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle().await;
    assert_eq!(job(&p, &id), Some(("transcribe".into(), 1)));
    p.advance(Duration::from_secs(30)).await;
    assert_eq!(job(&p, &id), Some(("transcribe".into(), 2)));
    p.advance(Duration::from_secs(120)).await;
    p.settle_until("failed", |p| p.note(&id).status == "failed")
        .await;
    let error = p.note(&id).error.unwrap_or_default();
    assert!(
        error.starts_with("schema: transcription:") && error.contains("no words"),
        "{error}"
    );
    p.settle_until("failed count announced", |p| {
        p.failed_counts.0.lock().unwrap().last() == Some(&1)
    })
    .await;
    p.settle_until("ai_failed logged", |p| !p.events_of("ai_failed").is_empty())
        .await;

    // Try again: back to be transcribed (not enriched with an empty body).
    p.whisper()
        .set_default(Reply::Words("call the dentist".into()));
    let count = p.run(p.services.inbox.retry_all_failed()).await.unwrap();
    assert_eq!(count, 1);
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(p.note_column::<String>(&id, "body"), "call the dentist");
    assert_eq!(p.failed_counts.0.lock().unwrap().last(), Some(&0));
}

#[actix_rt::test(system = "PausedSystem")]
async fn with_keep_audio_off_the_recording_goes_once_its_words_are_stored() {
    let p = Pipeline::start_voice(&[("INKLING_TRANSCRIPTION__KEEP_AUDIO", "false")]).await;
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    assert!(!recording_file(&p, &id).exists());
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_recording_goes_when_its_note_is_deleted_for_good_not_when_trashed() {
    let p = Pipeline::start_voice(&[]).await;
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    p.run(p.services.inbox.trash(id.clone())).await.unwrap();
    assert!(recording_file(&p, &id).exists(), "the trash keeps it");
    p.run(p.services.inbox.delete_forever(id.clone()))
        .await
        .unwrap();
    assert!(!recording_file(&p, &id).exists());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_voice_note_is_transcribed_before_the_backlog_of_older_notes_is_enriched() {
    let p = Pipeline::start_voice(&[]).await;
    p.fake.set_default(crate::fake_ollama::Reply::Hang);
    for i in 0..5 {
        p.capture(&format!("an older note {i}")).await;
    }
    p.settle().await;
    // The chat model is busy with the backlog; the speech-to-text server is not.
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle_until("transcribed", |p| {
        p.note_column::<String>(&id, "body") == crate::fake_whisper::DEFAULT_WORDS
    })
    .await;
    assert_eq!(
        job(&p, &id).map(|(kind, _)| kind).as_deref(),
        Some("enrich")
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_voice_note_typed_into_before_its_words_came_keeps_what_was_typed() {
    let mut p = Pipeline::start_voice(&[]).await;
    p.whisper_mut().stop();
    let id = p.capture_voice(tone_wav(200)).await;
    p.settle().await;
    let edit =
        inkling::domain::NoteEdit::parse(Some("typed instead".into()), None, None, 65536).unwrap();
    p.run(p.services.inbox.edit(id.clone(), edit))
        .await
        .unwrap();
    p.settle_until("enriched from what was typed", |p| {
        p.note(&id).status == "done"
    })
    .await;
    // The server back: nothing is sent, the person's words stand.
    p.whisper_mut().start().await;
    p.advance(Duration::from_secs(2)).await;
    assert_eq!(p.note_column::<String>(&id, "body"), "typed instead");
    assert!(p.whisper().calls().is_empty());
    assert_eq!(job(&p, &id), None);
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_voice_note_stored_before_a_restart_is_transcribed_after_it_and_orphans_are_swept() {
    // The previous run: a voice note stored while the server was down, and the file a
    // crash left between a recording and its note.
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let mut store = inkling::storage::Store::open(&dir.path().join("inkling.db"), 30).unwrap();
        store
            .capture_voice(
                &tone_wav(200),
                inkling::api::voice::AudioFormat::Wav,
                crate::harness::t0() - chrono::Duration::minutes(5),
            )
            .unwrap()
            .id
    };
    let orphan = dir
        .path()
        .join("voice")
        .join("0190aaaa-0000-7000-8000-000000000000.wav");
    std::fs::write(&orphan, tone_wav(100)).unwrap();

    let p = Pipeline::start_voice_in(dir, &[]).await;
    p.settle_until("transcribed and titled", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(
        p.note_column::<String>(&id, "body"),
        crate::fake_whisper::DEFAULT_WORDS
    );
    assert!(recording_file(&p, &id).exists());
    assert!(!orphan.exists(), "a file no note keeps is swept at start");
}
