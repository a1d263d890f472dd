use super::*;
use crate::telemetry::events::{AiDone, AiFailed, AiRetryManual, NoFields};

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn sample() -> Vec<(DateTime<Utc>, UsageEvent)> {
    vec![
        (
            at("2026-03-01T09:00:00Z"),
            UsageEvent::NoteCaptured(NoFields {}),
        ),
        (
            at("2026-03-01T09:00:01Z"),
            UsageEvent::AiDone(AiDone { latency_ms: 900 }),
        ),
        (
            at("2026-03-01T23:59:59Z"),
            UsageEvent::NoteCaptured(NoFields {}),
        ),
        (
            at("2026-03-04T08:00:00Z"),
            UsageEvent::AiFailed(AiFailed {
                reason: FailedReason::Schema,
                attempts: 3,
            }),
        ),
        (
            at("2026-03-04T08:00:00Z"),
            UsageEvent::AiFailed(AiFailed {
                reason: FailedReason::Other,
                attempts: 3,
            }),
        ),
        (
            at("2026-03-04T09:00:00Z"),
            UsageEvent::AiRetryManual(AiRetryManual { failed_count: 2 }),
        ),
        (
            at("2026-03-04T10:00:00Z"),
            UsageEvent::AiRetryManual(AiRetryManual { failed_count: 5 }),
        ),
        (
            at("2026-03-04T11:00:00Z"),
            UsageEvent::ProviderRecheckManual(NoFields {}),
        ),
    ]
}

#[test]
fn events_are_counted_per_utc_day_and_in_total() {
    let stats = aggregate(sample());
    let first = stats.days[&day("2026-03-01")];
    assert_eq!((first.captured, first.ai_done), (2, 1));
    let fourth = stats.days[&day("2026-03-04")];
    assert_eq!((fourth.ai_failed_schema, fourth.ai_failed_other), (1, 1));
    assert_eq!((fourth.ai_retries, fourth.ai_retried_notes), (2, 7));
    assert_eq!(fourth.ollama_rechecks, 1);
    assert_eq!(stats.total.captured, 2);
    assert_eq!(stats.total.ai_failed(), 2);
}

#[test]
fn days_without_events_between_the_first_and_last_get_zero_rows() {
    let stats = aggregate(sample());
    let days: Vec<String> = stats.days.keys().map(|d| d.to_string()).collect();
    assert_eq!(
        days,
        ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"]
    );
    assert_eq!(stats.days[&day("2026-03-02")], Counts::default());
}

#[test]
fn the_report_has_a_row_per_day_and_the_manual_retry_line() {
    let report = render_markdown(&aggregate(sample()), Locale::En, "2026-03-05T00:00:00Z");
    assert!(
        report.contains("| 2026-03-01 | 2 | 1 | 0 | 0 | 0 | 0 |"),
        "{report}"
    );
    assert!(
        report.contains("| 2026-03-02 | 0 | 0 | 0 | 0 | 0 | 0 |"),
        "{report}"
    );
    assert!(
        report.contains("| 2026-03-04 | 0 | 0 | 1 | 1 | 1 | 2 |"),
        "{report}"
    );
    assert!(
        report.contains("- AI manual retry usage: 2 times / 7 notes total"),
        "{report}"
    );
}

#[test]
fn the_korean_report_uses_the_seed_wording() {
    let report = render_markdown(&aggregate(sample()), Locale::Ko, "t");
    assert!(
        report.contains("AI 수동 재시도 사용량: 2 회 / 누적 7 건"),
        "{report}"
    );
    assert!(report.contains("| 날짜 (UTC) |"), "{report}");
}

#[test]
fn an_empty_log_gives_an_empty_report_with_zero_totals() {
    let stats = aggregate(Vec::new());
    assert!(stats.days.is_empty());
    let report = render_markdown(&stats, Locale::En, "t");
    assert!(report.contains("No events yet."));
    assert!(report.contains("- AI manual retry usage: 0 times / 0 notes total"));
}

#[test]
fn the_models_time_is_added_up_per_use_and_reported_with_the_waste_per_reason() {
    use crate::api::worker::ModelUse;
    use crate::telemetry::events::AiModelTime;
    let time = |usage, ms| {
        (
            at("2026-03-01T10:00:00Z"),
            UsageEvent::AiModelTime(AiModelTime { usage, ms }),
        )
    };
    let stats = aggregate([
        time(ModelUse::Kept, 540_000),
        time(ModelUse::Loading, 15_000),
        time(ModelUse::Timeout, 40_000),
        time(ModelUse::Schema, 5_000),
    ]);
    assert_eq!(stats.total.model_ms[ModelUse::Kept.index()], 540_000);
    let en = render_markdown(&stats, Locale::En, "now");
    assert!(
            en.contains("- Model time: 10 min: kept 90 %, loading 2 %, wasted 7 % (abandoned at the deadline 40 s, refused answers 5 s)"),
            "{en}"
        );
    let ko = render_markdown(&stats, Locale::Ko, "now");
    assert!(ko.contains("- 모델 시간: 10분: 쓴 답 90%, 불러오기 2%, 버린 시간 7% (시간 초과 40초, 쓸 수 없는 답 5초)"), "{ko}");
}
