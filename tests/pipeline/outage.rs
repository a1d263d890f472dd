//! Outages of any length, instant resume (docs/DESIGN.md, "The worker policy", "Health
//! and recovery") and restart.

use std::time::Duration;

use chrono::Duration as ChronoDuration;
use inkling::actors::provider_monitor::{GetProviderHealth, Recheck};
use inkling::ai::ProviderHealth;
use inkling::domain::NoteBody;
use inkling::storage::Store;

use crate::fake_ollama::{FakeOllama, Reply};
use crate::harness::{t0, PausedSystem, Pipeline};

#[actix_rt::test(system = "PausedSystem")]
async fn fifty_notes_sit_through_a_24_hour_outage_and_finish_right_after_the_provider_returns() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.stop();
    let mut ids = Vec::new();
    for i in 0..50 {
        ids.push(p.capture(&format!("thought {i} during the outage")).await);
    }

    // A day passes, in quarter hours: the worker probes on its backoff, the monitor
    // checks every second it gets, nothing is counted or failed.
    for _ in 0..96 {
        p.advance(Duration::from_secs(15 * 60)).await;
    }
    assert_eq!(p.count_with_status("pending"), 50);
    assert_eq!(p.max_attempts_spent(), 0, "no attempt spent on an outage");

    // Ollama returns. One health interval (1 s) of virtual time passes, then time
    // stands still: the first note must be done without any more of it.
    p.fake.start().await;
    let returned = tokio::time::Instant::now();
    p.advance(Duration::from_secs(1)).await;
    p.settle_until(
        "a note done within one health interval of the return",
        |p| p.count_with_status("done") > 0,
    )
    .await;
    let first_done = p.first_enrichment_at();
    assert!(first_done - returned <= Duration::from_secs(1));
    p.settle_until("all 50 done", |p| p.count_with_status("done") == 50)
        .await;

    assert_eq!(p.count_with_status("failed"), 0);
    assert!(p.events_of("ai_failed").is_empty());
    p.settle_until("ai_done written", |p| p.events_of("ai_done").len() == 50)
        .await;
    let recovered = p.events_of("ollama_recovered");
    assert_eq!(recovered.len(), 1);
    let down_ms = recovered[0]["downMs"].as_u64().unwrap();
    assert!(down_ms >= 24 * 3600 * 1000, "downMs {down_ms}");
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_manual_recheck_resumes_a_worker_parked_on_timeouts_at_once() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::Hang);
    let id = p.capture("Ollama stops answering").await;
    p.settle_until("calling", |p| p.fake.calls().len() == 1)
        .await;
    p.fake.stop();
    // Times out, and the health check finds Ollama gone: parked for 30 s.
    p.advance(Duration::from_secs(120)).await;
    p.settle_until("parked", |p| {
        p.note(&id).job.unwrap().2.as_deref() == Some("provider")
    })
    .await;

    p.fake.start().await;
    p.fake.set_default(Reply::Ok);
    let health = p.ask(&p.services.monitor, Recheck).await;

    assert_eq!(health, ProviderHealth::Ready);
    p.settle_until("done without waiting out the 30 s", |p| {
        p.note(&id).status == "done"
    })
    .await;
    assert_eq!(p.elapsed(), 120.0);
    p.settle_until("recheck logged", |p| {
        p.events_of("ollama_recheck_manual").len() == 1
    })
    .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_monitor_tells_a_missing_model_from_a_stopped_server() {
    let mut p = Pipeline::start(&[]).await;
    assert_eq!(
        p.ask(&p.services.monitor, GetProviderHealth).await,
        Some(ProviderHealth::Ready)
    );

    p.fake.set_models(&["qwen3:latest"]);
    assert_eq!(
        p.ask(&p.services.monitor, Recheck).await,
        ProviderHealth::ModelMissing {
            model: "llama3.2".into(),
            server: inkling::ai::ModelServer::Ollama,
        }
    );

    p.fake.stop();
    assert!(matches!(
        p.ask(&p.services.monitor, Recheck).await,
        ProviderHealth::NotRunning { .. }
    ));
}

