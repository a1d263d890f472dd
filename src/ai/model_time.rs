//! Where the model's time goes: into answers that were kept, into loading the model,
//! or wasted (a call abandoned at its deadline, an answer refused or thrown away), per
//! reason. Plain data: the core adds to it as calls end, `/api/status` shows it since
//! the service started, and each call's share is written to the usage log
//! (`ai_model_time`) so stats.md can add it up per day. The data itself is a wire type
//! (`crate::api::worker`); here is what the worker and the reports add to it: the use
//! of a failed call, and the words a report gives it.

use crate::ai::FailureReason;
use crate::configuration::Locale;
use crate::words::{fill, words};

use crate::api::worker::{ModelTime, ModelUse};

impl ModelUse {
    /// The waste of a failed call of `reason`.
    pub fn of_failure(reason: FailureReason) -> Self {
        match reason {
            FailureReason::Unreachable => ModelUse::Unreachable,
            FailureReason::Timeout => ModelUse::Timeout,
            FailureReason::Schema => ModelUse::Schema,
            FailureReason::Other => ModelUse::Other,
            FailureReason::ModelMissing => ModelUse::ModelMissing,
        }
    }

    /// What it is called in a report.
    pub fn words(self, locale: Locale) -> &'static str {
        let words = words(locale);
        match self {
            ModelUse::Kept => words.model_use_kept,
            ModelUse::Loading => words.model_use_loading,
            ModelUse::Timeout => words.model_use_timeout,
            ModelUse::Schema => words.model_use_schema,
            ModelUse::Other => words.model_use_other,
            ModelUse::Unreachable => words.model_use_unreachable,
            ModelUse::ModelMissing => words.model_use_model_missing,
            ModelUse::Edited => words.model_use_edited,
            ModelUse::Deleted => words.model_use_deleted,
            ModelUse::Unsaved => words.model_use_unsaved,
            ModelUse::Asked => words.model_use_asked,
            ModelUse::Vectors => words.model_use_vectors,
        }
    }
}

/// `3723000` → "1 h 2 min" ("1시간 2분"); under a minute in seconds.
fn duration(ms: u64, locale: Locale) -> String {
    let words = words(locale);
    let seconds = ms / 1000;
    let (hours, minutes) = (seconds / 3600, seconds % 3600 / 60);
    match (hours, minutes) {
        (0, 0) => fill(words.duration_seconds, &[("s", &seconds)]),
        (0, m) => fill(words.duration_minutes, &[("m", &m)]),
        (h, m) => fill(words.duration_hours, &[("h", &h), ("m", &m)]),
    }
}

impl ModelTime {
    /// Whether there is model time worth putting in shares: a second or more. Under
    /// that (a refused connection or two before the model ever worked) "0 s: wasted
    /// 100 %" would alarm for nothing.
    pub fn is_worth_saying(&self) -> bool {
        self.total_ms() >= 1000
    }

    /// "1 h 2 min: kept 91 %, loading 2 %, wasted 7 % (abandoned at the deadline 3 min,
    /// refused answers 40 s)", in the user's language; "none yet" under a second.
    pub fn describe(&self, locale: Locale) -> String {
        if !self.is_worth_saying() {
            return words(locale).model_time_none.to_string();
        }
        let total = self.total_ms();
        let share = |ms: u64| (ms * 100).checked_div(total).unwrap_or(0);
        let reasons: Vec<String> = self
            .wasted_ms
            .iter()
            .filter(|(_, ms)| **ms > 0)
            .map(|(usage, ms)| format!("{} {}", usage.words(locale), duration(*ms, locale)))
            .collect();
        let reasons = if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        };
        let (kept, loading, wasted) = (
            share(self.kept_ms),
            share(self.loading_ms),
            share(self.wasted_total_ms()),
        );
        let summary = fill(
            words(locale).model_time_summary,
            &[
                ("total", &duration(total, locale)),
                ("kept", &kept),
                ("loading", &loading),
                ("wasted", &wasted),
                ("reasons", &reasons),
            ],
        );
        let mut said = summary;
        if self.asked_ms > 0 {
            let asked = share(self.asked_ms);
            said += &fill(words(locale).model_time_asked, &[("asked", &asked)]);
        }
        if self.vectors_ms > 0 {
            let vectors = share(self.vectors_ms);
            said += &fill(words(locale).model_time_vectors, &[("vectors", &vectors)]);
        }
        if self.hung_up > 0 {
            said += &fill(
                words(locale).model_time_hung_up,
                &[
                    ("calls", &self.hung_up),
                    // Under a second in milliseconds: the figure is meant to be ~0.
                    (
                        "after",
                        &match self.after_hang_up_ms {
                            ms @ 0..=999 => format!("{ms} ms"),
                            ms => duration(ms, locale),
                        },
                    ),
                    ("measured", &self.after_hang_up_measured),
                ],
            );
        }
        said
    }
}

#[cfg(test)]
mod tests;
