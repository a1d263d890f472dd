//! A time zone for tests with a daylight-saving change, without a time-zone database:
//! Central European time in 2026 (UTC+1, UTC+2 from 29 March 01:00 UTC to 25 October
//! 01:00 UTC), as Europe/Berlin has it that year.

use chrono::{FixedOffset, MappedLocalTime, NaiveDate, NaiveDateTime, TimeZone};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Berlin2026;

fn hours(h: i32) -> FixedOffset {
    FixedOffset::east_opt(h * 3600).expect("a small offset")
}

fn utc(y: i32, m: u32, d: u32, h: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, m, d)
        .and_then(|d| d.and_hms_opt(h, 0, 0))
        .expect("a valid date")
}

impl TimeZone for Berlin2026 {
    type Offset = FixedOffset;

    fn from_offset(_: &FixedOffset) -> Self {
        Berlin2026
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<FixedOffset> {
        self.offset_from_local_datetime(&local.and_hms_opt(12, 0, 0).expect("noon"))
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<FixedOffset> {
        let fits: Vec<FixedOffset> = [hours(1), hours(2)]
            .into_iter()
            .filter(|off| self.offset_from_utc_datetime(&(*local - *off)) == *off)
            .collect();
        match fits.as_slice() {
            [one] => MappedLocalTime::Single(*one),
            [first, second] => MappedLocalTime::Ambiguous(*second, *first),
            _ => MappedLocalTime::None,
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> FixedOffset {
        self.offset_from_utc_datetime(&utc.and_hms_opt(12, 0, 0).expect("noon"))
    }

    fn offset_from_utc_datetime(&self, at: &NaiveDateTime) -> FixedOffset {
        if *at >= utc(2026, 3, 29, 1) && *at < utc(2026, 10, 25, 1) {
            hours(2)
        } else {
            hours(1)
        }
    }
}
