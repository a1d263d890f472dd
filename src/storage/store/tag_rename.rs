//! Renaming a tag on every note, in slices (issue #29 point 6).
//!
//! A rename may touch tens of thousands of notes, and the repository has one thread:
//! done in one transaction it would hold every capture behind it. So it is done in
//! slices of [`RENAME_SLICE_NOTES`] notes, each its own transaction, and the actor
//! handles the messages that arrived meanwhile between two slices
//! (`RepositoryActor`, `ContinueTagRename`).
//!
//! Notes are taken in id order, and each slice's transaction also records how far the
//! rename got (`tag_renames`, migration 0006). So what a crash between slices leaves is
//! consistent (every note, its `note_tags` rows, the tag counts and the search index
//! agree: each slice is whole or absent) and resumable: the rename's row says what is
//! left, and the actor finishes it at the next start. The rename is also bounded: each
//! note is visited once, so two renames that undo each other both end. A note that
//! gets the old tag while the rename runs, by an edit of a note the rename had already
//! passed, keeps it (as one tagged just after the rename would); new notes have later
//! ids and are renamed.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, TransactionBehavior};

use crate::api::changes::ChangeKind;

use super::tags::to_json;
use super::{Store, StoreError, StoreResult};
use crate::api::replies::TagRenamed;
use crate::domain::timestamp;

/// Notes renamed per transaction. Each note costs its `tags` and its one `note_tags`
/// row (the counts follow by trigger; the tags' search index changes only when a tag
/// appears or disappears), 30–80 µs over 100,000 notes: a slice holds the repository
/// for a few ms, which is what a capture waits behind a rename. 200 made the rename
/// faster and the captures wait twice as long (docs/PERFORMANCE.md, "A tag rename").
pub const RENAME_SLICE_NOTES: usize = 100;

/// A tag rename under way, as `tag_renames` records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagRename {
    pub from: String,
    pub to: String,
    /// `to` was already in use when the rename began: the two merge.
    pub merged: bool,
    /// The last note done (notes are taken in id order); `None` before the first slice.
    pub after_note: Option<String>,
    /// Notes renamed so far.
    pub notes: u64,
}

/// What a slice left: more to do, or the rename finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameProgress {
    Going(TagRename),
    Done(TagRenamed),
}

/// A note's tags with `from` renamed `to`, in their order; where the note has both,
/// they merge into one (at the first one's place).
pub fn renamed_tags(tags: Vec<String>, from: &str, to: &str) -> Vec<String> {
    let mut renamed: Vec<String> = Vec::with_capacity(tags.len());
    for tag in tags {
        let tag = if tag == from { to.to_string() } else { tag };
        if !renamed.contains(&tag) {
            renamed.push(tag);
        }
    }
    renamed
}

impl Store {
    /// Begins renaming the tag `from` to `to` on every note that has it (in the trash
    /// too, so a restored note is as tidy): records the rename, changes no note yet
    /// (that is [`Store::rename_tag_slice`]). `to` may already exist: the two merge.
    /// No note has `from`: `NoSuchTag`; `from` is being renamed already: `Conflict`.
    pub fn begin_tag_rename(&mut self, from: &str, to: &str) -> StoreResult<TagRename> {
        self.check_file()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let has = |tag: &str| -> StoreResult<bool> {
            Ok(tx
                .query_row(
                    "SELECT 1 FROM note_tags WHERE tag = ?1 LIMIT 1",
                    [tag],
                    |_| Ok(()),
                )
                .optional()?
                .is_some())
        };
        if !has(from)? {
            return Err(StoreError::NoSuchTag(from.to_string()));
        }
        let merged = has(to)?;
        let inserted = tx.execute(
            "INSERT INTO tag_renames (from_tag, to_tag, merged) VALUES (?1, ?2, ?3)
             ON CONFLICT (from_tag) DO NOTHING",
            params![from, to, merged],
        )?;
        if inserted == 0 {
            return Err(StoreError::Conflict(format!(
                "the tag {from} is being renamed already; wait until that is done, then try again"
            )));
        }
        tx.commit()?;
        Ok(TagRename {
            from: from.to_string(),
            to: to.to_string(),
            merged,
            after_note: None,
            notes: 0,
        })
    }

