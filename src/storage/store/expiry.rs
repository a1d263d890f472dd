//! Whether notes expire, in the store (migration 0012): the person's answer, kept in its
//! one row, and what the page needs to know when to ask (`crate::expiry`).

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError, StoreResult};
use crate::domain::timestamp;
use crate::expiry::{Expiry, ExpiryChoice};

impl Store {
    /// The handle every reader of the expiry rule shares (the routes, the live feeds).
    pub fn expiry(&self) -> Expiry {
        self.expiry.clone()
    }

    /// Reads the rule from here on through `expiry`: a store opened again after a
    /// failure keeps the handle the routes hold.
    pub fn share_expiry(&mut self, expiry: Expiry) {
        self.expiry = expiry;
    }

    /// Takes the choice at start: `configured` when the settings decide it (`on`,
    /// `off`), else the person's stored answer, else not answered yet.
    pub fn take_expiry_choice(&mut self, configured: ExpiryChoice) -> StoreResult<()> {
        let choice = match configured {
            ExpiryChoice::Ask => self.stored_expiry_choice()?.unwrap_or(ExpiryChoice::Ask),
            decided => decided,
        };
        self.expiry = Expiry::new(self.expiry.days(), choice).decided_by_settings(configured);
        Ok(())
    }

    /// The person's answer (notes expire or not): stored, and taken by every reader at
    /// once. Refused when the settings decide it.
    pub fn choose_expiry(&mut self, on: bool, now: DateTime<Utc>) -> StoreResult<()> {
        let choice = if on {
            ExpiryChoice::On
        } else {
            ExpiryChoice::Off
        };
        if self.expiry.is_decided_by_settings() {
            return Err(StoreError::Conflict(
                "whether notes expire is set by expiry.choice in the settings file; \
                 change it there"
                    .to_string(),
            ));
        }
        self.check_file()?;
        self.conn
            .prepare_cached(
                "INSERT INTO expiry_choice (id, choice, chosen_at) VALUES (1, ?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET choice = ?1, chosen_at = ?2",
            )?
            .execute(params![choice.as_str(), timestamp(now)])?;
        self.expiry.set(choice);
        Ok(())
    }

    /// When the oldest note written here (not imported, not in the trash) was written:
    /// how long the person has used inkling, for when to ask.
    pub fn oldest_written_here(&self) -> StoreResult<Option<DateTime<Utc>>> {
        // Newest-first index, read from its old end; imported notes are skipped.
        let oldest: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT created_at FROM notes
                 WHERE deleted_at IS NULL AND imported_at IS NULL
                 ORDER BY created_at, id LIMIT 1",
            )?
            .query_row([], |r| r.get(0))
            .optional()?;
        Ok(oldest
            .and_then(|at| DateTime::parse_from_rfc3339(&at).ok())
            .map(|at| at.with_timezone(&Utc)))
    }

    fn stored_expiry_choice(&self) -> StoreResult<Option<ExpiryChoice>> {
        let stored: Option<String> = self
            .conn
            .prepare_cached("SELECT choice FROM expiry_choice WHERE id = 1")?
            .query_row([], |r| r.get(0))
            .optional()?;
        Ok(stored.as_deref().and_then(ExpiryChoice::parse))
    }
}
