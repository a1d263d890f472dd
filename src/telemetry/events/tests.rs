use super::*;
use serde_json::json;

#[test]
fn every_kind_accepts_its_valid_payload_and_round_trips_through_a_line() {
    let valid = [
        ("note_captured", json!({})),
        ("ai_done", json!({ "latencyMs": 1234 })),
        ("ai_failed", json!({ "reason": "schema", "attempts": 3 })),
        ("ai_failed", json!({ "reason": "other", "attempts": 3 })),
        ("ai_retry_manual", json!({ "failedCount": 2 })),
        ("ai_model_time", json!({ "use": "kept", "ms": 5200 })),
        ("ai_model_time", json!({ "use": "timeout", "ms": 120000 })),
        ("ai_enrich_requested", json!({ "from": "done" })),
        ("ai_enrich_requested", json!({ "from": "failed" })),
        ("ai_enrich_requested", json!({ "from": "pending" })),
        ("ollama_recheck_manual", json!({})),
        ("ollama_recovered", json!({ "downMs": 60000 })),
        ("note_trashed", json!({})),
        ("note_restored", json!({})),
        ("usage_log_exported", json!({})),
    ];
    for (kind, payload) in valid {
        let event = UsageEvent::parse(kind, payload.clone())
            .unwrap_or_else(|e| panic!("{kind} {payload}: {e}"));
        assert_eq!(event.kind(), kind);
        let line = event.to_line("2026-03-01T12:00:00.000Z").unwrap();
        let (ts, parsed) = parse_line(&line).unwrap();
        assert_eq!((ts.as_str(), &parsed), ("2026-03-01T12:00:00.000Z", &event));
        let record: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(record["payload"], payload, "{kind}");
    }
}

#[test]
fn an_extra_field_is_refused() {
    for (kind, payload) in [
        (
            "ai_retry_manual",
            json!({ "failedCount": 1, "extra": true }),
        ),
        ("note_captured", json!({ "noteId": "x" })),
        ("ai_done", json!({ "latencyMs": 5, "model": "m" })),
    ] {
        assert!(UsageEvent::parse(kind, payload).is_err(), "{kind}");
    }
}

#[test]
fn a_wrong_type_or_an_out_of_range_value_is_refused() {
    let invalid = [
        ("ai_retry_manual", json!({ "failedCount": 0 })),
        ("ai_retry_manual", json!({ "failedCount": -1 })),
        ("ai_retry_manual", json!({ "failedCount": "2" })),
        (
            "ai_failed",
            json!({ "reason": "unreachable", "attempts": 3 }),
        ),
        ("ai_failed", json!({ "reason": "schema", "attempts": 0 })),
        ("ai_done", json!({})),
        ("ollama_recovered", json!({ "downMs": 1.5 })),
        ("no_such_kind", json!({})),
    ];
    for (kind, payload) in invalid {
        assert!(
            UsageEvent::parse(kind, payload.clone()).is_err(),
            "{kind} {payload} was accepted"
        );
    }
    let zero = UsageEvent::AiRetryManual(AiRetryManual { failed_count: 0 });
    assert!(
        zero.to_line("t").is_err(),
        "an invalid event is never turned into a line"
    );
}

#[test]
fn a_torn_or_foreign_line_is_an_error_not_a_panic() {
    assert!(parse_line(r#"{"ts":"t","kind":"note_captured","payl"#).is_err());
    assert!(parse_line(r#"{"ts":"t","kind":"note_captured","payload":{},"x":1}"#).is_err());
}
