//! Reminders as plain data and pure rules (docs/DESIGN.md, "Reminders"): a note's
//! reminder state, the words a person gives for a time ([`when`]), and which reminders
//! to show at a moment ([`due`]). No I/O and no runtime: the store keeps the times, the
//! CLI and the service read words with [`when::parse`], and the reminder actor carries
//! out what [`due::decide`] says. The AI's suggestion of a time the note states is
//! [`suggestion`]'s.

pub mod due;
pub mod review;
mod state;
pub mod suggestion;
// Test code lives under tests/ (the checks read it as such).
#[cfg(test)]
#[path = "tests/zone.rs"]
pub(crate) mod test_zone;
pub mod when;

pub use state::{ReminderChange, ReminderError, ReminderState, SNOOZE};

use chrono::{DateTime, Duration, TimeZone, Utc};

/// The last moment of `now`'s day in `zone` (23:59:59.999 on its wall clock): "today"
/// as the person means it, a short or long day (daylight saving) included.
pub fn end_of_day<Tz: TimeZone>(now: DateTime<Utc>, zone: &Tz) -> DateTime<Utc> {
    let today = now.with_timezone(zone).date_naive();
    let next_midnight = today
        .succ_opt()
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .and_then(|midnight| zone.from_local_datetime(&midnight).earliest());
    match next_midnight {
        Some(at) => at.with_timezone(&Utc) - Duration::milliseconds(1),
        // No midnight that day (a zone that skips it): a day on.
        None => now + Duration::days(1),
    }
}

#[cfg(test)]
mod tests;
