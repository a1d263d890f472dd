use super::*;

#[test]
fn the_end_of_today_is_the_zone_s() {
    let now = DateTime::parse_from_rfc3339("2026-12-02T20:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    assert_eq!(timestamp(end_of_day(now, &Utc)), "2026-12-02T23:59:59.999Z");
    // 05:00 on the 3rd in Seoul already.
    let seoul = chrono::FixedOffset::east_opt(9 * 3600).unwrap();
    assert_eq!(
        timestamp(end_of_day(now, &seoul)),
        "2026-12-03T14:59:59.999Z"
    );
}

fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
