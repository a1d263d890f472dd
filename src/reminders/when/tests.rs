//! The parser's tests: English and Korean, relative and absolute, in UTC, at a fixed
//! offset (Seoul) and across a daylight-saving change (Berlin 2026).

use chrono::{DateTime, FixedOffset, Utc};

use super::*;
use crate::reminders::test_zone::Berlin2026;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("a test time")
        .with_timezone(&Utc)
}

fn seoul() -> FixedOffset {
    FixedOffset::east_opt(9 * 3600).expect("UTC+9")
}

/// Read in Seoul at `now` (UTC), answered as Seoul's wall clock.
fn in_seoul(text: &str, now: &str) -> String {
    let at = parse(text, utc(now), &seoul()).unwrap_or_else(|e| panic!("{e}"));
    at.with_timezone(&seoul())
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

fn in_utc(text: &str, now: &str) -> String {
    let at = parse(text, utc(now), &Utc).unwrap_or_else(|e| panic!("{e}"));
    at.format("%Y-%m-%d %H:%M").to_string()
}

// Wednesday 2 December 2026, 10:00 UTC; 19:00 in Seoul.
const WEDNESDAY: &str = "2026-12-02T10:00:00Z";

#[test]
fn english_days_and_times() {
    assert_eq!(in_utc("tomorrow 9:00", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(in_utc("Tomorrow at 9am", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(in_utc("tomorrow", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(in_utc("today 3pm", WEDNESDAY), "2026-12-02 15:00");
    assert_eq!(in_utc("today at 3:30 pm", WEDNESDAY), "2026-12-02 15:30");
    assert_eq!(in_utc("tonight", WEDNESDAY), "2026-12-02 20:00");
    assert_eq!(
        in_utc("the day after tomorrow 18:00", WEDNESDAY),
        "2026-12-04 18:00"
    );
    assert_eq!(in_utc("12am tomorrow", WEDNESDAY), "2026-12-03 00:00");
    assert_eq!(in_utc("tomorrow noon", WEDNESDAY), "2026-12-03 12:00");
}

#[test]
fn a_time_alone_is_its_next_coming() {
    assert_eq!(in_utc("11:00", WEDNESDAY), "2026-12-02 11:00");
    assert_eq!(in_utc("9:00", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(
        in_utc("10:00", WEDNESDAY),
        "2026-12-03 10:00",
        "now is not to come"
    );
}

#[test]
fn weekdays() {
    assert_eq!(in_utc("next tuesday 3pm", WEDNESDAY), "2026-12-08 15:00");
    assert_eq!(in_utc("friday", WEDNESDAY), "2026-12-04 09:00");
    assert_eq!(
        in_utc("wed 11:00", WEDNESDAY),
        "2026-12-02 11:00",
        "today, still ahead"
    );
    assert_eq!(
        in_utc("wednesday 9:00", WEDNESDAY),
        "2026-12-09 09:00",
        "today's has gone"
    );
    assert_eq!(
        in_utc("next wednesday 11:00", WEDNESDAY),
        "2026-12-09 11:00"
    );
}

#[test]
fn relative_amounts_are_real_time() {
    assert_eq!(in_utc("in 2 hours", WEDNESDAY), "2026-12-02 12:00");
    assert_eq!(in_utc("in an hour", WEDNESDAY), "2026-12-02 11:00");
    assert_eq!(in_utc("in 45 min", WEDNESDAY), "2026-12-02 10:45");
    assert_eq!(in_utc("in 3 days", WEDNESDAY), "2026-12-05 10:00");
    assert_eq!(in_utc("in 1 week", WEDNESDAY), "2026-12-09 10:00");
    assert_eq!(in_utc("2 hours from now", WEDNESDAY), "2026-12-02 12:00");
}

#[test]
fn absolute_dates() {
    assert_eq!(in_utc("2026-12-24 18:00", WEDNESDAY), "2026-12-24 18:00");
    assert_eq!(in_utc("2026-12-24T18:00", WEDNESDAY), "2026-12-24 18:00");
    assert_eq!(in_utc("2026/12/24", WEDNESDAY), "2026-12-24 09:00");
    assert_eq!(in_utc("2027-01-05 7pm", WEDNESDAY), "2027-01-05 19:00");
    assert_eq!(
        in_utc("2026-12-24T18:00:00+09:00", WEDNESDAY),
        "2026-12-24 09:00"
    );
}

#[test]
fn korean() {
    // 19:00 on Wednesday in Seoul.
    assert_eq!(in_seoul("내일 오전 9시", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(in_seoul("내일오전9시", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(in_seoul("내일 9시에", WEDNESDAY), "2026-12-03 09:00");
    assert_eq!(in_seoul("모레 오후 3시", WEDNESDAY), "2026-12-04 15:00");
    assert_eq!(
        in_seoul("모레 오후 3시 30분", WEDNESDAY),
        "2026-12-04 15:30"
    );
    assert_eq!(in_seoul("오늘 밤 10시 반", WEDNESDAY), "2026-12-02 22:30");
    assert_eq!(in_seoul("2시간 후", WEDNESDAY), "2026-12-02 21:00");
    assert_eq!(in_seoul("30분 뒤", WEDNESDAY), "2026-12-02 19:30");
    assert_eq!(in_seoul("3일 후", WEDNESDAY), "2026-12-05 19:00");
    assert_eq!(
        in_seoul("다음 주 화요일 오후 3시", WEDNESDAY),
        "2026-12-08 15:00"
    );
    assert_eq!(in_seoul("다음주 월요일", WEDNESDAY), "2026-12-07 09:00");
    assert_eq!(in_seoul("금요일 저녁 7시", WEDNESDAY), "2026-12-04 19:00");
    assert_eq!(
        in_seoul("12월 24일 오후 6시", WEDNESDAY),
        "2026-12-24 18:00"
    );
    assert_eq!(
        in_seoul("1월 2일", WEDNESDAY),
        "2027-01-02 09:00",
        "this year's has gone"
    );
    assert_eq!(in_seoul("2026-12-24 18:00", WEDNESDAY), "2026-12-24 18:00");
}

#[test]
fn the_zone_decides_the_day() {
    // 23:30 UTC on Wednesday is already Thursday 08:30 in Seoul: "tomorrow" is Friday.
    let late = "2026-12-02T23:30:00Z";
    assert_eq!(in_utc("tomorrow 9:00", late), "2026-12-03 09:00");
    assert_eq!(in_seoul("tomorrow 9:00", late), "2026-12-04 09:00");
    assert_eq!(in_seoul("내일 오전 9시", late), "2026-12-04 09:00");
}

#[test]
fn a_day_is_a_calendar_day_across_a_daylight_saving_change() {
    // Saturday 28 March 2026, 12:00 in Berlin (UTC+1); the clocks go forward that night.
    let now = utc("2026-03-28T11:00:00Z");
    let tomorrow = parse("tomorrow 9:00", now, &Berlin2026).unwrap();
    assert_eq!(
        tomorrow,
        utc("2026-03-29T07:00:00Z"),
        "9:00 on the wall, now UTC+2"
    );
    // An amount of hours stays real time: 24 hours on is 13:00 on the wall.
    let later = parse("in 24 hours", now, &Berlin2026).unwrap();
    assert_eq!(later, utc("2026-03-29T11:00:00Z"));
    // A day on is the same wall time.
    let day = parse("in 1 day", now, &Berlin2026).unwrap();
    assert_eq!(
        day.with_timezone(&Berlin2026).format("%H:%M").to_string(),
        "12:00"
    );
    // 2:30 does not exist that night: the wall clock's 3:30 after the jump.
    let gap = parse("tomorrow 2:30", now, &Berlin2026).unwrap();
    assert_eq!(gap, utc("2026-03-29T01:30:00Z"));
    // 2:30 comes twice on 25 October: the first.
    let autumn = parse("2026-10-25 2:30", now, &Berlin2026).unwrap();
    assert_eq!(autumn, utc("2026-10-25T00:30:00Z"));
}

#[test]
fn words_it_cannot_read_are_an_error_naming_them() {
    let now = utc(WEDNESDAY);
    for text in [
        "",
        "   ",
        "someday",
        "tomorrow tomorrow",
        "in 2 hours tomorrow",
        "2026",
        "25:00",
        "13pm",
        "pm",
        "next",
        "in two hours",
        "2026-02-30 9:00",
        "내일 모레",
        "2시간",
        "before the end of the month",
    ] {
        let error = parse(text, now, &Utc).expect_err(text);
        assert_eq!(error.0, text.trim());
        assert!(error.to_string().contains("tomorrow 9:00"), "{error}");
    }
}
