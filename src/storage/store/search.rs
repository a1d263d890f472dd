//! Full-text search over the notes (the FTS5 tables of migration 0006, each search
//! first writing the entries of any notes still waiting for theirs: `search_index.rs`): the ranked
//! query, its filters (shared with lists), and each hit's snippet; a question's words
//! searched each alone in one read; and the semantic half of a hybrid search held to
//! the same filters inside the vector index's scan. What a query's
//! words mean and how a snippet is cut is `storage/search.rs`.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::notes::{note_from_row, NOTE_COLUMNS};
use super::{Store, StoreResult};
use crate::api::notes::SearchHit;
use crate::domain::{ListFilter, Note};
use crate::storage::search::{self, FieldMatches, SearchQuery, CANDIDATES};
use crate::storage::vector_index::{Scope, RESCORE_CANDIDATES};

/// How much a title match and a tag match weigh against a body match's BM25 (1).
const TITLE_WEIGHT: f64 = 10.0;
const TAG_WEIGHT: f64 = 5.0;

/// What one word has in each field, read before the search is written
/// (`Store::word_fields`): which fields to read at all, which past the threshold, and
/// the word's weights.
struct WordFields {
    /// Notes with a title that has the word (a bounded look, or the exact count).
    titles: FieldMatches,
    /// The same for bodies (bounded only: an exact run ranks every body match anyway).
    bodies: FieldMatches,
    /// Notes with a tag that has the word (exact: counted over the distinct tags).
    tagged: u64,
    /// The highest search key: the number of notes, as BM25 counts them.
    notes: i64,
}

