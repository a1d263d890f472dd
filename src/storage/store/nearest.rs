//! The nearest notes to a vector (issue #26 point 5): the index in memory
//! (`storage/vector_index.rs`) chooses [`RESCORE_CANDIDATES`] notes by their binary
//! codes, and their full vectors, read here from SQLite, rank them exactly. This file
//! owns the index's build at start (in slices, so the repository's other work goes on
//! between them), keeping it in step with the writes that move a note into or out of
//! it, and the exact search over every vector: the reference the index is measured
//! against, and the answer while the index is still being built. Either search may be
//! held to some notes (`vector_index::Scope`): the index then reads only theirs.

use rusqlite::types::ValueRef;
use rusqlite::{params, OptionalExtension, Row};

use super::{Store, StoreResult};
use crate::storage::vector_index::{Scope, RESCORE_CANDIDATES};
use crate::storage::vectors::{cosine_stored, Best};

/// How far the index's build at start has come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum IndexBuild {
    /// Vectors are still being read, in note id order; the last read is `after`.
    Reading { after: Option<String> },
    /// Every vector is in: searches go through the index.
    Ready,
}

/// What one slice of the build did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexProgress {
    /// More vectors to read; `indexed` notes in the index so far.
    Going { indexed: usize },
    /// The index is ready, with this many notes.
    Done { indexed: usize },
}

/// How many vectors one slice of the build reads: ~30 ms on this machine under load
/// (53 ms the slowest), so a capture arriving meanwhile waits that long at most
/// (docs/PERFORMANCE.md, "Related notes at scale").
pub const INDEX_SLICE: usize = 2_000;

impl Store {
    /// Reads up to `slice` more vectors (notes out of the trash) into the index. Every
    /// write meanwhile keeps the index in step, whether or not its note was read yet;
    /// a slice that finds fewer than `slice` makes the index ready.
    pub fn index_vectors(&mut self, slice: usize) -> StoreResult<IndexProgress> {
        let IndexBuild::Reading { after } = &self.index_build else {
            return Ok(IndexProgress::Done {
                indexed: self.index.len(),
            });
        };
        let mut stmt = self.conn.prepare_cached(
            "SELECT v.note_id, v.model, v.vector FROM note_vectors v JOIN notes n ON n.id = v.note_id
             WHERE n.deleted_at IS NULL AND v.note_id > ?1
             ORDER BY v.note_id LIMIT ?2",
        )?;
        let mut rows = stmt.query(params![after.as_deref().unwrap_or(""), slice as i64])?;
        let (mut read, mut last) = (0, None);
        while let Some(row) = rows.next()? {
            let id = text(row, 0)?;
            // A vector of broken length is never compared (the exact search skips it
            // too): left out.
            self.index.insert_stored(text(row, 1)?, id, blob(row, 2)?);
            read += 1;
            last = Some(id.to_string());
        }
        let indexed = self.index.len();
        if read < slice {
            self.index_build = IndexBuild::Ready;
            return Ok(IndexProgress::Done { indexed });
        }
        self.index_build = IndexBuild::Reading { after: last };
        Ok(IndexProgress::Going { indexed })
    }

    /// The whole build at once (tests, benchmarks, the command line); replies how many
    /// notes the index holds.
    pub fn index_all_vectors(&mut self) -> StoreResult<usize> {
        loop {
            if let IndexProgress::Done { indexed } = self.index_vectors(INDEX_SLICE)? {
                return Ok(indexed);
            }
        }
    }

    /// Whether searches go through the index (its build at start is over).
    pub fn index_ready(&self) -> bool {
        self.index_build == IndexBuild::Ready
    }

    /// Whether the index holds a code for `note_id` under `model` (tests, diagnostics).
    pub fn in_index(&self, model: &str, note_id: &str) -> bool {
        self.index.contains(model, note_id)
    }

    /// The memory the index holds, roughly, in bytes.
    pub fn index_bytes(&self) -> usize {
        self.index.bytes()
    }

    /// The `k` notes out of the trash nearest to `query` among `model`'s vectors of
    /// its length, best first, none below `floor` (cosine, exact).
    pub fn nearest_to_vector(
        &self,
        model: &str,
        query: &[f32],
        k: usize,
        floor: f32,
    ) -> StoreResult<Vec<(String, f32)>> {
        self.nearest_in(model, query, k, floor, Scope::All)
    }

