//! How similar (cosine) a note must be, at least, to be found by its meaning: every
//! floor of retrieval, each with why it is where it is. A floor is a property of what
//! is compared: a short query against a note, or a note against a note; and, for the
//! neighbours whose tags a new note's prompt carries, of the embedding model's own
//! spread ([`neighbours_floor`]); and of the model, whose cosines are its own: the
//! built-in embedder's are measured ([`search_floor`], [`related_floor`]).

use crate::api::status::VectorSpread;
use crate::api::worker::BUILTIN_EMBEDDER;

/// A search's words, or a question, against a note: the floor of the hybrid search's
/// and a question's semantic half. A query is short and a note long, so a true match is
/// less similar than two related notes ([`RELATED_FLOOR`]); below this, what comes back
/// for a query about nothing in the notes is noise, and nothing beats noise.
pub const SEARCH_FLOOR: f32 = 0.45;

/// A note against a note: how similar two notes must be, at least, to be shown as
/// related (and, at least, to lend their tags to a new note's prompt:
/// [`neighbours_floor`]). Below it the "nearest"
/// notes of a note about nothing else are noise, and nothing is better than noise.
pub const RELATED_FLOOR: f32 = 0.5;

// A short query is held to a lower floor than a whole note.
const _: () = assert!(SEARCH_FLOOR < RELATED_FLOOR);

/// The built-in embedder's floors (multilingual-e5-small, `crate::ai::builtin_embedder`).
/// e5 was trained with a low temperature (0.01): its cosines bunch high, every pair of
/// notes above 0.7, so [`SEARCH_FLOOR`] and [`RELATED_FLOOR`] let every note through
/// "by meaning" (measured: a search for "vegetable patch" found all 8 notes of the
/// real-model test). Measured on 20 notes (English and Korean) and 12 searches
/// (docs/PERFORMANCE.md, "The built-in embedder"): a search's true matches at 0.78 to
/// 0.91, noise up to 0.79 (one at 0.81); related notes at 0.86 to 0.94, unrelated
/// English ones at most 0.84, unrelated Korean ones up to 0.90 (Korean notes bunch
/// higher still: their ranking is right, the floor lets some through).
pub const BUILTIN_SEARCH_FLOOR: f32 = 0.78;
pub const BUILTIN_RELATED_FLOOR: f32 = 0.86;

const _: () = assert!(BUILTIN_SEARCH_FLOOR < BUILTIN_RELATED_FLOOR);

/// The floor of a search's words against a note, for the vectors of `model`.
pub fn search_floor(model: &str) -> f32 {
    if model == BUILTIN_EMBEDDER {
        BUILTIN_SEARCH_FLOOR
    } else {
        SEARCH_FLOOR
    }
}

/// The floor of a note against a note, for the vectors of `model`.
pub fn related_floor(model: &str) -> f32 {
    if model == BUILTIN_EMBEDDER {
        BUILTIN_RELATED_FLOOR
    } else {
        RELATED_FLOOR
    }
}

/// How far from the median similarity of the model's notes towards 1 a neighbour must
/// be to lend its tags (issue #37). Measured on 16 varied notes: Gemma 3 270M's related
/// pairs were 0.62 to 0.77 of the way, its unrelated ones at most 0.44.
pub const NEAR_LIFT: f32 = 0.5;

/// The least similarity of a neighbour whose tags a new note's prompt carries, under
/// the `spread` of the model's vectors (`crate::storage::spread`): halfway from their
/// median to 1, never below [`RELATED_FLOOR`]; `None`, no neighbour at all, when the
/// model does not tell notes apart or too few notes have vectors to judge. Cosines are
/// not comparable between models: with Gemma 3 270M's vectors unrelated notes sit at
/// 0.71 on the median, so [`RELATED_FLOOR`] alone let every note lend its tags to
/// every other, and a small model copies what its prompt offers.
pub fn neighbours_floor(spread: &VectorSpread) -> Option<f32> {
    match spread {
        VectorSpread::TellsNotesApart { median, .. } => {
            Some((median + NEAR_LIFT * (1.0 - median)).max(RELATED_FLOOR))
        }
        VectorSpread::TooFewNotes { .. } | VectorSpread::Degenerate { .. } => None,
    }
}

#[cfg(test)]
mod tests;
