//! Tags: the list of tags in use with their counts (kept by migration 0004's
//! triggers), and what the writes of every other feature tidy new tags against. A
//! note's tags are its `tags` column; their index, the `note_tags` rows, follows the
//! change log (`changes.rs`). Renaming and merging a tag is `tag_rename.rs`.

use rusqlite::Connection;

use super::{Store, StoreError, StoreResult};
use crate::api::replies::TagCount;
use crate::tags::Vocabulary;

impl Store {
    /// Every tag of an active note with how many active notes have it, most used first
    /// (ties by name). `limit` keeps only the first ones. Read from the counts the
    /// triggers of migration 0004 keep (`tag_uses`), not counted.
    pub fn tags(&self, limit: Option<usize>) -> StoreResult<Vec<TagCount>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT tag, active_uses FROM tag_uses WHERE active_uses > 0
             ORDER BY active_uses DESC, tag LIMIT ?1",
        )?;
        let limit = limit.map_or(-1, |limit| i64::try_from(limit).unwrap_or(i64::MAX));
        let tags = stmt
            .query_map([limit], |r| {
                Ok(TagCount {
                    tag: r.get(0)?,
                    count: u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(tags)
    }
}

/// The tags in use (on any note), most used first: what new tags are tidied against.
pub(super) fn tags_in_use(conn: &Connection) -> StoreResult<Vocabulary> {
    let mut stmt = conn.prepare_cached("SELECT tag FROM tag_uses ORDER BY uses DESC, tag")?;
    let tags = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(Vocabulary::new(tags))
}

pub(super) fn to_json(tags: &[String]) -> StoreResult<String> {
    serde_json::to_string(tags).map_err(|e| StoreError::Unavailable(format!("tags: {e}")))
}