    /// [`Store::nearest_to_vector`] leaving out `except` (the note asking).
    pub(super) fn nearest(
        &self,
        model: &str,
        query: &[f32],
        k: usize,
        floor: f32,
        except: Option<&str>,
    ) -> StoreResult<Vec<(String, f32)>> {
        self.nearest_in(model, query, k, floor, except.into())
    }

    /// The `k` notes in `scope` nearest to `query`: through the index once it is
    /// built, by the exact search before.
    pub(super) fn nearest_in(
        &self,
        model: &str,
        query: &[f32],
        k: usize,
        floor: f32,
        scope: Scope,
    ) -> StoreResult<Vec<(String, f32)>> {
        if !self.index_ready() {
            return self.nearest_exact(model, query, k, floor, scope);
        }
        self.nearest_through_index(model, query, k, floor, scope, RESCORE_CANDIDATES)
    }

    /// The index's `candidates` nearest codes in `scope` (the index as it is, built or
    /// not), ranked exactly from their stored vectors. Public for the benchmark, which
    /// weighs recall against the number of candidates.
    pub fn nearest_through_index(
        &self,
        model: &str,
        query: &[f32],
        k: usize,
        floor: f32,
        scope: Scope,
        candidates: usize,
    ) -> StoreResult<Vec<(String, f32)>> {
        let mut candidates = self
            .index
            .candidates(model, query, candidates.max(k), scope);
        // Newest first, as the exact search offers them: a tie ends the same way.
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        // The note's trash state and model are asked again: what is shown is what the
        // database holds, whatever the index may have missed.
        let mut stmt = self.conn.prepare_cached(
            "SELECT v.vector FROM note_vectors v JOIN notes n ON n.id = v.note_id
             WHERE v.note_id = ?1 AND v.model = ?2 AND v.dims = ?3 AND n.deleted_at IS NULL",
        )?;
        let mut best = Best::new(k, floor);
        for id in &candidates {
            let mut rows = stmt.query(params![&**id, model, query.len() as i64])?;
            if let Some(row) = rows.next()? {
                if let Some(similarity) = cosine_stored(query, blob(row, 0)?) {
                    best.offer(id, similarity);
                }
            }
        }
        Ok(best.into_vec())
    }

    /// The exact search: every vector in `scope` of `model` and the query's length
    /// compared, one at a time as it is read, none copied (the reference for the
    /// index's recall, and the answer while it is built).
    pub fn nearest_exact(
        &self,
        model: &str,
        query: &[f32],
        k: usize,
        floor: f32,
        scope: Scope,
    ) -> StoreResult<Vec<(String, f32)>> {
        let except = match scope {
            Scope::AllBut(id) => id,
            _ => "",
        };
        let mut stmt = self.conn.prepare_cached(
            "SELECT v.note_id, v.vector FROM note_vectors v JOIN notes n ON n.id = v.note_id
             WHERE v.model = ?1 AND v.dims = ?2 AND v.note_id != ?3 AND n.deleted_at IS NULL
             ORDER BY v.note_id DESC",
        )?;
        let mut rows = stmt.query(params![model, query.len() as i64, except])?;
        let mut best = Best::new(k, floor);
        while let Some(row) = rows.next()? {
            let id = text(row, 0)?;
            if !scope.admits(id) {
                continue;
            }
            if let Some(similarity) = cosine_stored(query, blob(row, 1)?) {
                best.offer(id, similarity);
            }
        }
        Ok(best.into_vec())
    }

    /// Puts a note's stored vector into the index (a note restored from the trash).
    pub(super) fn index_note(&mut self, note_id: &str) -> StoreResult<()> {
        let stored: Option<(String, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT model, vector FROM note_vectors WHERE note_id = ?1",
                [note_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((model, bytes)) = stored {
            self.index.insert_stored(&model, note_id, &bytes);
        }
        Ok(())
    }
}

/// A column read in place as text.
fn text<'r>(row: &'r Row, column: usize) -> rusqlite::Result<&'r str> {
    match row.get_ref(column)? {
        ValueRef::Text(bytes) => {
            std::str::from_utf8(bytes).map_err(|e| rusqlite::Error::Utf8Error(column, e))
        }
        other => Err(rusqlite::Error::InvalidColumnType(
            column,
            "text".into(),
            other.data_type(),
        )),
    }
}

/// A column read in place as a BLOB.
fn blob<'r>(row: &'r Row, column: usize) -> rusqlite::Result<&'r [u8]> {
    match row.get_ref(column)? {
        ValueRef::Blob(bytes) => Ok(bytes),
        other => Err(rusqlite::Error::InvalidColumnType(
            column,
            "vector".into(),
            other.data_type(),
        )),
    }
}
