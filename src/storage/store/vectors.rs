//! The notes' vectors (migration 0008): what is left to embed for a model, newest
//! first; vectors saved for the body they were made from (and put in the index); a
//! note's related notes, found as `nearest.rs` finds any vector's, with whether the
//! model's vectors tell notes apart (a sample of the newest, judged by
//! `storage/spread.rs`). How a vector is stored and compared is `storage/vectors.rs`.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError, StoreResult};
use crate::api::changes::ChangeKind;
use crate::api::status::VectorSpread;
use crate::domain::{timestamp, Note};
use crate::storage::spread::{judge, pairwise, SAMPLE_NOTES};
use crate::storage::vectors::{decode, encode};

/// How many notes one slice of the walk over every note reads (a twentieth of
/// 100,000; docs/PERFORMANCE.md "Related notes at scale"): the whole walk took 230 ms,
/// which a capture at start-up waited behind.
pub const BACKLOG_WALK: usize = 5_000;

/// Notes still to embed with a model, and that model's dimensions once a vector of it
/// is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbeddingBacklog {
    /// `(id, body)`, newest first.
    pub notes: Vec<(String, String)>,
    pub dims: Option<usize>,
    /// Where a slice of the walk over every note stopped: the next slice reads the
    /// notes below this id. `None` once the walk has reached the oldest note (and for
    /// a read by id).
    pub next: Option<String>,
}

/// A vector to store: for which note, made from which body.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteVector {
    pub note_id: String,
    /// The body the vector was made from: a note edited since keeps no vector (its new
    /// body is embedded next).
    pub body: String,
    pub vector: Vec<f32>,
}

/// A note's related notes, best first, each with its similarity (cosine); `embedded`
/// is false while the note itself has no vector yet. `spread`: whether the vectors of
/// the note's model tell notes apart, which says how near is really near (`None`
/// without a vector).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Related {
    pub notes: Vec<(Note, f32)>,
    pub embedded: bool,
    pub spread: Option<VectorSpread>,
}