impl WordFields {
    fn idf(&self, notes_with: f64) -> f64 {
        bm25_idf(self.notes as f64, notes_with)
    }
    fn tags_capped(&self) -> bool {
        self.tagged > u64::from(CANDIDATES)
    }
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
    /// Ranking is the cost: BM25 over every match of a common word takes FTS5 alone
    /// 40–90 ms at 100,000 notes (docs/PERFORMANCE.md). So the newest
    /// [`CANDIDATES`] matches of each word in each field are ranked, and only they are
    /// joined to their notes and filtered; should fewer than a page pass the filters
    /// while matches were left out (a search of the trash, of one status), the search is
    /// run again over every match, which gives the exact answer.
    pub fn search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<SearchHit>> {
        self.index_before_reading();
        let limit = filter.effective_limit() as usize;
        let (mut notes, left_out) = self.run_search(query, filter, now, Some(CANDIDATES))?;
        if search::needs_exact_run(notes.len(), limit, left_out) {
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

    /// Each of `queries` searched as [`Store::search`] does, under the same `filter`, in
    /// one read (one snapshot of the notes): each query's hits, in the queries' order.
    /// A question's words are searched this way, each alone, in one round trip.
    pub fn search_each(
        &self,
        queries: &[SearchQuery],
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<Vec<SearchHit>>> {
        self.index_before_reading();
        let read = self.conn.unchecked_transaction()?;
        let found = queries
            .iter()
            .map(|query| self.search(query, filter, now))
            .collect::<StoreResult<Vec<_>>>()?;
        read.finish()?;
        Ok(found)
    }

    /// The semantic half of a hybrid search: the `k` notes nearest to `query` (a
    /// query's vector of `model`, cosine at least `floor`) that pass `filter` as the
    /// keyword search's hits do (its status, tag, expired; a search of the trash finds
    /// none here), best first, each with its similarity.
    ///
    /// A filter is not left to cut down the nearest notes overall, which for a tag on
    /// five notes of thousands would leave none: the nearest [`RESCORE_CANDIDATES`]
    /// overall are looked at first, and they are the answer when enough of them pass
    /// to fill the page, or when the look reached below the floor (every note near
    /// enough was in it). Otherwise the filter is narrow here, and it is applied inside
    /// the vector index's scan: only the notes that pass it are compared. So a broad
    /// filter (expired, on most notes) costs what no filter does, and a narrow one reads
    /// its few notes' ids.
    pub fn search_by_meaning(
        &self,
        model: &str,
        query: &[f32],
        filter: &ListFilter,
        now: DateTime<Utc>,
        k: usize,
        floor: f32,
    ) -> StoreResult<Vec<(Note, f32)>> {
        if filter.trash {
            return Ok(Vec::new());
        }
        if filter.tag.is_none() && filter.status.is_none() && !filter.expired {
            let nearest = self.nearest_in(model, query, k, floor, Scope::All)?;
            return self.notes_held_to(filter, now, nearest);
        }
        let wide = RESCORE_CANDIDATES.max(k);
        let nearest = self.nearest_in(model, query, wide, floor, Scope::All)?;
        let reached_floor = nearest.len() < wide;
        let mut found = self.notes_held_to(filter, now, nearest)?;
        if found.len() >= k || reached_floor {
            found.truncate(k);
            return Ok(found);
        }
        let passing = self.passing_with_vector(model, filter, now)?;
        let nearest = self.nearest_in(model, query, k, floor, Scope::Only(&passing))?;
        self.notes_held_to(filter, now, nearest)
    }

    /// The notes of `nearest` (ids, best first) that pass `filter`, read as the
    /// database holds them now, in the same order.
    fn notes_held_to(
        &self,
        filter: &ListFilter,
        now: DateTime<Utc>,
        nearest: Vec<(String, f32)>,
    ) -> StoreResult<Vec<(Note, f32)>> {
        if nearest.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = nearest.iter().map(|(id, _)| id.as_str()).collect();
        let ids = serde_json::to_string(&ids)
            .map_err(|e| super::StoreError::Unavailable(format!("cannot list notes: {e}")))?;
        let mut sql = format!("SELECT {NOTE_COLUMNS} FROM notes n");
        let mut args: Vec<Value> = Vec::new();
        self.push_filter(filter, now, &mut sql, &mut args);
        sql.push_str(" AND n.id IN (SELECT value FROM json_each(?))");
        args.push(Value::Text(ids));
        let mut passing: HashMap<String, Note> = self
            .conn
            .prepare_cached(&sql)?
            .query_map(params_from_iter(args), note_from_row)?
            .map(|note| note.map(|note| (note.id.clone(), note)))
            .collect::<Result<_, _>>()?;
        Ok(nearest
            .into_iter()
            .filter_map(|(id, similarity)| Some((passing.remove(&id)?, similarity)))
            .collect())
    }

    /// The ids of the notes that pass `filter` and have a vector of `model`: the notes
    /// a filtered search by meaning compares (through the tag's, the status's index).
    fn passing_with_vector(
        &self,
        model: &str,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<HashSet<String>> {
        let mut sql = "SELECT n.id FROM notes n".to_string();
        let mut args: Vec<Value> = Vec::new();
        self.push_filter(filter, now, &mut sql, &mut args);
        sql.push_str(
            " AND EXISTS (SELECT 1 FROM note_vectors v WHERE v.note_id = n.id AND v.model = ?)",
        );
        args.push(Value::Text(model.to_string()));
        let ids = self
            .conn
            .prepare_cached(&sql)?
            .query_map(params_from_iter(args), |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// The notes of a search, and whether matches were left out of it (a field past
    /// the threshold).
    fn run_search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> StoreResult<(Vec<Note>, bool)> {
        let (sql, args, left_out) = self.plan_search(query, filter, now, candidates)?;
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let notes = stmt
            .query_map(params_from_iter(args), note_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok((notes, left_out))
    }

    /// The SQL and arguments of a search: with `Some(_)`, the bounded look (the newest
    /// [`CANDIDATES`] matches of each word in each field: the threshold is the one
    /// constant, whatever number is given); with `None`, every match; ranked in the
    /// index, then joined to their notes and filtered (public for the benchmark and the
    /// query-plan test).
    pub fn search_query(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> StoreResult<(String, Vec<Value>)> {
        self.index_before_reading();
        let (sql, args, _) = self.plan_search(query, filter, now, candidates)?;
        Ok((sql, args))
    }

    /// [`Store::search_query`], and whether the bounded look left matches out.
    fn plan_search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> StoreResult<(String, Vec<Value>, bool)> {
        let mut args: Vec<Value> = Vec::new();
        let phrases = query.index_phrases();
        let text = |value: &String| Value::Text(value.clone());
        let cap = |args: &mut Vec<Value>, limit: u32| args.push(Value::Integer(i64::from(limit)));
        // The matches, from the index alone. Each long word is looked up in the titles,
        // the bodies and the distinct tags (a tag's notes through note_tags); a note's
        // score is the sum over its words and fields, BM25's way: the body's BM25 (weight
        // 1), and for a title or a tag that has the word, the word's inverse document
        // frequency weighted 10 and 5. A note has every word when each of them matched
        // somewhere. Bounded, a field past the threshold gives only its newest matches,
        // each scored the word's weight there (BM25 would read every match to count
        // them: the cost this avoids).
        let mut left_out = false;
        let mut matches: Vec<String> = Vec::new();
        // Words whose bodies are past the threshold, with their score there.
        let mut capped_bodies: Vec<(usize, f64)> = Vec::new();
        let mut a_word_is_nowhere = false;
        let fields_of: Vec<WordFields> = phrases
            .iter()
            .map(|phrase| self.word_fields(phrase, candidates))
            .collect::<StoreResult<_>>()?;
        // Several words, none in a title or a tag: a note has them all in its body, so
        // the notes with every word in the body (below) are all there is to find, and a
        // capped word's own newest body matches add nothing but rows to group.
        let bodies_only = candidates.is_some()
            && phrases.len() > 1
            && fields_of
                .iter()
                .all(|f| f.titles.found == 0 && f.tagged == 0);
        for ((word, phrase), fields) in phrases.iter().enumerate().zip(fields_of) {
            let branches = matches.len();
            let newest = |table: &str, capped: bool| {
                if capped {
                    format!(" ORDER BY {table}.rowid DESC LIMIT ?")
                } else {
                    String::new()
                }
            };
            // A field where no note has the word is not read at all (the counts are
            // from this same connection, just now): a word found only in bodies, the
            // common case, is one FTS5 query.
            if fields.titles.found > 0 {
                let capped = candidates.is_some() && fields.titles.capped();
                let idf = fields.idf(fields.titles.notes_with(fields.notes));
                matches.push(format!(
                    "SELECT * FROM (SELECT rowid AS key, {word} AS word, 0 AS field, ? AS score \
                     FROM search_titles WHERE search_titles MATCH ?{})",
                    newest("search_titles", capped)
                ));
                args.extend([Value::Real(-TITLE_WEIGHT * idf), text(phrase)]);
                if capped {
                    cap(&mut args, CANDIDATES);
                }
                left_out |= capped;
            }
            let body_capped = candidates.is_some() && fields.bodies.capped();
            if body_capped {
                let score = -fields.idf(fields.bodies.notes_with(fields.notes));
                if !bodies_only {
                    matches.push(format!(
                        "SELECT * FROM (SELECT rowid AS key, {word} AS word, 1 AS field, ? AS score \
                         FROM search_bodies WHERE search_bodies MATCH ?{})",
                        newest("search_bodies", true)
                    ));
                    args.extend([Value::Real(score), text(phrase)]);
                    cap(&mut args, CANDIDATES);
                }
                capped_bodies.push((word, score));
            } else if candidates.is_none() || fields.bodies.found > 0 {
                matches.push(format!(
                    "SELECT rowid AS key, {word} AS word, 1 AS field, bm25(search_bodies) AS score \
                     FROM search_bodies WHERE search_bodies MATCH ?"
                ));
                args.push(text(phrase));
            }
            if fields.tagged > 0 {
                let capped = candidates.is_some() && fields.tags_capped();
                let idf = fields.idf(fields.tagged as f64);
                matches.push(format!(
                    "SELECT * FROM (SELECT nk.key AS key, {word} AS word, 2 AS field, ? AS score \
                     FROM search_tags JOIN tag_search_keys tk ON tk.key = search_tags.rowid \
                     JOIN note_tags nt ON nt.tag = tk.tag \
                     JOIN note_search_keys nk ON nk.note_id = nt.note_id \
                     WHERE search_tags MATCH ?{})",
                    if capped {
                        " ORDER BY nk.key DESC LIMIT ?"
                    } else {
                        ""
                    }
                ));
                args.extend([Value::Real(-TAG_WEIGHT * idf), text(phrase)]);
                if capped {
                    cap(&mut args, CANDIDATES);
                }
                left_out |= capped;
            }
            a_word_is_nowhere |= matches.len() == branches && !(body_capped && bodies_only);
        }
        // Several words, a body past the threshold for some: the newest notes with
        // every word in the body (FTS5 intersects the words' matches itself, newest
        // first), each standing for the capped words' body matches. Without it, a
        // common word's newest matches and a rarer word's would meet only by luck.
        let mut together = false;
        if phrases.len() > 1 && !capped_bodies.is_empty() {
            let every_word = phrases.join(" ");
            let all_found = self.bounded_matches("search_bodies", &every_word, CANDIDATES)?;
            left_out |= all_found.capped();
            let scores: Vec<String> = capped_bodies
                .iter()
                .map(|(word, _)| format!("SELECT {word} AS word, ? AS score"))
                .collect();
            matches.push(format!(
                "SELECT b.key, s.word, 1 AS field, s.score FROM \
                 (SELECT rowid AS key FROM search_bodies WHERE search_bodies MATCH ? \
                  ORDER BY search_bodies.rowid DESC LIMIT ?) b, ({}) s",
                scores.join(" UNION ALL ")
            ));
            args.push(Value::Text(every_word));
            cap(&mut args, CANDIDATES);
            args.extend(capped_bodies.iter().map(|(_, score)| Value::Real(*score)));
            // A capped word's rows come twice (its own newest body matches, and here)
            // unless its own were left out.
            together = !bodies_only;
        } else if phrases.len() == 1 {
            left_out |= !capped_bodies.is_empty();
        } else {
            // Several words, no body past the threshold: every body match is there,
            // so whatever meets is exact but for capped titles or tags (counted above).
        }
        let hits = if a_word_is_nowhere {
            // No note has this word: nothing to look up (nor the arguments of the
            // other words' look-ups).
            args.clear();
            "SELECT NULL AS key, 0.0 AS score WHERE 0".to_string()
        } else if phrases.is_empty() {
            // Only short words, with no trigram: the notes where each is, by LIKE over
            // each field (the tags through the distinct ones). No rank.
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
            format!(
                "SELECT key, 0.0 AS score FROM ({})",
                short_sets.join(" INTERSECT ")
            )
        } else if matches.len() == 1 && phrases.len() == 1 {
            // One word in one field: every key once, nothing to add up.
            format!("SELECT key, score FROM ({}) WHERE 1", matches[0])
        } else {
            // A note's score: each (word, field) once (the notes with every word in the
            // body may repeat a capped word's body match).
            format!(
                "SELECT key, SUM(score) AS score FROM (SELECT {}key, word, field, score FROM ({})) \
                 GROUP BY key HAVING COUNT(DISTINCT word) = {}",
                if together { "DISTINCT " } else { "" },
                matches.join(" UNION ALL "),
                phrases.len()
            )
        };
        let indexed = !phrases.is_empty();
        let mut sql = format!(
            "WITH hit AS MATERIALIZED ({hits}) \
             SELECT {NOTE_COLUMNS} FROM hit \
             JOIN note_search_keys k ON k.key = hit.key JOIN notes n ON n.id = k.note_id"
        );
        self.push_filter(filter, now, &mut sql, &mut args);
        if indexed {
            // Short words beside long ones: checked on the notes the long ones found
            // (their title, body or a tag), not by reading every note.
            for pattern in query.short_word_patterns() {
                sql.push_str(
                    " AND (n.title LIKE ? ESCAPE '\\' OR n.body LIKE ? ESCAPE '\\' \
                     OR EXISTS (SELECT 1 FROM note_tags st WHERE st.note_id = n.id \
                     AND st.tag LIKE ? ESCAPE '\\'))",
                );
                args.extend([text(&pattern), text(&pattern), text(&pattern)]);
            }
        }
        // Ties newest first.
        sql.push_str(if indexed {
            " ORDER BY hit.score, n.created_at DESC, n.id DESC LIMIT ?"
        } else {
            " ORDER BY n.created_at DESC, n.id DESC LIMIT ?"
        });
        args.push(Value::Integer(i64::from(filter.effective_limit())));
        Ok((sql, args, left_out))
    }

    /// What `phrase` has in each field (see [`WordFields`]): with `candidates`, a
    /// bounded look at the titles and bodies (their newest matches, a fraction of a
    /// millisecond however common the word); without, the titles counted exactly.
    ///
    /// The tags are counted over notes through `tag_uses` (the trash included as in the
    /// other indexes): the tags' index holds each tag once, so FTS5's own BM25 would
    /// count tags, not notes. Titles are not scored by BM25 either: a title's BM25 is cut
    /// by its length against the average title, which the empty titles of pending notes
    /// pull down (a matching title of four words among untitled notes ranked below a
    /// tag). Titles and tags are short: what matters is that the word is there, and how
    /// rare it is. `notes` is the highest search key: exact until a note is deleted for
    /// good, a little over after.
    fn word_fields(&self, phrase: &str, candidates: Option<u32>) -> StoreResult<WordFields> {
        let (notes, tagged): (i64, i64) = self
            .conn
            .prepare_cached(
                "SELECT (SELECT coalesce(max(key), 0) FROM note_search_keys),
                        (SELECT coalesce(sum(u.uses), 0) FROM search_tags
                         JOIN tag_search_keys tk ON tk.key = search_tags.rowid
                         JOIN tag_uses u ON u.tag = tk.tag
                         WHERE search_tags MATCH ?1)",
            )?
            .query_row([phrase], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let (titles, bodies) = match candidates {
            Some(candidates) => (
                self.bounded_matches("search_titles", phrase, candidates)?,
                self.bounded_matches("search_bodies", phrase, candidates)?,
            ),
            None => {
                let titled: i64 = self
                    .conn
                    .prepare_cached(
                        "SELECT COUNT(*) FROM search_titles WHERE search_titles MATCH ?1",
                    )?
                    .query_row([phrase], |r| r.get(0))?;
                let titles = FieldMatches {
                    found: u64::try_from(titled).unwrap_or(0),
                    oldest_key: 0,
                };
                (titles, FieldMatches::default())
            }
        };
        Ok(WordFields {
            titles,
            bodies,
            tagged: u64::try_from(tagged).unwrap_or(0),
            notes,
        })
    }

    /// The newest `candidates + 1` matches of `expression` in `table` (an FTS5 table of
    /// migration 0006): how many, and the oldest one's key.
    fn bounded_matches(
        &self,
        table: &str,
        expression: &str,
        candidates: u32,
    ) -> StoreResult<FieldMatches> {
        let (found, oldest_key): (i64, i64) = self
            .conn
            .prepare_cached(&format!(
                "SELECT COUNT(*), coalesce(min(rowid), 0) FROM (SELECT rowid FROM {table} \
                 WHERE {table} MATCH ?1 ORDER BY rowid DESC LIMIT ?2)"
            ))?
            .query_row(
                rusqlite::params![expression, i64::from(candidates) + 1],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
        Ok(FieldMatches {
            found: u64::try_from(found).unwrap_or(0),
            oldest_key,
        })
    }
}
