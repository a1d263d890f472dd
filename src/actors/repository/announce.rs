//! What a write changed, as the repository announces it: the counts ([`counts_after`]
//! says when they can be known without counting) and the notes ([`NotesChange`]).

use crate::domain::Note;
use crate::storage::NoteCounts;

/// What a write did to the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsChange {
    /// A new pending note (a capture; a new note is never expired): pending + 1.
    OnePending,
    /// An active pending note was enriched: pending − 1.
    OneDone,
    /// Pending and failed may have moved (a note given up, a retry-all): both are
    /// counted again; expired did not move.
    PendingAndFailed,
    /// Anything may have moved, expired included (trash, restore, keep, the expired
    /// notes to the trash, the hourly purge): everything is counted.
    All,
}

/// The counts after `change`, from the last known ones, when no counting is needed;
/// `None` when the store must count.
pub fn counts_after(last: Option<NoteCounts>, change: CountsChange) -> Option<NoteCounts> {
    let last = last?;
    match change {
        CountsChange::OnePending => Some(NoteCounts {
            pending: last.pending + 1,
            ..last
        }),
        CountsChange::OneDone => Some(NoteCounts {
            pending: last.pending.saturating_sub(1),
            ..last
        }),
        CountsChange::PendingAndFailed | CountsChange::All => None,
    }
}

/// What a write tells the hub about the notes it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotesChange {
    /// One note, as it is stored now: the live page places it without reading it back.
    One(Box<Note>),
    /// Many at once (a retry-all, an import, a rename, the trash emptied): the live page
    /// reloads its list once instead of hearing of each.
    Many(u64),
}

impl NotesChange {
    /// The note as the write left it (boxed: a note is large, a count is not).
    pub(super) fn one(note: &Note) -> Self {
        NotesChange::One(Box::new(note.clone()))
    }

    /// `Many(count)`, or nothing when nothing moved.
    pub(super) fn many(count: usize) -> Option<Self> {
        (count > 0).then_some(NotesChange::Many(count as u64))
    }
}
