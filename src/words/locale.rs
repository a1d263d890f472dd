//! The languages inkling writes in for people.

use serde::{Deserialize, Serialize};

/// The language of what inkling writes for people (stats.md, the tray, the inbox page).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    #[default]
    En,
    Ko,
}
