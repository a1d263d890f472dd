//! How similar (cosine) a note must be, at least, to be found by its meaning: every
//! floor of retrieval, each with why it is where it is. A floor is a property of what
//! is compared: a short query against a note, or a note against a note.

/// A search's words, or a question, against a note: the floor of the hybrid search's
/// and a question's semantic half. A query is short and a note long, so a true match is
/// less similar than two related notes ([`RELATED_FLOOR`]); below this, what comes back
/// for a query about nothing in the notes is noise, and nothing beats noise.
pub const SEARCH_FLOOR: f32 = 0.45;

/// A note against a note: how similar two notes must be, at least, to be shown as
/// related (and to lend their tags to a new note's prompt). Below it the "nearest"
/// notes of a note about nothing else are noise, and nothing is better than noise.
pub const RELATED_FLOOR: f32 = 0.5;

// A short query is held to a lower floor than a whole note.
const _: () = assert!(SEARCH_FLOOR < RELATED_FLOOR);
