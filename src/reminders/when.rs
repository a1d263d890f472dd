//! A time in a person's words, read as an instant: "tomorrow 9:00", "in 2 hours",
//! "2026-12-24 18:00", "next tuesday 3pm", "내일 오전 9시", "2시간 후", "모레 오후 3시".
//!
//! Read against a given "now" and the person's time zone, never the machine's clock,
//! so the CLI, the service and the AI's suggestion (a phrase the model quotes, resolved
//! against the note's capture time) read a phrase alike, and tests put "now" anywhere.
//! A day and a time of day are resolved in the zone's calendar ("tomorrow 9:00" is 9:00
//! on the wall clock the day after, across a daylight-saving change too); an amount of
//! hours or minutes is that much real time. What it cannot read is an error naming the
//! words, never a guess: a reminder at the wrong time is worse than none.

use chrono::{
    DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc,
    Weekday,
};

/// The hour a day given without a time stands for ("tomorrow", "내일").
pub const DEFAULT_HOUR: u32 = 9;
/// The hour of "tonight" alone.
const TONIGHT_HOUR: u32 = 20;

/// Words that cannot be read as a time; the message says what can.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot read \"{0}\" as a time: try \"tomorrow 9:00\", \"in 2 hours\", \"2026-12-24 18:00\", \
     \"next tuesday 3pm\", \"내일 오전 9시\" or \"2시간 후\""
)]
pub struct WhenError(pub String);

/// `text` read as an instant, against `now` in `zone`. A time of day alone is its next
/// coming ("9:00" after nine is tomorrow's); a day alone is at [`DEFAULT_HOUR`]; a
/// weekday alone is its next coming (today while its time is still ahead). Without am/pm
/// (오전/오후) an hour is read on the 24-hour clock. The answer may be in the past (an
/// absolute date that has gone): the caller decides whether that is wanted.
pub fn parse<Tz: TimeZone>(
    text: &str,
    now: DateTime<Utc>,
    zone: &Tz,
) -> Result<DateTime<Utc>, WhenError> {
    let error = || WhenError(text.trim().to_string());
    if let Ok(at) = DateTime::parse_from_rfc3339(text.trim()) {
        return Ok(at.with_timezone(&Utc));
    }
    let tokens = tokens(text);
    if tokens.is_empty() {
        return Err(error());
    }
    let spec = Spec::read(&tokens).ok_or_else(error)?;
    spec.resolve(now, zone).ok_or_else(error)
}

/// The words cut into tokens: lower case, a run of digits (with `:`, `-`, `/`, `.`
/// inside it) apart from letters, Hangul apart from Latin, so "오전9시30분" reads as
/// "오전 9 시 30 분" and "3pm" as "3 pm".
fn tokens(text: &str) -> Vec<String> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Number,
        Latin,
        Hangul,
    }
    let class = |c: char| {
        if c.is_ascii_digit() {
            Some(Class::Number)
        } else if c.is_alphabetic() && !c.is_ascii() {
            Some(Class::Hangul)
        } else if c.is_alphabetic() {
            Some(Class::Latin)
        } else {
            None
        }
    };
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<Class> = None;
    for c in text.to_lowercase().chars() {
        // Separators inside a number ("9:00", "2026-12-24", "12/24") stay in it.
        let inside_number = last == Some(Class::Number) && matches!(c, ':' | '-' | '/' | '.');
        if inside_number {
            if let Some(token) = out.last_mut() {
                token.push(c);
            }
            continue;
        }
        match class(c) {
            Some(now) if Some(now) == last => {
                if let Some(token) = out.last_mut() {
                    token.push(c);
                }
            }
            Some(now) => {
                out.push(c.to_string());
                last = Some(now);
            }
            None => last = None,
        }
    }
    // A number ending in a separator ("3." at a sentence's end) drops it.
    for token in &mut out {
        while token.ends_with(['.', '-', '/', ':']) {
            token.pop();
        }
    }
    // Korean is often written without spaces ("내일오전", "9시에"): a run of Hangul is
    // cut into the words below, longest first; a run they do not make stays whole
    // (and is an error later).
    out.into_iter()
        .flat_map(|token| korean_words(&token))
        .collect()
}

