//! Full-text search over the notes (the FTS5 index of migration 0003): the ranked
//! query, its filters (shared with lists), and each hit's snippet. What a query's
//! words mean and how a snippet is cut is `storage/search.rs`.

use chrono::{DateTime, Utc};
use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::notes::{note_from_row, NOTE_COLUMNS, NOTE_COLUMN_COUNT};
use super::{Store, StoreResult};
use crate::api::notes::SearchHit;
use crate::domain::{ListFilter, Note};
use crate::storage::search::{self, SearchQuery};

/// Matches ranked in the search index per result wanted (`Store::search`).
pub const SEARCH_CANDIDATES: u32 = 4;

impl Store {
    /// Notes matching `query` (and `filter`'s status, tag, trash and expired; its
    /// cursor is not used: a search is one ranked page), best first, each with a
    /// snippet of its body (`storage/search.rs`).
    ///
    /// Ranking is the cost: BM25 is computed for every match, and joining every match
    /// to its note before sorting cost three times the bare FTS5 query
    /// (docs/PERFORMANCE.md). So the best [`SEARCH_CANDIDATES`] per page are ranked in
    /// the index alone, and only they are joined and filtered; should fewer than a page
    /// pass the filters (a search of the trash, of one status), the search is run again
    /// over every match, which gives the exact answer.
    pub fn search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<SearchHit>> {
        let limit = filter.effective_limit();
        let cap = limit.saturating_mul(SEARCH_CANDIDATES);
        let (mut notes, candidates) = self.run_search(query, filter, now, Some(cap))?;
        // Short of a page: exact already unless the cap cut matches off (with no hit
        // at all, the number of candidates is unknown; such a search is cheap again).
        let cut = candidates.is_none_or(|candidates| candidates >= u64::from(cap));
        if notes.len() < limit as usize && cut && query.index_expression().is_some() {
            notes = self.run_search(query, filter, now, None)?.0;
        }
        Ok(notes
            .into_iter()
            .map(|note| SearchHit {
                snippet: search::snippet(&note.body, &query.words),
                note,
            })
            .collect())
    }

    fn run_search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> StoreResult<(Vec<Note>, Option<u64>)> {
        let (sql, args) = self.search_query(query, filter, now, candidates);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(params_from_iter(args), |r| {
                Ok((note_from_row(r)?, r.get::<_, i64>(NOTE_COLUMN_COUNT)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let candidates = rows.first().map(|(_, n)| u64::try_from(*n).unwrap_or(0));
        Ok((rows.into_iter().map(|(note, _)| note).collect(), candidates))
    }

    /// The SQL and arguments of a search: the best `candidates` matches (all of them
    /// with `None`) ranked in the index, then joined to their notes and filtered
    /// (public for the benchmark and the query-plan test).
    pub fn search_query(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> (String, Vec<Value>) {
        let mut args: Vec<Value> = Vec::new();
        let indexed = query.index_expression();
        // The matches, from the index alone: BM25 with a title match weighing 10, a tag
        // 5, the body 1 (short words, with no trigram, are matched by LIKE and give no
        // rank: newest first).
        let mut hits = String::from(
            "SELECT rowid AS key, bm25(notes_search, 10.0, 5.0, 1.0) AS score FROM notes_search WHERE 1",
        );
        if let Some(expression) = &indexed {
            hits.push_str(" AND notes_search MATCH ?");
            args.push(Value::Text(expression.clone()));
        }
        for pattern in query.short_word_patterns() {
            hits.push_str(" AND (title LIKE ? ESCAPE '\\' OR tags LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')");
            for _ in 0..3 {
                args.push(Value::Text(pattern.clone()));
            }
        }
        if let (Some(_), Some(candidates)) = (&indexed, candidates) {
            hits.push_str(" ORDER BY score, rowid DESC LIMIT ?");
            args.push(Value::Integer(i64::from(candidates)));
        }
        let mut sql = format!(
            "WITH hit AS MATERIALIZED ({hits}) \
             SELECT {NOTE_COLUMNS}, (SELECT COUNT(*) FROM hit) FROM hit \
             JOIN note_search_keys k ON k.key = hit.key JOIN notes n ON n.id = k.note_id"
        );
        self.push_filter(filter, now, &mut sql, &mut args);
        // Ties newest first.
        sql.push_str(if indexed.is_some() {
            " ORDER BY hit.score, n.created_at DESC, n.id DESC LIMIT ?"
        } else {
            " ORDER BY n.created_at DESC, n.id DESC LIMIT ?"
        });
        args.push(Value::Integer(i64::from(filter.effective_limit())));
        (sql, args)
    }
}
