//! The sentences the Rust side shows a person in the configured language — the tray
//! menu, stats.md, the model-time line — in one table per language: [`en`] and [`ko`].
//! (The CLI speaks English only; its words are in `src/cli/render.rs`.)
//!
//! Why a struct and not a key → string map: each language is a `const Words`, so a
//! sentence missing from one language does not compile, and a caller names a field, not a
//! string key that could be misspelt. Values are filled in by name (`{failed}`), with
//! [`fill`]; the test below checks that both languages use the same names for the same
//! sentence, as `web/i18n.json`'s parity test does for the page.

use std::fmt::Display;

mod en;
mod ko;
mod locale;
mod table;

pub use locale::Locale;

pub use table::Words;

/// The sentences of `locale`.
pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::En => &en::EN,
        Locale::Ko => &ko::KO,
    }
}

/// `template` with each `{name}` replaced by its value. A name with no value stays as it
/// is, so a mistake shows in the text instead of vanishing. One pass over the template:
/// a value is never read as a template itself (a tag named `{to}` is shown as it is).
pub fn fill(template: &str, values: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let named = after.find('}').and_then(|close| {
            let name = &after[..close];
            let value = values.iter().find(|(n, _)| *n == name)?.1;
            Some((value, close))
        });
        match named {
            Some((value, close)) => {
                out.push_str(&value.to_string());
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
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

    #[test]
    fn a_value_that_looks_like_a_name_is_shown_as_it_is() {
        assert_eq!(
            fill(
                "Renamed #{from} to #{to}.",
                &[("from", &"{to}"), ("to", &"{from}")]
            ),
            "Renamed #{to} to #{from}."
        );
        assert_eq!(fill("{{n}} {", &[("n", &1)]), "{1} {");
    }
}
