//! Whether notes expire: the person's choice, asked once (docs/DESIGN.md, "Expiry").
//!
//! A note never kept for `expiry.days` may be looked through and tidied away, but only
//! when the person wants that: it is off until they say yes. The page asks once, after a
//! month of use (a first week has nothing to tidy, and a question on the first day
//! greets a person who has just imported years of notes). `expiry.choice` in the
//! settings can decide it instead (`on`, `off`), and then nothing is asked.
//!
//! [`Expiry`] is the one place the choice is held while the service runs: the store's
//! filters and counts and the answers' `expired` facts read the same handle, so an answer
//! takes effect everywhere at once.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// How long a person uses inkling before the page asks whether notes should expire.
pub const ASK_AFTER: Duration = Duration::days(30);

/// Whether notes expire: asked (not yet answered), on, or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ExpiryChoice {
    /// Not decided yet: off, and the page asks once the time has come.
    #[default]
    Ask,
    On,
    Off,
}

impl ExpiryChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            ExpiryChoice::Ask => "ask",
            ExpiryChoice::On => "on",
            ExpiryChoice::Off => "off",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ask" => Some(ExpiryChoice::Ask),
            "on" => Some(ExpiryChoice::On),
            "off" => Some(ExpiryChoice::Off),
            _ => None,
        }
    }

    fn code(self) -> u8 {
        match self {
            ExpiryChoice::Ask => 0,
            ExpiryChoice::On => 1,
            ExpiryChoice::Off => 2,
        }
    }

    fn from_code(code: u8) -> Self {
        match code {
            1 => ExpiryChoice::On,
            2 => ExpiryChoice::Off,
            _ => ExpiryChoice::Ask,
        }
    }
}

/// The expiry rule as it stands: its length, and the choice, shared by every reader.
#[derive(Debug, Clone)]
pub struct Expiry {
    days: u32,
    choice: Arc<AtomicU8>,
    /// `expiry.choice` in the settings is `on` or `off`: the person is not asked, and
    /// an answer is refused.
    by_settings: bool,
}

impl Expiry {
    /// Notes expire after `days` from the start (tests, benchmarks, `expiry.choice = "on"`).
    pub fn on(days: u32) -> Self {
        Self::new(days, ExpiryChoice::On)
    }

    pub fn new(days: u32, choice: ExpiryChoice) -> Self {
        Expiry {
            days,
            choice: Arc::new(AtomicU8::new(choice.code())),
            by_settings: false,
        }
    }

    /// Marks the choice as the settings' when `configured` decides it (`on`, `off`).
    pub fn decided_by_settings(mut self, configured: ExpiryChoice) -> Self {
        self.by_settings = configured != ExpiryChoice::Ask;
        self
    }

    pub fn is_decided_by_settings(&self) -> bool {
        self.by_settings
    }

    /// `expiry.days`, whether or not expiry is on.
    pub fn days(&self) -> u32 {
        self.days
    }

    pub fn choice(&self) -> ExpiryChoice {
        ExpiryChoice::from_code(self.choice.load(Ordering::Relaxed))
    }

    /// Takes `choice` for every holder of this handle.
    pub fn set(&self, choice: ExpiryChoice) {
        self.choice.store(choice.code(), Ordering::Relaxed);
    }

    /// The days after which a note expires now; `None` while expiry is not on.
    pub fn active_days(&self) -> Option<u32> {
        (self.choice() == ExpiryChoice::On).then_some(self.days)
    }
}

/// Whether the page should ask now: the choice is still open and the person has used
/// inkling for [`ASK_AFTER`] (their oldest note written here, not imported, is that old).
pub fn should_ask(
    choice: ExpiryChoice,
    oldest_written_here: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> bool {
    choice == ExpiryChoice::Ask && oldest_written_here.is_some_and(|at| now - at >= ASK_AFTER)
}

#[cfg(test)]
mod tests;