    /// Renames the tag on the next `limit` notes of `rename` (in id order), in one
    /// transaction with the record of how far it got; when no note is left, the record
    /// goes in the same transaction and the rename is `Done`.
    pub fn rename_tag_slice(
        &mut self,
        rename: TagRename,
        limit: usize,
        now: DateTime<Utc>,
    ) -> StoreResult<RenameProgress> {
        self.write(|tx| {
            let notes: Vec<(String, String)> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT n.id, n.tags FROM note_tags t JOIN notes n ON n.id = t.note_id
                 WHERE t.tag = ?1 AND t.note_id > ?2 ORDER BY t.note_id LIMIT ?3",
                )?;
                let rows = stmt
                    .query_map(
                        params![
                            rename.from,
                            rename.after_note.as_deref().unwrap_or(""),
                            i64::try_from(limit).unwrap_or(i64::MAX)
                        ],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )?
                    .collect::<Result<Vec<_>, _>>()?;
                rows
            };
            let at = timestamp(now);
            for (note_id, tags_json) in &notes {
                let tags: Vec<String> = serde_json::from_str(tags_json)
                    .map_err(|e| StoreError::Unavailable(format!("tags of {note_id}: {e}")))?;
                let renamed = renamed_tags(tags, &rename.from, &rename.to);
                tx.prepare_cached("UPDATE notes SET tags = ?2, updated_at = ?3 WHERE id = ?1")?
                    .execute(params![note_id, to_json(&renamed)?, at])?;
                // The tag index follows the log: only the renamed tag's row changes
                // (migration 0004's triggers move the counts, migration 0006's the tags'
                // search index when a tag comes or goes).
                tx.record(note_id, ChangeKind::Retagged, now)?;
            }
            let rename = TagRename {
                after_note: notes.last().map(|(id, _)| id.clone()).or(rename.after_note),
                notes: rename.notes + notes.len() as u64,
                ..rename
            };
            let progress = if notes.len() < limit {
                tx.execute(
                    "DELETE FROM tag_renames WHERE from_tag = ?1",
                    [&rename.from],
                )?;
                RenameProgress::Done(TagRenamed {
                    tag: rename.to,
                    notes: rename.notes,
                    merged: rename.merged,
                })
            } else {
                tx.execute(
                    "UPDATE tag_renames SET after_note = ?2, notes = ?3 WHERE from_tag = ?1",
                    params![
                        rename.from,
                        rename.after_note,
                        i64::try_from(rename.notes).unwrap_or(i64::MAX)
                    ],
                )?;
                RenameProgress::Going(rename)
            };
            Ok(progress)
        })
    }

    /// Forgets a rename under way (it failed part way): the notes renamed so far stay
    /// renamed, and the same rename asked again finishes the rest.
    pub fn abandon_tag_rename(&mut self, from: &str) -> StoreResult<()> {
        self.check_file()?;
        self.conn
            .execute("DELETE FROM tag_renames WHERE from_tag = ?1", [from])?;
        Ok(())
    }

    /// The renames a crash cut short, to be finished (the actor does at start).
    pub fn unfinished_tag_renames(&self) -> StoreResult<Vec<TagRename>> {
        let mut stmt = self.conn.prepare(
            "SELECT from_tag, to_tag, merged, after_note, notes FROM tag_renames ORDER BY from_tag",
        )?;
        let renames = stmt
            .query_map([], |r| {
                Ok(TagRename {
                    from: r.get(0)?,
                    to: r.get(1)?,
                    merged: r.get(2)?,
                    after_note: r.get(3)?,
                    notes: u64::try_from(r.get::<_, i64>(4)?).unwrap_or(0),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(renames)
    }

    /// A whole rename, slice after slice, with nothing in between (tests, tools; the
    /// service goes through the actor, which lets other work in between slices).
    /// Replies with how many notes changed and whether `to` existed.
    pub fn rename_tag(
        &mut self,
        from: &str,
        to: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<TagRenamed> {
        let mut rename = self.begin_tag_rename(from, to)?;
        loop {
            match self.rename_tag_slice(rename, RENAME_SLICE_NOTES, now)? {
                RenameProgress::Going(going) => rename = going,
                RenameProgress::Done(renamed) => return Ok(renamed),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn a_renamed_tag_keeps_its_place_and_merges_into_one_already_there() {
        assert_eq!(
            renamed_tags(tags(&["a", "old", "b"]), "old", "new"),
            ["a", "new", "b"]
        );
        assert_eq!(
            renamed_tags(tags(&["new", "a", "old"]), "old", "new"),
            ["new", "a"]
        );
        assert_eq!(renamed_tags(tags(&["old", "new"]), "old", "new"), ["new"]);
        assert_eq!(renamed_tags(tags(&["a"]), "old", "new"), ["a"]);
    }
}
