//! Random bytes at the capture route: the service answers every request with 201 or a
//! 4xx, stays up, and the database keeps its invariants.
//!
//! A seeded generator (xorshift) makes each run the same; change `SEED` to explore.

use inkling::storage::Store;
use serde_json::json;

use crate::helpers::spawn_app;
use crate::xorshift::XorShift;

const SEED: u64 = 0x5eed_1234_abcd_ef01;
const REQUESTS: usize = 400;

/// One payload: pure noise, a valid body, or a valid body with bytes mutated.
fn payload(rng: &mut XorShift) -> Vec<u8> {
    let valid = serde_json::to_vec(&json!({ "body": "a perfectly good thought ✓" })).unwrap();
    match rng.below(5) {
        0 => {
            let len = rng.below(300);
            rng.bytes(len)
        }
        1 => valid,
        2 => {
            let mut mutated = valid;
            for _ in 0..=rng.below(4) {
                let at = rng.below(mutated.len());
                mutated[at] = rng.next() as u8;
            }
            mutated
        }
        3 => {
            let mut cut = valid;
            cut.truncate(rng.below(cut.len()));
            cut
        }
        _ => {
            // Structurally JSON, semantically anything.
            let values = [
                json!(null),
                json!(1),
                json!("x"),
                json!([]),
                json!({}),
                json!(true),
            ];
            let value = values[rng.below(values.len())].clone();
            serde_json::to_vec(&json!({ "body": value })).unwrap()
        }
    }
}

#[actix_rt::test]
async fn random_bytes_at_the_capture_route_never_break_the_service_or_the_data() {
    let app = spawn_app().await;
    let mut rng = XorShift(SEED);
    let mut created = 0;
    for i in 0..REQUESTS {
        let body = payload(&mut rng);
        let content_type = if rng.below(10) == 0 {
            "text/plain"
        } else {
            "application/json"
        };
        let (status, reply) = app.post_raw("/api/notes", content_type, body.clone()).await;
        assert!(
            status == 201 || (400..500).contains(&status),
            "request {i}: {status} {reply} for {:?}",
            String::from_utf8_lossy(&body)
        );
        if status == 201 {
            created += 1;
        } else {
            assert!(
                reply["error"].is_string(),
                "request {i}: no JSON error: {reply}"
            );
        }
    }

    let (status, _) = app.get("/api/status").await;
    assert_eq!(status, 200, "the service is still up");
    assert_eq!(app.note_count_in_db(), created);
    let store = Store::open(&app.db_path(), 30).unwrap();
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}