/// Every Korean word the parser knows, longer ones first where one begins another.
const KOREAN: [&str; 39] = [
    "월요일",
    "화요일",
    "수요일",
    "목요일",
    "금요일",
    "토요일",
    "일요일",
    "다음주",
    "이번주",
    "있다가",
    "오늘",
    "내일",
    "모레",
    "글피",
    "오전",
    "오후",
    "아침",
    "저녁",
    "새벽",
    "정오",
    "자정",
    "다음",
    "이번",
    "시간",
    "주일",
    "까지",
    "밤",
    "시",
    "분",
    "반",
    "후",
    "뒤",
    "월",
    "일",
    "주",
    "에",
    "쯤",
    "경",
    "낮",
];

/// `token` cut into known Korean words, or itself when they do not make it.
fn korean_words(token: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = token;
    while !rest.is_empty() {
        match KOREAN.iter().find(|word| rest.starts_with(*word)) {
            Some(word) => {
                words.push((*word).to_string());
                rest = &rest[word.len()..];
            }
            None => return vec![token.to_string()],
        }
    }
    words
}

/// What the words name, before it is placed in time.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Spec {
    /// An amount of time from now ("in 2 hours", "2시간 후").
    after: Option<Amount>,
    day: Option<Day>,
    hour: Option<u32>,
    minute: Option<u32>,
    meridiem: Option<Meridiem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Amount {
    /// Real time: minutes and hours.
    Exact(Duration),
    /// Calendar days: the same time of day, that many days on.
    Days(i64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Day {
    /// Days from today (today 0, tomorrow 1, 모레 2).
    FromToday(i64),
    /// "tonight": today, at [`TONIGHT_HOUR`] when no time is given.
    Tonight,
    /// A weekday's next coming; `after_today` when it is never today ("next tuesday").
    Weekday {
        day: Weekday,
        after_today: bool,
    },
    /// A weekday of next week (Monday to Sunday), "다음 주 화요일".
    NextWeek(Weekday),
    Date(NaiveDate),
    /// A month and day with no year: this year's, or next year's once it has gone.
    MonthDate(u32, u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meridiem {
    Am,
    Pm,
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" | "mon" | "월요일" => Weekday::Mon,
        "tuesday" | "tue" | "tues" | "화요일" => Weekday::Tue,
        "wednesday" | "wed" | "수요일" => Weekday::Wed,
        "thursday" | "thu" | "thur" | "thurs" | "목요일" => Weekday::Thu,
        "friday" | "fri" | "금요일" => Weekday::Fri,
        "saturday" | "sat" | "토요일" => Weekday::Sat,
        "sunday" | "sun" | "일요일" => Weekday::Sun,
        _ => return None,
    })
}

/// A unit of an amount of time, English or Korean.
fn unit(word: &str, n: i64) -> Option<Amount> {
    Some(match word {
        "m" | "min" | "mins" | "minute" | "minutes" | "분" => Amount::Exact(Duration::minutes(n)),
        "h" | "hr" | "hrs" | "hour" | "hours" | "시간" => Amount::Exact(Duration::hours(n)),
        "d" | "day" | "days" | "일" => Amount::Days(n),
        "w" | "week" | "weeks" | "주" | "주일" => Amount::Days(n.checked_mul(7)?),
        _ => return None,
    })
}

/// "9:00", "15:30" → (hour, minute).
fn clock_time(token: &str) -> Option<(u32, u32)> {
    let (h, m) = token.split_once(':')?;
    let (h, m) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 24 && m <= 59).then_some((h, m))
}

/// "2026-12-24", "2026/12/24", "2026.12.24".
fn date(token: &str) -> Option<NaiveDate> {
    let parts: Vec<&str> = token.split(['-', '/', '.']).collect();
    let [y, m, d] = parts.as_slice() else {
        return None;
    };
    if y.len() != 4 {
        return None;
    }
    NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
}

impl Spec {
    /// Fills the spec from the tokens; `None` when a token is not understood or two
    /// say different things.
    fn read(tokens: &[String]) -> Option<Spec> {
        let mut spec = Spec::default();
        let mut i = 0;
        let at = |i: usize| tokens.get(i).map(String::as_str);
        let number = |i: usize| -> Option<i64> { at(i)?.parse().ok() };
        while let Some(word) = at(i) {
            i += 1;
            match word {
                // Words that only join others.
                "at" | "on" | "the" | "t" | "에" | "쯤" | "경" | "까지" => {}
                "today" | "오늘" => spec.set_day(Day::FromToday(0))?,
                "tonight" => spec.set_day(Day::Tonight)?,
                "tomorrow" | "tmr" | "내일" => spec.set_day(Day::FromToday(1))?,
                "모레" => spec.set_day(Day::FromToday(2))?,
                "글피" => spec.set_day(Day::FromToday(3))?,
                "day" if at(i) == Some("after") && at(i + 1) == Some("tomorrow") => {
                    i += 2;
                    spec.set_day(Day::FromToday(2))?;
                }
                "next" => {
                    let day = weekday(at(i)?)?;
                    i += 1;
                    spec.set_day(Day::Weekday {
                        day,
                        after_today: true,
                    })?;
                }
                "다음주" | "다음" => {
                    if word == "다음" && at(i) == Some("주") {
                        i += 1;
                    }
                    let day = weekday(at(i)?)?;
                    i += 1;
                    spec.set_day(Day::NextWeek(day))?;
                }
                "이번주" | "이번" => {
                    if word == "이번" && at(i) == Some("주") {
                        i += 1;
                    }
                    let day = weekday(at(i)?)?;
                    i += 1;
                    spec.set_day(Day::Weekday {
                        day,
                        after_today: false,
                    })?;
                }
                "in" => {
                    let (n, skip) = match at(i)? {
                        "a" | "an" | "one" => (1, 1),
                        _ => (number(i)?, 1),
                    };
                    let amount = unit(at(i + skip)?, n)?;
                    i += skip + 1;
                    spec.set_after(amount)?;
                }
                "am" | "오전" | "아침" | "새벽" => spec.set_meridiem(Meridiem::Am)?,
                "pm" | "오후" | "저녁" | "밤" | "낮" => spec.set_meridiem(Meridiem::Pm)?,
                "noon" | "정오" => spec.set_time(12, 0)?,
                "midnight" | "자정" => spec.set_time(0, 0)?,
                _ => {
                    if let Some(day) = weekday(word) {
                        spec.set_day(Day::Weekday {
                            day,
                            after_today: false,
                        })?;
                    } else if let Some(day) = date(word) {
                        spec.set_day(Day::Date(day))?;
                    } else if let Some((h, m)) = clock_time(word) {
                        spec.set_time(h, m)?;
                    } else if let Ok(n) = word.parse::<i64>() {
                        i = spec.read_number(n, tokens, i)?;
                    } else {
                        return None;
                    }
                }
            }
        }
        Some(spec)
    }

    /// A number and the word after it: "9 시", "30 분", "2 시간 후", "12 월 24 일",
    /// "3 pm", or an hour alone. Returns where reading goes on.
    fn read_number(&mut self, n: i64, tokens: &[String], i: usize) -> Option<usize> {
        let next = tokens.get(i).map(String::as_str);
        let after_next = tokens.get(i + 1).map(String::as_str);
        let small = u32::try_from(n).ok()?;
        match next {
            Some("시") => {
                self.set_time(small, 0)?;
                match (after_next, tokens.get(i + 2).map(String::as_str)) {
                    (Some("반"), _) => {
                        self.minute = Some(30);
                        Some(i + 2)
                    }
                    (Some(m), Some("분")) => {
                        self.minute = Some(m.parse().ok().filter(|m| *m <= 59)?);
                        Some(i + 3)
                    }
                    _ => Some(i + 1),
                }
            }
            Some("월") => {
                let day: u32 = after_next?.parse().ok()?;
                if tokens.get(i + 2).map(String::as_str) != Some("일") {
                    return None;
                }
                self.set_day(Day::MonthDate(small, day))?;
                Some(i + 3)
            }
            Some(word) if matches!(after_next, Some("후" | "뒤" | "있다가")) => {
                self.set_after(unit(word, n)?)?;
                Some(i + 2)
            }
            // "2 hours from now"
            Some(word)
                if after_next == Some("from")
                    && tokens.get(i + 2).map(String::as_str) == Some("now") =>
            {
                self.set_after(unit(word, n)?)?;
                Some(i + 3)
            }
            // An hour alone ("tomorrow 9", "3 pm" reads "pm" next).
            _ if small <= 24 => {
                self.set_time(small, 0)?;
                Some(i)
            }
            _ => None,
        }
    }

    fn set_day(&mut self, day: Day) -> Option<()> {
        (self.day.replace(day).is_none() && self.after.is_none()).then_some(())
    }

    fn set_after(&mut self, amount: Amount) -> Option<()> {
        let alone = self.day.is_none() && self.hour.is_none() && self.meridiem.is_none();
        (self.after.replace(amount).is_none() && alone).then_some(())
    }

    fn set_time(&mut self, hour: u32, minute: u32) -> Option<()> {
        (self.hour.replace(hour).is_none() && self.after.is_none()).then_some(())?;
        self.minute = Some(minute);
        Some(())
    }

    fn set_meridiem(&mut self, meridiem: Meridiem) -> Option<()> {
        (self.meridiem.replace(meridiem).is_none() && self.after.is_none()).then_some(())
    }

    /// The hour and minute on the 24-hour clock, when a time of day was given.
    fn time_of_day(&self) -> Option<Option<NaiveTime>> {
        let Some(hour) = self.hour else {
            // "pm" with no hour is not a time.
            return self.meridiem.is_none().then_some(None);
        };
        let hour = match (self.meridiem, hour) {
            (None, 24) => 0,
            (None, h) => h,
            (Some(_), h) if !(1..=12).contains(&h) => return None,
            (Some(Meridiem::Am), 12) => 0,
            (Some(Meridiem::Am), h) => h,
            (Some(Meridiem::Pm), 12) => 12,
            (Some(Meridiem::Pm), h) => h + 12,
        };
        NaiveTime::from_hms_opt(hour, self.minute.unwrap_or(0), 0).map(Some)
    }

    fn resolve<Tz: TimeZone>(&self, now: DateTime<Utc>, zone: &Tz) -> Option<DateTime<Utc>> {
        let local_now = now.with_timezone(zone).naive_local();
        let today = local_now.date();
        match self.after {
            Some(Amount::Exact(by)) => return now.checked_add_signed(by),
            Some(Amount::Days(n)) => {
                let day = today.checked_add_signed(Duration::days(n))?;
                return in_zone(day.and_time(local_now.time()), zone);
            }
            None => {}
        }
        let time = self.time_of_day()?;
        let at_time = |day: NaiveDate, default_hour: u32| {
            let time = time.or_else(|| NaiveTime::from_hms_opt(default_hour, 0, 0))?;
            Some(day.and_time(time))
        };
        let local = match self.day {
            None => {
                // A time of day alone: its next coming.
                let time = time?;
                let today_at = today.and_time(time);
                if today_at > local_now {
                    today_at
                } else {
                    today.succ_opt()?.and_time(time)
                }
            }
            Some(Day::FromToday(n)) => {
                at_time(today.checked_add_signed(Duration::days(n))?, DEFAULT_HOUR)?
            }
            Some(Day::Tonight) => at_time(today, TONIGHT_HOUR)?,
            Some(Day::Weekday { day, after_today }) => {
                let ahead = (7 + i64::from(day.num_days_from_monday())
                    - i64::from(today.weekday().num_days_from_monday()))
                    % 7;
                let on_the_day = at_time(
                    today.checked_add_signed(Duration::days(ahead))?,
                    DEFAULT_HOUR,
                )?;
                if ahead == 0 && (after_today || on_the_day <= local_now) {
                    on_the_day.checked_add_signed(Duration::days(7))?
                } else {
                    on_the_day
                }
            }
            Some(Day::NextWeek(day)) => {
                let monday = today.checked_sub_signed(Duration::days(i64::from(
                    today.weekday().num_days_from_monday(),
                )))?;
                let offset = 7 + i64::from(day.num_days_from_monday());
                at_time(
                    monday.checked_add_signed(Duration::days(offset))?,
                    DEFAULT_HOUR,
                )?
            }
            Some(Day::Date(day)) => at_time(day, DEFAULT_HOUR)?,
            Some(Day::MonthDate(month, day)) => {
                let this_year = NaiveDate::from_ymd_opt(today.year(), month, day)
                    .and_then(|d| at_time(d, DEFAULT_HOUR))?;
                if this_year > local_now {
                    this_year
                } else {
                    NaiveDate::from_ymd_opt(today.year() + 1, month, day)
                        .and_then(|d| at_time(d, DEFAULT_HOUR))?
                }
            }
        };
        in_zone(local, zone)
    }
}

/// A wall-clock time in `zone` as an instant. A time that comes twice (the hour the
/// clocks go back) is its first; a time that never comes (the hour skipped when they go
/// forward) is read as the wall clock shows it after the jump, an hour on.
fn in_zone<Tz: TimeZone>(local: NaiveDateTime, zone: &Tz) -> Option<DateTime<Utc>> {
    match zone.from_local_datetime(&local) {
        LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
        LocalResult::Ambiguous(first, _) => Some(first.with_timezone(&Utc)),
        LocalResult::None => match zone.from_local_datetime(&(local + Duration::hours(1))) {
            LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => Some(at.with_timezone(&Utc)),
            LocalResult::None => None,
        },
    }
}

#[cfg(test)]
mod tests;
