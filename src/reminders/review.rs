//! The daily review (docs/DESIGN.md, "Reminders"), opt-in: once a day, at the time the
//! person picks, one notification "3 due today, 5 notes from yesterday". Plain rules:
//! the time read from the configuration ([`parse_time`]), whether the review is due at
//! a moment ([`is_due`]), and the day's bounds it counts in ([`yesterday`]).
//!
//! Once a day: the day it was last shown is kept (the store), so a restart shows it
//! no second time; a service started after the time, that day, shows it then, once.
//! The time is on the person's wall clock, so it follows a move to another time zone
//! and a daylight-saving change.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};

/// `"HH:MM"` (24-hour) as a time of day; `""` is off (`None`).
pub fn parse_time(text: &str) -> Result<Option<NaiveTime>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    NaiveTime::parse_from_str(text, "%H:%M")
        .map(Some)
        .map_err(|_| format!("\"{text}\" is not a time of day: write it as HH:MM, e.g. \"08:30\", or \"\" for no review"))
}

/// The review's day at `now` in `zone`, when it is due: `at` has come today and it
/// was not shown today (`last`, the day it was last shown).
pub fn is_due<Tz: TimeZone>(
    now: DateTime<Utc>,
    zone: &Tz,
    at: NaiveTime,
    last: Option<NaiveDate>,
) -> Option<NaiveDate> {
    let local = now.with_timezone(zone).naive_local();
    let today = local.date();
    (local.time() >= at && last != Some(today)).then_some(today)
}

/// Yesterday in `zone` as instants: from its midnight to today's.
pub fn yesterday<Tz: TimeZone>(now: DateTime<Utc>, zone: &Tz) -> (DateTime<Utc>, DateTime<Utc>) {
    let today = now.with_timezone(zone).date_naive();
    let midnight = |day: NaiveDate| {
        day.and_hms_opt(0, 0, 0)
            .and_then(|m| zone.from_local_datetime(&m).earliest())
            .map(|m| m.with_timezone(&Utc))
    };
    let start_of_today = midnight(today).unwrap_or(now - Duration::hours(24));
    let start_of_yesterday = today
        .pred_opt()
        .and_then(midnight)
        .unwrap_or(start_of_today - Duration::hours(24));
    (start_of_yesterday, start_of_today)
}

#[cfg(test)]
mod tests;
