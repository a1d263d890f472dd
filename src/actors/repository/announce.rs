//! What a write changed, as the repository announces it: the counts ([`counts_after`]
//! says when they can be known without counting, [`counts_of_group`] what each capture
//! of a group commit announces) and the notes: which ones the change log says ([`Live`]
//! is how a write tells the page of them, [`captured_in_log`] which of them a group of
//! captures already holds), as [`NotesChange`].

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

/// What is known of the counts when a group of captures is announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupCounts {
    /// The counts last announced, from before the group's commit.
    Before(NoteCounts),
    /// None were known: the store counted after the commit, the whole group in it.
    After(NoteCounts),
}

/// The counts each of `stored` captures of one commit announces, in the order they
/// were stored: each one more pending than the one before, as `stored` captures one by
/// one would have announced. From the counts known before the commit nothing is
/// counted; from a count made after it, the group's later notes are taken off each
/// earlier note's, so none is counted twice. A capture moves nothing else (a new note
/// is neither failed nor expired).
pub fn counts_of_group(known: GroupCounts, stored: usize) -> Vec<NoteCounts> {
    let stored = stored as u64;
    let (base, first) = match known {
        GroupCounts::Before(last) => (last, last.pending + 1),
        GroupCounts::After(counted) => (
            counted,
            counted.pending.saturating_sub(stored.saturating_sub(1)),
        ),
    };
    (0..stored)
        .map(|i| NoteCounts {
            pending: first + i,
            ..base
        })
        .collect()
}

/// The notes to announce from the changes a group of captures made, each with the note
/// as the capture stored it (`None`: not one of `stored`, to be read from the store).
/// The log says which notes and in what order ([`notes_to_announce`]); the captures
/// hold what they stored, so a group's notes are never read back.
pub fn captured_in_log<'a>(
    changes: &'a [NoteChange],
    stored: &[&'a Note],
) -> Vec<(&'a str, Option<&'a Note>)> {
    notes_to_announce(changes)
        .into_iter()
        .map(|id| (id, stored.iter().copied().find(|note| note.id == id)))
        .collect()
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

    fn counts(pending: u64) -> NoteCounts {
        NoteCounts {
            pending,
            failed: 2,
            expired: 3,
        }
    }

    #[test]
    fn a_group_of_captures_announces_what_each_capture_alone_would_have() {
        // Known before the commit: one more pending each, nothing counted.
        assert_eq!(
            counts_of_group(GroupCounts::Before(counts(10)), 3),
            [counts(11), counts(12), counts(13)]
        );
        // Counted after the commit (the group in the count): the same figures, the
        // last note's count being the count itself.
        assert_eq!(
            counts_of_group(GroupCounts::After(counts(13)), 3),
            [counts(11), counts(12), counts(13)]
        );
        assert_eq!(
            counts_of_group(GroupCounts::Before(counts(0)), 1),
            [counts(1)]
        );
        assert!(counts_of_group(GroupCounts::After(counts(4)), 0).is_empty());
        // A count that cannot hold the group (a note given up meanwhile) never goes
        // below zero.
        assert_eq!(
            counts_of_group(GroupCounts::After(counts(1)), 3),
            [counts(0), counts(1), counts(2)]
        );
    }

    #[test]
    fn a_group_announces_the_notes_the_log_names_as_the_captures_stored_them() {
        let note = |id: &str| Note {
            id: id.into(),
            body: format!("body of {id}"),
            title: None,
            summary: None,
            tags: Vec::new(),
            ai_status: crate::domain::AiStatus::Pending,
            ai_error: None,
            created_at: String::new(),
            updated_at: String::new(),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
            edited_at: None,
            remind_at: None,
            remind_state: None,
            kind: crate::domain::NoteKind::Note,
            imported_at: None,
            remind_suggested_at: None,
            remind_suggestion_dismissed: false,
            opened_at: None,
        };
        let (a, b) = (note("a"), note("b"));
        let changes = [
            change(1, "b", ChangeKind::Captured),
            change(2, "x", ChangeKind::Edited),
            change(3, "a", ChangeKind::Captured),
        ];
        let announced = captured_in_log(&changes, &[&a, &b]);
        assert_eq!(
            announced,
            [("b", Some(&b)), ("x", None), ("a", Some(&a))],
            "in the log's order; a note not captured here is read from the store"
        );
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
