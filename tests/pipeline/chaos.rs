//! Chaos: notes while the fake provider switches at random between answering, being
//! down, hanging, 503, invalid JSON, 500 and resets. Every note must end `done` or
//! `failed` (schema/other), none lost, none enriched twice, no note tried more than
//! `max_attempts` times for schema/other failures.
//!
//! CI-sized by default; `INKLING_CHAOS_NOTES=1000 cargo test --test pipeline chaos`
//! runs the long version (docs/PERFORMANCE.md). The backoffs are shortened (same shape)
//! so the run converges in little virtual time; the seed makes it repeatable.

use std::collections::HashMap;
use std::time::Duration;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};
use crate::xorshift::XorShift;

const SEED: u64 = 0xc4a0_5eed_0000_0001;

#[actix_rt::test(system = "PausedSystem")]
async fn under_a_chaotic_provider_every_note_ends_done_or_failed_exactly_once() {
    let notes: usize = std::env::var("INKLING_CHAOS_NOTES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(150);
    let mut p = Pipeline::start(&[
        ("INKLING_OLLAMA__REQUEST_TIMEOUT_MS", "5000"),
        ("INKLING_WORKER__UNREACHABLE_BACKOFFS_MS", "1000,2000,4000"),
        ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,1000,2000"),
    ])
    .await;
    let mut rng = XorShift(SEED);
    let replies = [
        Reply::Ok,
        Reply::Ok,
        Reply::Ok,
        Reply::Hang,
        Reply::Busy,
        Reply::InvalidJson,
        Reply::RunnerCrash,
        Reply::Reset,
    ];
    let script: Vec<Reply> = (0..notes * 8)
        .map(|_| replies[rng.below(replies.len())])
        .collect();
    p.fake.push(&script);
    p.fake.set_default(Reply::Ok);
    let mut ids = Vec::new();
    for i in 0..notes {
        ids.push(p.capture(&format!("chaos note {i}")).await);
    }

    let mut down = false;
    for _ in 0..20_000 {
        if p.count_with_status("pending") == 0 {
            break;
        }
        // Now and then the provider goes away or comes back.
        if rng.next().is_multiple_of(20) {
            if down {
                p.fake.start().await;
            } else {
                p.fake.stop();
            }
            down = !down;
        }
        p.advance(Duration::from_secs(1)).await;
    }
    if down {
        p.fake.start().await;
    }

    assert_eq!(p.count_with_status("pending"), 0, "every note settled");
    assert_eq!(
        (p.count_with_status("done") + p.count_with_status("failed")) as usize,
        notes,
        "none lost"
    );
    for id in &ids {
        let note = p.note(id);
        assert!(note.job.is_none(), "a settled note has no job row");
        if note.status == "failed" {
            let error = note.error.unwrap();
            assert!(
                error.starts_with("schema") || error.starts_with("other"),
                "{error}"
            );
        }
    }
    // Per note: at most one enrichment, at most max_attempts schema/other failures.
    let mut per_note: HashMap<String, (usize, usize)> = HashMap::new();
    for call in p.fake.calls() {
        let body = call.request["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_string();
        let entry = per_note.entry(body).or_default();
        match call.reply {
            Reply::Ok => entry.0 += 1,
            Reply::InvalidJson | Reply::RunnerCrash => entry.1 += 1,
            _ => {}
        }
    }
    for (body, (enriched, counted)) in per_note {
        assert!(enriched <= 1, "{body} enriched {enriched} times");
        assert!(counted <= 3, "{body} had {counted} counted failures");
    }
    // The usage log is written after the save is answered, on the telemetry actor's
    // turn: the last note can be done in the database a moment before its line is.
    p.settle_until("one ai_done line per done note", |p| {
        p.events_of("ai_done").len() as i64 == p.count_with_status("done")
    })
    .await;
}
