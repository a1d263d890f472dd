//! The language inkling writes in for people, and how the `locale` key picks it.

use serde::Deserialize;

pub use crate::words::Locale;

/// The `locale` key: a language, or empty for "the environment's `LANG`".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum LocaleSetting {
    FromEnvironment,
    En,
    Ko,
}

impl TryFrom<String> for LocaleSetting {
    type Error = String;

    fn try_from(value: String) -> Result<Self, String> {
        match value.as_str() {
            "" => Ok(LocaleSetting::FromEnvironment),
            "en" => Ok(LocaleSetting::En),
            "ko" => Ok(LocaleSetting::Ko),
            other => Err(format!(
                "\"{other}\" is not one of en, ko (or empty: from LANG)"
            )),
        }
    }
}

impl Locale {
    /// The configured value wins; else `LANG` (`ko_KR.UTF-8` → Korean); else English.
    pub fn resolve(configured: LocaleSetting, lang: Option<&str>) -> Locale {
        match configured {
            LocaleSetting::Ko => Locale::Ko,
            LocaleSetting::En => Locale::En,
            LocaleSetting::FromEnvironment if lang.is_some_and(|l| l.starts_with("ko")) => {
                Locale::Ko
            }
            LocaleSetting::FromEnvironment => Locale::En,
        }
    }
}
