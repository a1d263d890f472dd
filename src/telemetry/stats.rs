//! `stats.md`: the usage log aggregated per UTC day, with totals (docs/DESIGN.md,
//! "Usage telemetry").
//!
//! Pure functions: [`aggregate`] counts events, [`render_markdown`] writes the report.
//! Days between the first and the last event that have no events get a row of zeros,
//! so quiet days show as quiet instead of vanishing.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use super::events::{FailedReason, UsageEvent};
use crate::configuration::Locale;
use crate::words::{fill, words};

/// What happened on one day (or in total).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub captured: u64,
    pub ai_done: u64,
    pub ai_failed_schema: u64,
    pub ai_failed_other: u64,
    pub ollama_rechecks: u64,
    pub ollama_recoveries: u64,
    /// Manual "retry all failed" uses.
    pub ai_retries: u64,
    /// Notes those retries sent back (Σ failedCount).
    pub ai_retried_notes: u64,
    /// One note's AI asked for again by hand ("Redo AI", "Retry", `inkling enrich`).
    pub ai_enrich_requests: u64,
    /// Notes edited by hand (body, title or tags).
    pub edited: u64,
    /// Tags renamed, and how many of those merged two tags.
    pub tags_renamed: u64,
    pub tags_merged: u64,
    /// Notes brought in by `inkling import`, and exports of the notes.
    pub notes_imported: u64,
    pub notes_exports: u64,
    pub trashed: u64,
    pub restored: u64,
    pub exports: u64,
    /// The model's time in ms, per use (`ModelUse::ALL`'s order).
    pub model_ms: [u64; crate::api::worker::ModelUse::ALL.len()],
}

impl Counts {
    fn add(&mut self, event: &UsageEvent) {
        match event {
            UsageEvent::NoteCaptured(_) => self.captured += 1,
            UsageEvent::AiDone(_) => self.ai_done += 1,
            UsageEvent::AiFailed(p) => match p.reason {
                FailedReason::Schema => self.ai_failed_schema += 1,
                FailedReason::Other => self.ai_failed_other += 1,
            },
            UsageEvent::AiModelTime(p) => {
                let slot = &mut self.model_ms[p.usage.index()];
                *slot = slot.saturating_add(p.ms);
            }
            UsageEvent::AiRetryManual(p) => {
                self.ai_retries += 1;
                self.ai_retried_notes += p.failed_count;
            }
            UsageEvent::AiEnrichRequested(_) => self.ai_enrich_requests += 1,
            UsageEvent::NoteEdited(_) => self.edited += 1,
            UsageEvent::TagRenamed(p) => {
                self.tags_renamed += 1;
                self.tags_merged += u64::from(p.merged);
            }
            UsageEvent::NotesImported(p) => self.notes_imported += p.count,
            UsageEvent::NotesExported(_) => self.notes_exports += 1,
            UsageEvent::ProviderRecheckManual(_) => self.ollama_rechecks += 1,
            UsageEvent::ProviderRecovered(_) => self.ollama_recoveries += 1,
            UsageEvent::NoteTrashed(_) => self.trashed += 1,
            UsageEvent::NoteRestored(_) => self.restored += 1,
            UsageEvent::UsageLogExported(_) => self.exports += 1,
        }
    }

    pub fn ai_failed(&self) -> u64 {
        self.ai_failed_schema + self.ai_failed_other
    }
}

/// The aggregated log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UsageStats {
    /// One entry per day from the first to the last event, gaps filled with zeros.
    pub days: BTreeMap<NaiveDate, Counts>,
    pub total: Counts,
}

/// Counts events per UTC day and in total.
pub fn aggregate(events: impl IntoIterator<Item = (DateTime<Utc>, UsageEvent)>) -> UsageStats {
    let mut stats = UsageStats::default();
    for (at, event) in events {
        stats.days.entry(at.date_naive()).or_default().add(&event);
        stats.total.add(&event);
    }
    let range = stats
        .days
        .first_key_value()
        .map(|(d, _)| *d)
        .zip(stats.days.last_key_value().map(|(d, _)| *d));
    if let Some((first, last)) = range {
        for day in first.iter_days().take_while(|d| *d <= last) {
            stats.days.entry(day).or_default();
        }
    }
    stats
}

/// The report, in the user's language (the sentences are in `crate::words`).
pub fn render_markdown(stats: &UsageStats, locale: Locale, generated_at: &str) -> String {
    let words = words(locale);
    let mut out = String::new();
    out.push_str(words.stats_title);
    out.push_str("\n\n");
    out.push_str(&fill(words.stats_generated, &[("at", &generated_at)]));
    out.push_str("\n\n");
    if stats.days.is_empty() {
        out.push_str(words.stats_empty);
        out.push_str("\n\n");
    } else {
        let columns = [
            words.stats_column_date,
            words.stats_column_captured,
            words.stats_column_ai_done,
            words.stats_column_ai_failed_schema,
            words.stats_column_ai_failed_other,
            words.stats_column_rechecks,
            words.stats_column_retries,
        ];
        out.push_str(&format!("| {} |\n", columns.join(" | ")));
        out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
        for (day, c) in &stats.days {
            out.push_str(&format!(
                "| {day} | {} | {} | {} | {} | {} | {} |\n",
                c.captured,
                c.ai_done,
                c.ai_failed_schema,
                c.ai_failed_other,
                c.ollama_rechecks,
                c.ai_retries
            ));
        }
        out.push('\n');
    }
    out.push_str(words.stats_totals);
    out.push_str("\n\n");
    let t = &stats.total;
    let lines = [
        fill(words.stats_total_captured, &[("n", &t.captured)]),
        fill(words.stats_total_ai_done, &[("n", &t.ai_done)]),
        fill(
            words.stats_total_ai_failed,
            &[
                ("n", &t.ai_failed()),
                ("schema", &t.ai_failed_schema),
                ("other", &t.ai_failed_other),
            ],
        ),
        fill(words.stats_total_rechecks, &[("n", &t.ollama_rechecks)]),
        fill(words.stats_total_recoveries, &[("n", &t.ollama_recoveries)]),
        fill(
            words.stats_total_retries,
            &[("times", &t.ai_retries), ("notes", &t.ai_retried_notes)],
        ),
        fill(
            words.stats_total_enrich_requests,
            &[("n", &t.ai_enrich_requests)],
        ),
        fill(words.stats_total_edited, &[("n", &t.edited)]),
        fill(
            words.stats_total_tags_renamed,
            &[("n", &t.tags_renamed), ("merged", &t.tags_merged)],
        ),
        fill(
            words.stats_total_transfers,
            &[
                ("exports", &t.notes_exports),
                ("imported", &t.notes_imported),
            ],
        ),
        fill(
            words.stats_total_trash,
            &[("trashed", &t.trashed), ("restored", &t.restored)],
        ),
        fill(
            words.stats_total_model_time,
            &[("time", &model_time(&t.model_ms).describe(locale))],
        ),
    ];
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The model's time from the per-use totals (`ModelTime::describe` says it in words).
fn model_time(
    model_ms: &[u64; crate::api::worker::ModelUse::ALL.len()],
) -> crate::api::worker::ModelTime {
    use crate::api::worker::{ModelTime, ModelUse};
    let mut time = ModelTime::default();
    for usage in ModelUse::ALL {
        time.add(usage, model_ms[usage.index()]);
    }
    time
}

#[cfg(test)]
mod tests;