impl Store {
    /// Up to `limit` notes out of the trash with no vector of `model`, newest first
    /// (a new note's neighbours matter most), leaving out `skip` (notes whose vectors
    /// were refused this run); with `only`, among those notes alone (found by id, not
    /// by walking every note).
    pub fn embedding_backlog(
        &self,
        model: &str,
        limit: usize,
        skip: &[String],
        only: Option<&[String]>,
    ) -> StoreResult<EmbeddingBacklog> {
        let json = |ids: &[String]| {
            serde_json::to_string(ids)
                .map_err(|e| StoreError::Unavailable(format!("cannot list notes: {e}")))
        };
        let skip = json(skip)?;
        let (which, only) = match only {
            Some(ids) => ("AND n.id IN (SELECT value FROM json_each(?4))", json(ids)?),
            None => ("AND ?4 IS NULL", String::new()),
        };
        let only = (!only.is_empty()).then_some(only);
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT n.id, n.body FROM notes n
             WHERE n.deleted_at IS NULL {which}
               AND NOT EXISTS (SELECT 1 FROM note_vectors v WHERE v.note_id = n.id AND v.model = ?1)
               AND n.id NOT IN (SELECT value FROM json_each(?3))
             ORDER BY n.id DESC LIMIT ?2"
        ))?;
        let notes = stmt
            .query_map(params![model, limit as i64, skip, only], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EmbeddingBacklog {
            notes,
            dims: self.model_dims(model)?,
            next: None,
        })
    }

    /// The dimensions of `model`'s vectors, once one is stored (all have the same).
    fn model_dims(&self, model: &str) -> StoreResult<Option<usize>> {
        let dims: Option<i64> = self
            .conn
            .query_row(
                "SELECT dims FROM note_vectors WHERE model = ?1 LIMIT 1",
                [model],
                |r| r.get(0),
            )
            .optional()?;
        Ok(dims.and_then(|d| usize::try_from(d).ok()))
    }

    /// One slice of the walk over every note for what is left to embed with `model`:
    /// among the `walk` notes below `before` (newest first; `None`: from the newest),
    /// up to `limit` out of the trash with no vector of `model`, leaving out `skip`.
    /// `next` says where the walk goes on: after the last note found when `limit` were,
    /// else below the slice; `None` when the slice reached the oldest note.
    pub fn embedding_backlog_slice(
        &self,
        model: &str,
        limit: usize,
        skip: &[String],
        before: Option<&str>,
        walk: usize,
    ) -> StoreResult<EmbeddingBacklog> {
        let skip = serde_json::to_string(skip)
            .map_err(|e| StoreError::Unavailable(format!("cannot list notes: {e}")))?;
        // Above every id (ids are ASCII; this is the last code point's UTF-8).
        let before = before.unwrap_or("\u{10ffff}");
        let mut stmt = self.conn.prepare_cached(
            "WITH walked AS (SELECT id FROM notes WHERE id < ?4 ORDER BY id DESC LIMIT ?5)
             SELECT n.id, n.body FROM walked w JOIN notes n ON n.id = w.id
             WHERE n.deleted_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM note_vectors v WHERE v.note_id = n.id AND v.model = ?1)
               AND n.id NOT IN (SELECT value FROM json_each(?3))
             ORDER BY n.id DESC LIMIT ?2",
        )?;
        let notes: Vec<(String, String)> = stmt
            .query_map(
                params![model, limit as i64, skip, before, walk as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?
            .collect::<Result<_, _>>()?;
        let next = match notes.last() {
            Some((last, _)) if notes.len() >= limit => Some(last.clone()),
            _ => {
                let (walked, lowest): (i64, Option<String>) = self.conn.query_row(
                    "SELECT count(*), min(id) FROM
                         (SELECT id FROM notes WHERE id < ?1 ORDER BY id DESC LIMIT ?2)",
                    params![before, walk as i64],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?;
                lowest.filter(|_| walked as usize >= walk)
            }
        };
        Ok(EmbeddingBacklog {
            notes,
            dims: self.model_dims(model)?,
            next,
        })
    }

    /// Stores each vector as its note's, with `model`, in one transaction, when the
    /// note still has the body it was made from and the vector has the dimensions of
    /// that model's other vectors (never mixed). Replies how many were stored.
    pub fn save_vectors(
        &mut self,
        model: &str,
        vectors: &[NoteVector],
        now: DateTime<Utc>,
    ) -> StoreResult<usize> {
        self.write(|tx| {
            let mut stored = 0;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO note_vectors (note_id, model, dims, vector, embedded_at)
                 SELECT ?1, ?2, ?3, ?4, ?5
                 WHERE EXISTS (SELECT 1 FROM notes WHERE id = ?1 AND body = ?6)
                   -- Two ranges of the (model, dims) index, not a scan of the model's
                   -- vectors (`dims != ?3` would read every one of them).
                   AND NOT EXISTS (SELECT 1 FROM note_vectors WHERE model = ?2 AND dims < ?3)
                   AND NOT EXISTS (SELECT 1 FROM note_vectors WHERE model = ?2 AND dims > ?3)
                 ON CONFLICT (note_id) DO UPDATE SET
                     model = excluded.model, dims = excluded.dims,
                     vector = excluded.vector, embedded_at = excluded.embedded_at",
                )?;
                for item in vectors {
                    let inserted = insert.execute(params![
                        item.note_id,
                        model,
                        item.vector.len() as i64,
                        encode(&item.vector),
                        timestamp(now),
                        item.body,
                    ])?;
                    stored += inserted;
                    // The vector index follows the log (a note in the trash stays out).
                    if inserted > 0 {
                        tx.record(&item.note_id, ChangeKind::Embedded, now)?;
                    }
                }
            }
            Ok(stored)
        })
    }

    /// The `k` notes out of the trash nearest to `note_id` (cosine, at least `floor`),
    /// compared only with vectors of the note's own model and dimensions
    /// ([`Store::nearest_to_vector`]'s search, the note itself left out).
    pub fn related(
        &self,
        note_id: &str,
        k: usize,
        floor: impl Fn(&str) -> f32,
    ) -> StoreResult<Related> {
        self.get(note_id)?;
        let own: Option<(String, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT model, vector FROM note_vectors WHERE note_id = ?1",
                [note_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((model, bytes)) = own else {
            return Ok(Related::default());
        };
        let Some(query) = decode(&bytes) else {
            return Ok(Related::default());
        };
        let best = self.nearest(&model, &query, k, floor(&model), Some(note_id))?;
        let mut notes = Vec::with_capacity(best.len());
        for (id, similarity) in best {
            notes.push((self.get(&id)?, similarity));
        }
        let spread = self.vector_spread(&model, query.len())?;
        Ok(Related {
            notes,
            embedded: true,
            spread: Some(spread),
        })
    }

    /// Whether `model`'s vectors of `dims` tell notes apart, judged on the newest
    /// [`SAMPLE_NOTES`] of them out of the trash (newest by when their vector was first
    /// stored: the model-and-dims index read backwards, so a few rows are read however
    /// many notes there are).
    pub fn vector_spread(&self, model: &str, dims: usize) -> StoreResult<VectorSpread> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT v.vector FROM note_vectors v JOIN notes n ON n.id = v.note_id
             WHERE v.model = ?1 AND v.dims = ?2 AND n.deleted_at IS NULL
             ORDER BY v.rowid DESC LIMIT ?3",
        )?;
        let vectors: Vec<Vec<f32>> = stmt
            .query_map(params![model, dims as i64, SAMPLE_NOTES as i64], |r| {
                r.get::<_, Vec<u8>>(0)
            })?
            .filter_map(|bytes| bytes.map(|b| decode(&b)).transpose())
            .collect::<Result<_, _>>()?;
        Ok(judge(vectors.len(), &pairwise(&vectors)))
    }

    /// [`Store::vector_spread`] of the model and dimensions of the newest vector stored:
    /// the embedding model in use (`None` when no note has a vector).
    pub fn newest_vector_spread(&self) -> StoreResult<Option<VectorSpread>> {
        let newest: Option<(String, i64)> = self
            .conn
            .query_row(
                "SELECT model, dims FROM note_vectors ORDER BY rowid DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match newest {
            None => Ok(None),
            Some((model, dims)) => Ok(Some(self.vector_spread(&model, dims as usize)?)),
        }
    }
}
