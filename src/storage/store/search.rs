//! Full-text search over the notes (the FTS5 tables of migration 0006): the ranked
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

/// How much a title match and a tag match weigh against a body match's BM25 (1).
const TITLE_WEIGHT: f64 = 10.0;
const TAG_WEIGHT: f64 = 5.0;

/// A word's inverse document frequencies in the short fields (`Store::short_field_idfs`).
struct ShortFieldIdfs {
    title: f64,
    tags: f64,
    /// Notes with a title that has the word, and with a tag that has it.
    titled: i64,
    tagged: i64,
}

/// FTS5's BM25 inverse document frequency (`fts5_aux.c`): a word in `with` of `all`
/// documents.
pub fn bm25_idf(all: f64, with: f64) -> f64 {
    ((all - with + 0.5) / (with + 0.5)).ln().max(1e-6)
}

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
        if notes.len() < limit as usize && cut && !query.index_phrases().is_empty() {
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
        let (sql, args) = self.search_query(query, filter, now, candidates)?;
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
    ) -> StoreResult<(String, Vec<Value>)> {
        let mut args: Vec<Value> = Vec::new();
        let phrases = query.index_phrases();
        let text = |value: &String| Value::Text(value.clone());
        // The matches, from the index alone. Each long word is looked up in the titles,
        // the bodies and the distinct tags (a tag's notes through note_tags); a note's
        // score is the sum over its words and fields, BM25's way: the body's BM25 (weight
        // 1), and for a title or a tag that has the word, the word's inverse document
        // frequency weighted 10 and 5 (`short_field_idfs`). A note has every word when
        // each of them matched somewhere.
        let mut hits = String::new();
        let mut branches = 0;
        if !phrases.is_empty() {
            let mut matches: Vec<String> = Vec::new();
            for (word, phrase) in phrases.iter().enumerate() {
                let idf = self.short_field_idfs(phrase)?;
                // A field where no note has the word is not read at all (the counts
                // are from this same connection, just now): a word found only in
                // bodies, the common case, is one FTS5 query.
                if idf.titled > 0 {
                    matches.push(format!(
                        "SELECT rowid AS key, {word} AS word, ? AS score \
                         FROM search_titles WHERE search_titles MATCH ?"
                    ));
                    args.extend([Value::Real(-TITLE_WEIGHT * idf.title), text(phrase)]);
                }
                matches.push(format!(
                    "SELECT rowid AS key, {word} AS word, bm25(search_bodies) AS score \
                     FROM search_bodies WHERE search_bodies MATCH ?"
                ));
                args.push(text(phrase));
                if idf.tagged > 0 {
                    matches.push(format!(
                        "SELECT nk.key AS key, {word} AS word, ? AS score \
                         FROM search_tags JOIN tag_search_keys tk ON tk.key = search_tags.rowid \
                         JOIN note_tags nt ON nt.tag = tk.tag \
                         JOIN note_search_keys nk ON nk.note_id = nt.note_id \
                         WHERE search_tags MATCH ?"
                    ));
                    args.extend([Value::Real(-TAG_WEIGHT * idf.tags), text(phrase)]);
                }
            }
            branches = matches.len();
            hits.push_str(&if branches == 1 {
                // One word in the bodies only: every key once, nothing to add up.
                format!("SELECT key, score FROM ({}) WHERE 1", matches[0])
            } else {
                format!(
                    "SELECT key, SUM(score) AS score FROM ({}) WHERE 1",
                    matches.join(" UNION ALL ")
                )
            });
        }
        // Short words, with no trigram: the notes where each is, by LIKE over each field
        // (the tags through the distinct ones).
        let mut short_sets: Vec<String> = Vec::new();
        for pattern in query.short_word_patterns() {
            short_sets.push(
                "SELECT key FROM (SELECT rowid AS key FROM search_titles WHERE title LIKE ? ESCAPE '\\' \
                 UNION SELECT rowid FROM search_bodies WHERE body LIKE ? ESCAPE '\\' \
                 UNION SELECT sk.key FROM tag_uses u JOIN note_tags st ON st.tag = u.tag \
                 JOIN note_search_keys sk ON sk.note_id = st.note_id WHERE u.tag LIKE ? ESCAPE '\\')"
                    .to_string(),
            );
            args.extend([text(&pattern), text(&pattern), text(&pattern)]);
        }
        if phrases.is_empty() {
            // Only short words: no rank.
            hits = format!(
                "SELECT key, 0.0 AS score FROM ({})",
                short_sets.join(" INTERSECT ")
            );
        } else {
            for set in &short_sets {
                hits.push_str(&format!(" AND key IN ({set})"));
            }
            if branches > 1 {
                hits.push_str(&format!(
                    " GROUP BY key HAVING COUNT(DISTINCT word) = {}",
                    phrases.len()
                ));
            }
            if let Some(candidates) = candidates {
                hits.push_str(" ORDER BY score, key DESC LIMIT ?");
                args.push(Value::Integer(i64::from(candidates)));
            }
        }
        let indexed = !phrases.is_empty();
        let mut sql = format!(
            "WITH hit AS MATERIALIZED ({hits}) \
             SELECT {NOTE_COLUMNS}, (SELECT COUNT(*) FROM hit) FROM hit \
             JOIN note_search_keys k ON k.key = hit.key JOIN notes n ON n.id = k.note_id"
        );
        self.push_filter(filter, now, &mut sql, &mut args);
        // Ties newest first.
        sql.push_str(if indexed {
            " ORDER BY hit.score, n.created_at DESC, n.id DESC LIMIT ?"
        } else {
            " ORDER BY n.created_at DESC, n.id DESC LIMIT ?"
        });
        args.push(Value::Integer(i64::from(filter.effective_limit())));
        Ok((sql, args))
    }

    /// The inverse document frequencies of `phrase` in the titles and in the tags, as
    /// FTS5's BM25 counts them for the bodies (`ln((N − n + ½) / (n + ½))`, at least
    /// 10⁻⁶), over notes: `n` the notes with a title that has it, or with a tag that has
    /// it (`tag_uses`, the trash included as in the other indexes); `N` the notes (the
    /// highest search key: exact until a note is deleted for good, a little over after).
    ///
    /// Why not FTS5's own BM25 for these two: the tags' index holds each tag once, so it
    /// would count tags, not notes (a word in half of ten tags would weigh nothing,
    /// however many notes have them); and a title's BM25 is cut by its length against
    /// the average title, which the empty titles of pending notes pull down (a matching
    /// title of four words among untitled notes ranked below a tag). Titles and tags are
    /// short: what matters is that the word is there, and how rare it is.
    fn short_field_idfs(&self, phrase: &str) -> StoreResult<ShortFieldIdfs> {
        let (notes, titled, tagged): (i64, i64, i64) = self
            .conn
            .prepare_cached(
                "SELECT (SELECT coalesce(max(key), 0) FROM note_search_keys),
                        (SELECT COUNT(*) FROM search_titles WHERE search_titles MATCH ?1),
                        (SELECT coalesce(sum(u.uses), 0) FROM search_tags
                         JOIN tag_search_keys tk ON tk.key = search_tags.rowid
                         JOIN tag_uses u ON u.tag = tk.tag
                         WHERE search_tags MATCH ?1)",
            )?
            .query_row([phrase], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(ShortFieldIdfs {
            title: bm25_idf(notes as f64, titled as f64),
            tags: bm25_idf(notes as f64, tagged as f64),
            titled,
            tagged,
        })
    }
}
