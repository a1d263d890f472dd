//! The notes' vectors in memory, small enough to keep (issue #26 point 5): each vector
//! as the signs of its values, one bit a dimension (a *binary code*: 96 bytes for 768
//! dimensions, against 3 KB as floats), in one table per embedding model and length,
//! so two models or two lengths are never compared. A query's nearest notes are first
//! chosen by the Hamming distance between codes (how many signs differ: an XOR and a
//! popcount per 64 dimensions), a fast scan of every code; only those few hundred
//! candidates are then compared exactly, from their full vectors in SQLite (`Store`,
//! the rescoring), so the similarity a person is shown is the exact cosine, and the
//! code only decides which vectors are worth reading.
//!
//! A scan may be held to some notes ([`Scope`]): every note but the one asking for its
//! related notes, or only the notes a search's filter lets through (its tag, status,
//! expiry; read by `Store` in SQL), so a narrow filter still gets its nearest notes
//! instead of whatever of the nearest overall happen to pass it.
//!
//! Plain data, no I/O: `Store` keeps it in step with every write that adds, replaces
//! or takes away a vector, or moves a note to or from the trash (docs/DESIGN.md,
//! "Related notes").

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

/// How many candidates the scan hands to the exact comparison. Measured at 100,000
/// notes of 768 dimensions (`benches/related.rs`, docs/PERFORMANCE.md "Related notes at
/// scale"): recall@5 against the exact search rises with it, and each candidate costs
/// one read of a 3 KB vector.
pub const RESCORE_CANDIDATES: usize = 200;

/// Which notes a scan may offer.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// Every note.
    All,
    /// Every note but this one (the note asking for its related notes).
    AllBut(&'a str),
    /// These notes only (those a search's filter lets through); only they are read, so
    /// a narrow filter costs little.
    Only(&'a HashSet<String>),
}

impl<'a> Scope<'a> {
    /// Whether the scan may offer `note_id`.
    pub fn admits(&self, note_id: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::AllBut(except) => note_id != *except,
            Scope::Only(ids) => ids.contains(note_id),
        }
    }
}

impl<'a> From<Option<&'a str>> for Scope<'a> {
    fn from(except: Option<&'a str>) -> Self {
        except.map_or(Scope::All, Scope::AllBut)
    }
}

/// A vector's binary code: bit `i` (of word `i / 64`) set when value `i` is above 0.
pub fn binary_code(vector: &[f32]) -> Vec<u64> {
    let mut code = vec![0u64; vector.len().div_ceil(64)];
    for (i, value) in vector.iter().enumerate() {
        if *value > 0.0 {
            code[i / 64] |= 1 << (i % 64);
        }
    }
    code
}

/// The binary code of a vector as stored (its little-endian f32 bytes), read in place;
/// `None` when the bytes are not whole f32s.
pub fn binary_code_stored(bytes: &[u8]) -> Option<Vec<u64>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut code = vec![0u64; (bytes.len() / 4).div_ceil(64)];
    for (i, b) in bytes.chunks_exact(4).enumerate() {
        if f32::from_le_bytes([b[0], b[1], b[2], b[3]]) > 0.0 {
            code[i / 64] |= 1 << (i % 64);
        }
    }
    Some(code)
}

/// How many bits of two codes of the same length differ.
#[inline(always)]
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// Every code's distance from `query` (`codes`: codes of `query`'s length, one after
/// the other), in order. With the CPU's `popcnt` instruction when it has one: Rust's
/// baseline x86-64 target may not assume it, and counting bits without it made the
/// scan of 100,000 codes the larger half of a search.
pub fn distances(query: &[u64], codes: &[u64]) -> Vec<u32> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has `popcnt` (checked just above), the one feature
        // `distances_popcnt` is compiled to use.
        return unsafe { distances_popcnt(query, codes) };
    }
    distances_portable(query, codes)
}

