//! A note named by the start of its id: the notes whose id begins with a prefix (for
//! the CLI, which takes any unique prefix), and the shortest prefix that names each of
//! some notes today (for its lists). Ids are UUID v7, so notes captured close together
//! share their first dozen characters; the primary key's order makes both a range
//! scan or two index look-ups, whatever the number of notes. Trashed notes count: a
//! trashed note can be restored or deleted by id.

use super::{Store, StoreResult};

/// The fewest characters a short id has: under this, ids of a day's notes would look
/// alike ("01a2").
pub const MIN_SHORT_ID: usize = 8;

impl Store {
    /// The ids beginning with `prefix` (lower case hex digits and dashes), in order, at
    /// most `most` of them.
    pub fn ids_with_prefix(&self, prefix: &str, most: usize) -> StoreResult<Vec<String>> {
        // `id >= prefix AND id < prefix + U+FFFF`: the ids that begin with it, read from
        // the primary key in order.
        let end = format!("{prefix}\u{ffff}");
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM notes WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        )?;
        let ids = stmt
            .query_map(
                rusqlite::params![prefix, end, i64::try_from(most).unwrap_or(i64::MAX)],
                |row| row.get(0),
            )?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(ids)
    }

    /// Each of `ids` cut to the shortest prefix no other note's id begins with (at
    /// least [`MIN_SHORT_ID`] characters); an id not in the database is kept whole.
    pub fn short_ids(&self, ids: &[String]) -> StoreResult<Vec<String>> {
        let mut before = self
            .conn
            .prepare_cached("SELECT id FROM notes WHERE id < ?1 ORDER BY id DESC LIMIT 1")?;
        let mut after = self
            .conn
            .prepare_cached("SELECT id FROM notes WHERE id > ?1 ORDER BY id LIMIT 1")?;
        let mut known = self
            .conn
            .prepare_cached("SELECT 1 FROM notes WHERE id = ?1")?;
        let mut short = Vec::with_capacity(ids.len());
        for id in ids {
            if !known.exists([id])? {
                short.push(id.clone());
                continue;
            }
            let neighbour = |stmt: &mut rusqlite::CachedStatement<'_>| {
                use rusqlite::OptionalExtension;
                stmt.query_row([id], |row| row.get::<_, String>(0))
                    .optional()
            };
            let (previous, next) = (neighbour(&mut before)?, neighbour(&mut after)?);
            let length = short_id_length(id, previous.as_deref(), next.as_deref());
            short.push(id.chars().take(length).collect());
        }
        Ok(short)
    }
}

/// How many characters of `id` tell it from its neighbours in the ids' order (the
/// only ids that can share a longer prefix with it): one past the longest prefix it
/// shares with either, at least [`MIN_SHORT_ID`], and never ending on a dash (a prefix
/// that ends on one reads as cut short).
pub fn short_id_length(id: &str, previous: Option<&str>, next: Option<&str>) -> usize {
    let shared = |other: Option<&str>| {
        other.map_or(0, |other| {
            id.chars()
                .zip(other.chars())
                .take_while(|(a, b)| a == b)
                .count()
        })
    };
    let chars: Vec<char> = id.chars().collect();
    let mut length = (shared(previous).max(shared(next)) + 1).max(MIN_SHORT_ID);
    while length < chars.len() && chars[length - 1] == '-' {
        length += 1;
    }
    length.min(chars.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_id_is_one_past_what_it_shares_with_its_neighbours() {
        let id = "01a24926-8892-7748-ba13-8d0cc3a7fdf1";
        assert_eq!(short_id_length(id, None, None), MIN_SHORT_ID);
        assert_eq!(
            short_id_length(id, Some("01a24926-8890-77be-a05f-186ca8c7824d"), None),
            13,
            "shares 12: 01a24926-889"
        );
        assert_eq!(
            short_id_length(
                id,
                Some("01a1"),
                Some("01a24926-8892-7748-ba13-8d0cc3a7fdf2")
            ),
            id.len(),
            "all but the last: the whole id"
        );
        // Shares "01a24926" (8) with an id whose ninth is no dash: 9 would end on
        // this one's dash, so 10.
        assert_eq!(
            short_id_length(id, None, Some("01a249269")),
            10,
            "never ends on a dash"
        );
    }
}
