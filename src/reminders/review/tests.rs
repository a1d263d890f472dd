use super::*;
use crate::reminders::test_zone::Berlin2026;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

#[test]
fn the_time_is_hh_mm_or_nothing() {
    assert_eq!(parse_time(""), Ok(None));
    assert_eq!(parse_time(" 08:30 "), Ok(NaiveTime::from_hms_opt(8, 30, 0)));
    for bad in ["8", "25:00", "morning", "8:30pm"] {
        let error = parse_time(bad).expect_err(bad);
        assert!(error.contains("HH:MM"), "{error}");
    }
}

#[test]
fn once_a_day_at_its_time_on_the_wall_clock() {
    let at = NaiveTime::from_hms_opt(8, 0, 0).unwrap();
    // 07:30 in Berlin (UTC+1) on 2 March: not yet.
    assert_eq!(
        is_due(utc("2026-03-02T06:30:00Z"), &Berlin2026, at, None),
        None
    );
    let day = NaiveDate::from_ymd_opt(2026, 3, 2);
    assert_eq!(
        is_due(utc("2026-03-02T07:00:00Z"), &Berlin2026, at, None),
        day
    );
    // Shown today: not again, the service restarted or not.
    assert_eq!(
        is_due(utc("2026-03-02T15:00:00Z"), &Berlin2026, at, day),
        None
    );
    // Started late the next day: shown then, once.
    let next = NaiveDate::from_ymd_opt(2026, 3, 3);
    assert_eq!(
        is_due(utc("2026-03-03T15:00:00Z"), &Berlin2026, at, day),
        next
    );
    // After the clocks go forward (UTC+2): still 08:00 on the wall.
    let summer = NaiveDate::from_ymd_opt(2026, 3, 30);
    assert_eq!(
        is_due(utc("2026-03-30T05:59:00Z"), &Berlin2026, at, day),
        None
    );
    assert_eq!(
        is_due(utc("2026-03-30T06:00:00Z"), &Berlin2026, at, day),
        summer
    );
}

#[test]
fn yesterday_is_the_zone_s_day_before() {
    let (from, to) = yesterday(utc("2026-03-02T10:00:00Z"), &Berlin2026);
    assert_eq!(from, utc("2026-02-28T23:00:00Z"));
    assert_eq!(to, utc("2026-03-01T23:00:00Z"));
    // The day the clocks go forward is 23 hours long.
    let (from, to) = yesterday(utc("2026-03-30T10:00:00Z"), &Berlin2026);
    assert_eq!(to - from, Duration::hours(23));
}
