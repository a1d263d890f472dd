//! Every sentence the Rust side shows a person — the tray menu, stats.md, the model-time
//! line — in one table per language: [`en`] and [`ko`].
//!
//! Why a struct and not a key → string map: each language is a `const Words`, so a
//! sentence missing from one language does not compile, and a caller names a field, not a
//! string key that could be misspelt. Values are filled in by name (`{failed}`), with
//! [`fill`]; the test below checks that both languages use the same names for the same
//! sentence, as `web/i18n.json`'s parity test does for the page.

use std::fmt::Display;

use crate::configuration::Locale;

mod en;
mod ko;

/// Declares [`Words`] and its [`Words::entries`] from one list of field names, so the list
/// of sentences is written once.
macro_rules! words {
    ($($(#[doc = $doc:literal])* $name:ident),+ $(,)?) => {
        /// One language's sentences. `{name}` marks a value filled in by [`fill`].
        #[derive(Debug)]
        pub struct Words {
            $($(#[doc = $doc])* pub $name: &'static str,)+
        }

        impl Words {
            /// Every sentence with its field name, for the parity test.
            pub fn entries(&self) -> Vec<(&'static str, &'static str)> {
                vec![$((stringify!($name), self.$name)),+]
            }
        }
    };
}

words! {
    /// Tray: opens the notes page.
    tray_open_notes,
    /// Tray: writes the usage log to a file.
    tray_export_usage_log,
    /// Tray: asks the provider again now.
    tray_recheck_provider,
    /// Tray: retries every failed note; `{failed}` is how many.
    tray_process_ai_now,
    /// Tray: quits the service.
    tray_quit,
    /// Tray hover text while the provider cannot work.
    tray_tooltip_provider_down,
    /// Tray hover text while notes have failed; `{failed}` is how many.
    tray_tooltip_failed,
    /// stats.md: the heading.
    stats_title,
    /// stats.md: where it comes from; `{at}` is when it was made.
    stats_generated,
    /// stats.md: no events at all.
    stats_empty,
    /// stats.md: the table's columns.
    stats_column_date,
    stats_column_captured,
    stats_column_ai_done,
    stats_column_ai_failed_schema,
    stats_column_ai_failed_other,
    stats_column_rechecks,
    stats_column_retries,
    /// stats.md: the totals' heading and lines.
    stats_totals,
    stats_total_captured,
    stats_total_ai_done,
    stats_total_ai_failed,
    stats_total_rechecks,
    stats_total_recoveries,
    stats_total_retries,
    stats_total_enrich_requests,
    stats_total_edited,
    stats_total_tags_renamed,
    stats_total_transfers,
    stats_total_trash,
    stats_total_model_time,
}

/// The sentences of `locale`.
pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::En => &en::EN,
        Locale::Ko => &ko::KO,
    }
}

/// `template` with each `{name}` replaced by its value. A name with no value stays as it
/// is, so a mistake shows in the text instead of vanishing.
pub fn fill(template: &str, values: &[(&str, &dyn Display)]) -> String {
    let mut out = template.to_string();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), &value.to_string());
    }
    out
}

/// The `{name}`s a sentence uses, sorted.
#[cfg(test)]
fn placeholders(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_say_every_sentence_with_the_same_values() {
        let english = words(Locale::En).entries();
        let korean = words(Locale::Ko).entries();
        assert_eq!(english.len(), korean.len());
        for ((name, en), (_, ko)) in english.iter().zip(&korean) {
            assert!(!en.trim().is_empty(), "{name} is empty in English");
            assert!(!ko.trim().is_empty(), "{name} is empty in Korean");
            assert_eq!(
                placeholders(en),
                placeholders(ko),
                "{name} fills in other values in Korean"
            );
        }
    }

    #[test]
    fn fill_puts_values_in_by_name_and_leaves_unknown_names_visible() {
        assert_eq!(
            fill("Process AI now ({failed} failed)", &[("failed", &3)]),
            "Process AI now (3 failed)"
        );
        assert_eq!(
            fill("{at} and {other}", &[("at", &"now")]),
            "now and {other}"
        );
    }
}
