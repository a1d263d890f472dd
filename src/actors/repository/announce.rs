//! What a write changed, as the repository announces it: the counts ([`counts_after`]
//! says when they can be known without counting) and the notes: which ones the change
//! log says ([`Live`] is how a write tells the page of them), as [`NotesChange`].

use crate::api::changes::{ChangeKind, NoteChange};
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

/// How the live page hears of the notes a write changed, which the actor reads from the
/// change log after the write (`Store::changes_after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    /// Each note, as stored now (`NoteChanged`): a write of one note, or captures.
    Each,
    /// How many notes changed, for one reload (`NotesChanged`): a write of many.
    Many,
    /// Nothing: a write the page does not show (a vector, the hourly purge of old
    /// trash, the missing model's failures requeued, a tag rename's slices until it is
    /// done).
    Quiet,
}

/// The notes to announce one by one from changes read from the log: each note once, in
/// the order of its first change, leaving out the changes no page shows (a vector saved)
/// and notes no longer there.
pub fn notes_to_announce(changes: &[NoteChange]) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for change in changes {
        let shown = !matches!(change.kind, ChangeKind::Embedded | ChangeKind::Deleted);
        if shown && !ids.contains(&change.note_id.as_str()) {
            ids.push(&change.note_id);
        }
    }
    ids
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

#[cfg(test)]
mod tests {
    use super::*;

    fn change(seq: i64, id: &str, kind: ChangeKind) -> NoteChange {
        NoteChange {
            seq,
            note_id: id.into(),
            kind,
            at: String::new(),
        }
    }

    #[test]
    fn each_note_is_announced_once_and_a_vector_or_a_deletion_not_at_all() {
        let changes = [
            change(1, "a", ChangeKind::Captured),
            change(2, "b", ChangeKind::Embedded),
            change(3, "a", ChangeKind::Edited),
            change(4, "c", ChangeKind::Deleted),
            change(5, "d", ChangeKind::Trashed),
        ];
        assert_eq!(notes_to_announce(&changes), ["a", "d"]);
    }
}
