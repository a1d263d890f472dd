//! Tag sprawl, measured: how many distinct tags a body of notes carries per 100 notes,
//! and which pairs of its tags are near-duplicates (two words for one topic). The
//! figures of docs/PERFORMANCE.md, "Tag sprawl" (`benches/tag_sprawl.rs` prints them).
//! A measure of the model's answers, not a rule of the service: the bench includes it,
//! and its tests are `tests/pipeline/sprawl.rs`.
//!
//! Two different tags are near-duplicates when, compared by their [`key`] (lowercase,
//! without spaces, `-` or `_`):
//! - the keys are equal: a hyphen, space, underscore or case variant ("half-marathon",
//!   "half marathon"; the store merges these as they come in, so a stored vocabulary
//!   should have none, and the measure checks it);
//! - one is the other's plural: `+s`, `+es`, `y`→`ies` ("recipe", "recipes");
//! - they share a stem: the same word once `-ing`, `-ings`, `-ed`, `-es` or `-s` is
//!   taken off (and a doubled last letter undone), the stem at least 3 letters
//!   ("run", "running"; "garden", "gardening");
//! - they are a small edit apart: Levenshtein distance 1 for keys of 4 to 7 characters,
//!   at most 2 from 8 characters on, none below 4 ("lisbon", "lisboa"; "korean",
//!   "korea"). Short words a letter or two apart are often different words ("tax",
//!   "tea"; "title", "tiles"), so the allowance grows with the length.

use std::collections::BTreeSet;

use inkling::tags::key;

/// Why two tags count as one topic, the first rule that matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kinship {
    /// Only case, spaces, `-` or `_` differ.
    Spelling,
    /// One is the other's plural.
    Plural,
    /// The same word with another ending.
    Stem,
    /// A letter or two apart.
    Edit,
}

/// Whether `a` and `b` (different tags) are near-duplicates, and why.
pub fn kinship(a: &str, b: &str) -> Option<Kinship> {
    if a == b {
        return None;
    }
    let (ka, kb) = (key(a), key(b));
    if ka.is_empty() || kb.is_empty() {
        return None;
    }
    if ka == kb {
        return Some(Kinship::Spelling);
    }
    if plural_of(&ka, &kb) || plural_of(&kb, &ka) {
        return Some(Kinship::Plural);
    }
    let (sa, sb) = (stem(&ka), stem(&kb));
    if sa == sb && sa.chars().count() >= 3 {
        return Some(Kinship::Stem);
    }
    let shorter = ka.chars().count().min(kb.chars().count());
    let allowed = match shorter {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    };
    (allowed > 0 && strsim::levenshtein(&ka, &kb) <= allowed).then_some(Kinship::Edit)
}

/// `plural` is `one`'s plural: `+s`, `+es`, or `y` → `ies`.
fn plural_of(one: &str, plural: &str) -> bool {
    let Some(rest) = plural.strip_prefix(one) else {
        return one
            .strip_suffix('y')
            .is_some_and(|base| plural.strip_prefix(base) == Some("ies"));
    };
    rest == "s" || rest == "es"
}

/// A word without its ending: `-ings`, `-ing`, `-ed`, `-es`, `-s` (the first that
/// leaves at least 3 letters), a doubled last letter then undone ("running" → "run").
fn stem(word: &str) -> String {
    for ending in ["ings", "ing", "ed", "es", "s"] {
        if let Some(base) = word.strip_suffix(ending) {
            if base.chars().count() >= 3 {
                let mut letters: Vec<char> = base.chars().collect();
                let n = letters.len();
                if n >= 4 && letters[n - 1] == letters[n - 2] && !"aeiou".contains(letters[n - 1]) {
                    letters.pop();
                }
                return letters.into_iter().collect();
            }
        }
    }
    word.to_string()
}

/// A pair of near-duplicate tags, in alphabetical order, with why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NearDuplicate {
    pub first: String,
    pub second: String,
    pub kinship: Kinship,
}

/// Every pair of near-duplicates among `tags` (each distinct tag once, whatever the
/// order or repetition given), in alphabetical order.
pub fn near_duplicates<'a>(tags: impl IntoIterator<Item = &'a str>) -> Vec<NearDuplicate> {
    let distinct: Vec<&str> = tags
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut pairs = Vec::new();
    for (i, first) in distinct.iter().enumerate() {
        for second in &distinct[i + 1..] {
            if let Some(kinship) = kinship(first, second) {
                pairs.push(NearDuplicate {
                    first: first.to_string(),
                    second: second.to_string(),
                    kinship,
                });
            }
        }
    }
    pairs
}

/// The sprawl of a body of notes, each given by its tags.
#[derive(Debug, Clone, PartialEq)]
pub struct Sprawl {
    pub notes: usize,
    /// Notes with at least one tag.
    pub tagged: usize,
    /// Different tags over all the notes.
    pub distinct: usize,
    /// `distinct` scaled to 100 notes.
    pub distinct_per_100_notes: f64,
    /// Tags given, over all notes, per tagged note.
    pub tags_per_tagged_note: f64,
    pub near_duplicates: Vec<NearDuplicate>,
}

/// The sprawl of `notes` (each note's tags).
pub fn sprawl(notes: &[Vec<String>]) -> Sprawl {
    let all: BTreeSet<&str> = notes.iter().flatten().map(String::as_str).collect();
    let tagged = notes.iter().filter(|tags| !tags.is_empty()).count();
    let given: usize = notes.iter().map(Vec::len).sum();
    let ratio = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    Sprawl {
        notes: notes.len(),
        tagged,
        distinct: all.len(),
        distinct_per_100_notes: 100.0 * ratio(all.len(), notes.len()),
        tags_per_tagged_note: ratio(given, tagged),
        near_duplicates: near_duplicates(all.iter().copied()),
    }
}