#[inline(always)]
fn distances_portable(query: &[u64], codes: &[u64]) -> Vec<u32> {
    if query.is_empty() {
        return Vec::new();
    }
    codes
        .chunks_exact(query.len())
        .map(|code| hamming(query, code))
        .collect()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn distances_popcnt(query: &[u64], codes: &[u64]) -> Vec<u32> {
    distances_portable(query, codes)
}

/// The codes of one model's vectors of one length. A note's slot moves when another is
/// taken out (the last fills the hole), so slots are never handed out.
#[derive(Debug, Default)]
struct Table {
    /// 64-bit words per code.
    words: usize,
    /// Every code, one after the other: slot `s` is `codes[s * words..(s + 1) * words]`.
    codes: Vec<u64>,
    /// Whose code each slot holds (shared with `slots`: one copy of each id).
    ids: Vec<Arc<str>>,
    slots: HashMap<Arc<str>, usize>,
}

impl Table {
    fn new(dims: usize) -> Self {
        Table {
            words: dims.div_ceil(64),
            ..Table::default()
        }
    }

    fn put(&mut self, note_id: &str, code: &[u64]) {
        if let Some(&slot) = self.slots.get(note_id) {
            self.codes[slot * self.words..(slot + 1) * self.words].copy_from_slice(code);
            return;
        }
        let id: Arc<str> = Arc::from(note_id);
        self.slots.insert(id.clone(), self.ids.len());
        self.ids.push(id);
        self.codes.extend_from_slice(code);
    }

    fn take(&mut self, note_id: &str) -> bool {
        let Some(slot) = self.slots.remove(note_id) else {
            return false;
        };
        let last = self.ids.len() - 1;
        if slot != last {
            let (words, moved) = (self.words, self.ids[last].clone());
            self.codes
                .copy_within(last * words..(last + 1) * words, slot * words);
            self.slots.insert(moved.clone(), slot);
            self.ids[slot] = moved;
        }
        self.ids.pop();
        self.codes.truncate(last * self.words);
        true
    }

    /// The `n` notes in `scope` whose codes are nearest `query`'s; in no particular
    /// order (the exact comparison orders them).
    fn nearest(&self, query: &[u64], n: usize, scope: Scope) -> Vec<Arc<str>> {
        // The n best so far, the worst on top: a code no nearer than it is passed over
        // with one comparison.
        let mut best: BinaryHeap<(u32, usize)> = BinaryHeap::with_capacity(n + 1);
        let mut offer = |distance: u32, slot: usize| {
            if best.len() < n {
                best.push((distance, slot));
            } else if best.peek().is_some_and(|&(worst, _)| distance < worst) {
                best.pop();
                best.push((distance, slot));
            }
        };
        match scope {
            Scope::Only(ids) => {
                // Only the notes in scope are read: their slots, then their codes.
                for id in ids {
                    if let Some(&slot) = self.slots.get(id.as_str()) {
                        let code = &self.codes[slot * self.words..(slot + 1) * self.words];
                        offer(hamming(query, code), slot);
                    }
                }
            }
            Scope::All | Scope::AllBut(_) => {
                let except = match scope {
                    Scope::AllBut(id) => self.slots.get(id).copied(),
                    _ => None,
                };
                for (slot, distance) in distances(query, &self.codes).into_iter().enumerate() {
                    if Some(slot) != except {
                        offer(distance, slot);
                    }
                }
            }
        }
        best.into_iter()
            .map(|(_, slot)| self.ids[slot].clone())
            .collect()
    }

    /// Bytes held, roughly: the codes, and each id twice-referenced once.
    fn bytes(&self) -> usize {
        let ids: usize = self.ids.iter().map(|id| id.len() + 16).sum();
        self.codes.capacity() * 8
            + self.ids.capacity() * 16
            + ids
            + self.slots.capacity() * (16 + 8 + 1)
    }
}

/// Every note's code out of the trash, one table per (model, dimensions).
#[derive(Debug, Default)]
pub struct VectorIndex {
    tables: HashMap<(String, usize), Table>,
}

impl VectorIndex {
    /// Puts (or replaces) a note's code under `model` and its vector's length; a code
    /// it had under another model or length goes (a note has one vector).
    pub fn insert(&mut self, model: &str, note_id: &str, vector: &[f32]) {
        self.insert_code(model, note_id, vector.len(), &binary_code(vector));
    }

    /// [`VectorIndex::insert`] from a vector as stored; false (nothing put) when the
    /// bytes are not whole f32s.
    pub fn insert_stored(&mut self, model: &str, note_id: &str, bytes: &[u8]) -> bool {
        match binary_code_stored(bytes) {
            Some(code) => {
                self.insert_code(model, note_id, bytes.len() / 4, &code);
                true
            }
            None => false,
        }
    }

    fn insert_code(&mut self, model: &str, note_id: &str, dims: usize, code: &[u64]) {
        let key = (model.to_string(), dims);
        for (other, table) in self.tables.iter_mut() {
            if *other != key {
                table.take(note_id);
            }
        }
        self.tables.retain(|_, table| !table.ids.is_empty());
        self.tables
            .entry(key)
            .or_insert_with(|| Table::new(dims))
            .put(note_id, code);
    }

    /// Takes a note's code away (its vector went stale, the note went to the trash);
    /// false when it had none.
    pub fn remove(&mut self, note_id: &str) -> bool {
        let mut removed = false;
        for table in self.tables.values_mut() {
            removed |= table.take(note_id);
        }
        self.tables.retain(|_, table| !table.ids.is_empty());
        removed
    }

    /// The `n` notes (ids) in `scope` whose codes are nearest to `query`'s among
    /// `model`'s vectors of the query's length. Candidates only: their exact similarity
    /// is for the caller.
    pub fn candidates(&self, model: &str, query: &[f32], n: usize, scope: Scope) -> Vec<Arc<str>> {
        match self.tables.get(&(model.to_string(), query.len())) {
            Some(table) => table.nearest(&binary_code(query), n, scope),
            None => Vec::new(),
        }
    }

    /// Whether a note has a code under `model`.
    pub fn contains(&self, model: &str, note_id: &str) -> bool {
        self.tables
            .iter()
            .any(|((m, _), table)| m == model && table.slots.contains_key(note_id))
    }

    /// How many notes have a code, in every table.
    pub fn len(&self) -> usize {
        self.tables.values().map(|table| table.ids.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The memory the index holds, roughly (for the logs and the benchmark).
    pub fn bytes(&self) -> usize {
        self.tables.values().map(Table::bytes).sum()
    }
}

#[cfg(test)]
mod tests;
