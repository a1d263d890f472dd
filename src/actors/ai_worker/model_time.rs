//! Where the model's time goes: into answers that were kept, into loading the model,
//! or wasted (a call abandoned at its deadline, an answer refused or thrown away), per
//! reason. Plain data: the core adds to it as calls end, `/api/status` shows it since
//! the service started, and each call's share is written to the usage log
//! (`ai_model_time`) so stats.md can add it up per day.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ai::FailureReason;
use crate::configuration::Locale;

/// What one stretch of the model's time went into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelUse {
    /// An answer that was saved.
    Kept,
    /// Loading the model before a note.
    Loading,
    /// A call abandoned at its deadline.
    Timeout,
    /// An answer refused as unusable.
    Schema,
    /// A call that failed otherwise (a runner crash, an unexpected answer).
    Other,
    /// A call that found nobody (connection refused or reset).
    Unreachable,
    /// A call that found the model missing.
    ModelMissing,
    /// An answer for a body the note no longer had (edited while the model read it).
    Edited,
    /// An answer for a note deleted meanwhile.
    Deleted,
    /// An answer that could not be saved (a full disk, a refused write).
    Unsaved,
}

impl ModelUse {
    /// Every use, in the order reports list them.
    pub const ALL: [ModelUse; 10] = [
        ModelUse::Kept,
        ModelUse::Loading,
        ModelUse::Timeout,
        ModelUse::Schema,
        ModelUse::Other,
        ModelUse::Unreachable,
        ModelUse::ModelMissing,
        ModelUse::Edited,
        ModelUse::Deleted,
        ModelUse::Unsaved,
    ];

    /// Its place in [`ModelUse::ALL`].
    pub fn index(self) -> usize {
        ModelUse::ALL.iter().position(|u| *u == self).unwrap_or(0)
    }

    /// The name written in the usage log and `/api/status`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelUse::Kept => "kept",
            ModelUse::Loading => "loading",
            ModelUse::Timeout => "timeout",
            ModelUse::Schema => "schema",
            ModelUse::Other => "other",
            ModelUse::Unreachable => "unreachable",
            ModelUse::ModelMissing => "model_missing",
            ModelUse::Edited => "edited",
            ModelUse::Deleted => "deleted",
            ModelUse::Unsaved => "unsaved",
        }
    }

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

    pub fn is_waste(self) -> bool {
        !matches!(self, ModelUse::Kept | ModelUse::Loading)
    }

    /// What it is called in a report.
    pub fn words(self, locale: Locale) -> &'static str {
        use ModelUse as U;
        match (locale, self) {
            (Locale::En, U::Kept) => "kept",
            (Locale::En, U::Loading) => "loading",
            (Locale::En, U::Timeout) => "abandoned at the deadline",
            (Locale::En, U::Schema) => "refused answers",
            (Locale::En, U::Other) => "other errors",
            (Locale::En, U::Unreachable) => "no connection",
            (Locale::En, U::ModelMissing) => "model missing",
            (Locale::En, U::Edited) => "edited while read",
            (Locale::En, U::Deleted) => "deleted while read",
            (Locale::En, U::Unsaved) => "could not be saved",
            (Locale::Ko, U::Kept) => "쓴 답",
            (Locale::Ko, U::Loading) => "불러오기",
            (Locale::Ko, U::Timeout) => "시간 초과",
            (Locale::Ko, U::Schema) => "쓸 수 없는 답",
            (Locale::Ko, U::Other) => "기타 오류",
            (Locale::Ko, U::Unreachable) => "연결 안 됨",
            (Locale::Ko, U::ModelMissing) => "모델 없음",
            (Locale::Ko, U::Edited) => "읽는 중 고친 노트",
            (Locale::Ko, U::Deleted) => "읽는 중 지운 노트",
            (Locale::Ko, U::Unsaved) => "저장 실패",
        }
    }
}

/// `3723000` → "1 h 2 min" ("1시간 2분"); under a minute in seconds.
fn duration(ms: u64, locale: Locale) -> String {
    let seconds = ms / 1000;
    let (hours, minutes) = (seconds / 3600, seconds % 3600 / 60);
    match (locale, hours, minutes) {
        (Locale::En, 0, 0) => format!("{seconds} s"),
        (Locale::En, 0, m) => format!("{m} min"),
        (Locale::En, h, m) => format!("{h} h {m} min"),
        (Locale::Ko, 0, 0) => format!("{seconds}초"),
        (Locale::Ko, 0, m) => format!("{m}분"),
        (Locale::Ko, h, m) => format!("{h}시간 {m}분"),
    }
}

/// The model's time since the service started, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTime {
    pub kept_ms: u64,
    pub loading_ms: u64,
    /// Per reason; only reasons that wasted any time.
    pub wasted_ms: BTreeMap<ModelUse, u64>,
}

impl ModelTime {
    pub fn add(&mut self, usage: ModelUse, ms: u64) {
        match usage {
            ModelUse::Kept => self.kept_ms = self.kept_ms.saturating_add(ms),
            ModelUse::Loading => self.loading_ms = self.loading_ms.saturating_add(ms),
            waste => {
                let entry = self.wasted_ms.entry(waste).or_default();
                *entry = entry.saturating_add(ms);
            }
        }
    }

    pub fn wasted_total_ms(&self) -> u64 {
        self.wasted_ms.values().sum()
    }

    pub fn total_ms(&self) -> u64 {
        self.kept_ms + self.loading_ms + self.wasted_total_ms()
    }

    /// "1 h 2 min: kept 91 %, loading 2 %, wasted 7 % (abandoned at the deadline 3 min,
    /// refused answers 40 s)", in the user's language.
    pub fn describe(&self, locale: Locale) -> String {
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
        match locale {
            Locale::En => format!(
                "{}: kept {kept} %, loading {loading} %, wasted {wasted} %{reasons}",
                duration(total, locale)
            ),
            Locale::Ko => format!(
                "{}: 쓴 답 {kept}%, 불러오기 {loading}%, 버린 시간 {wasted}%{reasons}",
                duration(total, locale)
            ),
        }
    }

    /// The share of the model's time wasted, in percent (0 when it did nothing).
    pub fn wasted_percent(&self) -> u64 {
        (self.wasted_total_ms() * 100)
            .checked_div(self.total_ms())
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_added_up_as_kept_loading_or_wasted_per_reason() {
        let mut time = ModelTime::default();
        time.add(ModelUse::Kept, 6_000);
        time.add(ModelUse::Loading, 2_000);
        time.add(ModelUse::Timeout, 1_500);
        time.add(ModelUse::Timeout, 500);
        assert_eq!(time.total_ms(), 10_000);
        assert_eq!(time.wasted_ms, BTreeMap::from([(ModelUse::Timeout, 2_000)]));
        assert_eq!(time.wasted_percent(), 20);
        assert_eq!(ModelTime::default().wasted_percent(), 0);
        assert!(ModelUse::of_failure(FailureReason::Schema).is_waste());
        assert!(!ModelUse::Loading.is_waste());
        let json = serde_json::to_value(&time).unwrap();
        assert_eq!(json["wasted_ms"]["timeout"], 2_000);
    }
}
