//! One note's AI on demand (docs/DESIGN.md, "One note's AI again"): a done or failed
//! note runs again from attempts 0, and the request is logged with what the note was.

use serde_json::json;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

const NO_WAITS: &[(&str, &str)] = &[("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0")];

fn calls_for(p: &Pipeline, body: &str) -> usize {
    p.fake
        .calls()
        .iter()
        .filter(|call| call.request.to_string().contains(body))
        .count()
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_done_or_failed_note_asked_for_again_runs_anew_from_attempts_zero_and_is_logged() {
    let p = Pipeline::start(NO_WAITS).await;
    let done = p.capture("a note to redo").await;
    p.settle_until("done", |p| p.note(&done).status == "done")
        .await;

    let note = p.run(p.services.inbox.enrich(done.clone())).await.unwrap();
    assert_eq!(note.ai_status.as_str(), "pending");
    p.settle_until("done again", |p| p.note(&done).status == "done")
        .await;
    assert_eq!(calls_for(&p, "a note to redo"), 2);

    p.fake.set_default(Reply::WrongSchema);
    let failed = p.capture("a note that fails").await;
    p.settle_until("failed", |p| p.note(&failed).status == "failed")
        .await;
    p.fake.set_default(Reply::Ok);
    let note = p
        .run(p.services.inbox.enrich(failed.clone()))
        .await
        .unwrap();
    assert_eq!((note.ai_status.as_str(), note.ai_error), ("pending", None));
    assert_eq!(
        p.note(&failed).job.map(|j| j.0),
        Some(0),
        "attempts start again"
    );
    p.settle_until("done at last", |p| p.note(&failed).status == "done")
        .await;

    p.settle_until("logged", |p| p.events_of("ai_enrich_requested").len() == 2)
        .await;
    assert_eq!(
        p.events_of("ai_enrich_requested"),
        [json!({ "from": "done" }), json!({ "from": "failed" })]
    );
}