#[actix_rt::test(system = "PausedSystem")]
async fn after_a_restart_outage_jobs_run_when_healthy_and_retry_delays_keep_their_time() {
    // Before the restart: three jobs, written by the previous run.
    let dir = tempfile::tempdir().unwrap();
    let (parked, delayed, overdue) = {
        let mut store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
        let body = |t: &str| NoteBody::parse(t.into(), 1000).unwrap();
        let before = t0() - ChronoDuration::minutes(5);
        let parked = store
            .capture(&body("parked on the outage"), before)
            .unwrap()
            .id;
        store
            .set_next_run_at(
                &parked,
                t0() + ChronoDuration::seconds(900),
                "unreachable: refused",
            )
            .unwrap();
        let delayed = store
            .capture(&body("waiting out a retry"), before)
            .unwrap()
            .id;
        store
            .increment_job_attempt(&delayed, t0() + ChronoDuration::seconds(100), "schema: bad")
            .unwrap();
        let overdue = store.capture(&body("never tried"), before).unwrap().id;
        (parked, delayed, overdue)
    };

    let fake = FakeOllama::start_new().await;
    let start = tokio::time::Instant::now();
    let p = Pipeline::start_with(fake, dir, &[]).await;

    p.settle_until("the parked and overdue jobs ran", |p| {
        p.note(&parked).status == "done" && p.note(&overdue).status == "done"
    })
    .await;
    assert_eq!(
        p.elapsed(),
        0.0,
        "at once: the first health check saw the provider ready"
    );
    assert_eq!(p.note(&delayed).status, "pending");
    p.advance(Duration::from_secs(100) - Duration::from_millis(1))
        .await;
    assert_eq!(
        p.note(&delayed).status,
        "pending",
        "not before its own time"
    );
    p.advance(Duration::from_millis(1)).await;
    p.settle_until("the delayed job ran", |p| p.note(&delayed).status == "done")
        .await;
    assert_eq!(p.call_times(start).last(), Some(&100.0));
}

/// Recovery latency (issue: "provider back → first note done ≤ health interval + 1 s"),
/// after outages of 1 minute, 1 hour and 24 hours. Time is virtual; the outage is lived
/// through in steps, so the worker has climbed to its longest backoff.
#[actix_rt::test(system = "PausedSystem")]
async fn after_outages_of_a_minute_an_hour_and_a_day_work_resumes_within_a_health_interval() {
    for outage in [60u64, 3600, 24 * 3600] {
        let mut p = Pipeline::start(&[]).await;
        p.fake.stop();
        let id = p.capture("waiting out the outage").await;
        // Steps no longer than the backoff cap (15 min): every probe still happens.
        let step = Duration::from_secs((outage / 4).min(900));
        let mut lived = Duration::ZERO;
        while lived < Duration::from_secs(outage) {
            p.advance(step).await;
            lived += step;
        }

        p.fake.start().await;
        let back = tokio::time::Instant::now();
        p.advance(Duration::from_secs(1)).await; // one health interval
        p.settle_until("done", |p| p.note(&id).status == "done")
            .await;

        let done_at = p.first_enrichment_at();
        assert!(
            done_at - back <= Duration::from_secs(2),
            "after a {outage} s outage the note waited {:?}",
            done_at - back
        );
        assert_eq!(p.max_attempts_spent(), 0);
    }
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_call_refused_while_the_server_restarts_goes_again_as_soon_as_it_answers() {
    let p = Pipeline::start(&[]).await;
    // The restart's moment: the call, and its second try on a fresh connection, are
    // dropped; the health check right after finds the server answering.
    p.fake.push(&[Reply::Reset, Reply::Reset]);
    let start = tokio::time::Instant::now();
    let id = p.capture("the model server restarts under this note").await;

    // settle_until never lets the paused clock move: done with no park served.
    p.settle_until("done at once, not after the park's 30 s", |p| {
        p.note(&id).status == "done"
    })
    .await;
    assert!(p.first_enrichment_at() - start < Duration::from_secs(1));
    assert_eq!(
        p.max_attempts_spent(),
        0,
        "an outage is never the note's attempt"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_server_that_answers_its_health_check_but_drops_every_call_is_not_called_in_a_loop() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::Reset);
    let id = p.capture("the server takes every call and drops it").await;

    // One quick look after the first refusal, then the outage schedule: after the
    // second refusal the note waits 60 s, whatever the health check says.
    p.settle_until("refused twice (two tries each)", |p| {
        p.fake.calls().len() == 4
    })
    .await;
    p.settle_until(
        "parked for the schedule's 60 s after the second refusal",
        |p| {
            let Some((_, next_run_at, Some(reason))) = p.note(&id).job else {
                return false;
            };
            let now = inkling::clock::Clock::now(&p.clock);
            let at = chrono::DateTime::parse_from_rfc3339(&next_run_at).unwrap();
            reason == "provider" && at.signed_duration_since(now) >= ChronoDuration::seconds(59)
        },
    )
    .await;
    assert_eq!(p.fake.calls().len(), 4, "no third call before the park");
    p.advance(Duration::from_secs(50)).await;
    assert_eq!(p.fake.calls().len(), 4, "no call while parked");
    p.advance(Duration::from_secs(11)).await;
    p.settle_until("the probe after the park", |p| p.fake.calls().len() > 4)
        .await;
    assert_eq!(p.count_with_status("pending"), 1);
    assert_eq!(p.max_attempts_spent(), 0);
}
