//! The fake model servers' embeddings: deterministic and meaningful, so a test can say
//! which notes are related. Each word (lowercased, common words left out) is hashed
//! into one of [`DIMS`] buckets; a text's vector is its bucket counts, scaled to
//! length 1 as real servers' are. Notes that share words point the same way; notes
//! with no word in common are (but for a hash collision) at right angles.
//!
//! One trick makes meaning without shared words: a few synonyms ([`SYNONYMS`]) are
//! read as one word before hashing ("automobile" and "vehicle" as "car", "physician"
//! as "doctor", "spaghetti" as "pasta"), as a real model puts them near each other. A
//! search for "automobile" then finds a note about a car that has no word of it: the
//! hybrid search's semantic half, asserted without a real model.
#![allow(dead_code)]

/// The fakes' vectors' length.
pub const DIMS: usize = 64;

/// Words too common to say what a note is about.
const COMMON: [&str; 24] = [
    "a", "an", "and", "the", "to", "of", "in", "on", "for", "is", "it", "my", "with", "at", "be",
    "this", "that", "i", "we", "buy", "some", "from", "by", "or",
];

/// Words read as another (the fake's "meaning"): each pair is (word, as which).
pub const SYNONYMS: [(&str, &str); 6] = [
    ("automobile", "car"),
    ("vehicle", "car"),
    ("sedan", "car"),
    ("physician", "doctor"),
    ("spaghetti", "pasta"),
    ("noodles", "pasta"),
];

/// The vector of `text`, `dims` long.
pub fn vector_of(text: &str, dims: usize) -> Vec<f32> {
    let mut vector = vec![0.0_f32; dims];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty() && !COMMON.contains(&w.as_str()))
    {
        let word = SYNONYMS
            .iter()
            .find(|(synonym, _)| *synonym == word)
            .map_or(word.clone(), |(_, as_which)| as_which.to_string());
        // FNV-1a: the same bucket for the same word, in every run.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in word.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        vector[(hash % dims as u64) as usize] += 1.0;
    }
    let length = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if length > 0.0 {
        vector.iter_mut().for_each(|v| *v /= length);
    } else {
        // A text of common words only: still a vector (a real model gives one too).
        vector[0] = 1.0;
    }
    vector
}

/// The vector of `text` from a model that does not tell texts apart: nearly the same
/// for every text (one direction, and a trace of the text's own), every pair of them
/// at a cosine above 0.99.
pub fn degenerate_vector_of(text: &str, dims: usize) -> Vec<f32> {
    let own = vector_of(text, dims);
    let mut vector: Vec<f32> = own.iter().map(|v| 0.05 * v).collect();
    vector[dims - 1] += 1.0;
    let length = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    vector.iter().map(|v| v / length).collect()
}

/// The texts of a request's `input` (a string or a list of them).
pub fn inputs_of(request: &serde_json::Value) -> Vec<String> {
    match &request["input"] {
        serde_json::Value::String(text) => vec![text.clone()],
        serde_json::Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// How a fake answers an embedding request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedReply {
    /// 200, one [`DIMS`]-long vector per input.
    Ok,
    /// 200, vectors of this length instead (a server that disagrees with itself).
    WrongLength(usize),
    /// 200, vectors of zeros (a model that says nothing).
    Zeros,
    /// The server makes no embeddings (llama.cpp without `--embeddings`: 501).
    NotServed,
    /// The embedding model is not installed (Ollama's 404 "model … not found").
    ModelMissing,
    /// An input longer than this many bytes is refused as too long for the context.
    LongerThan(usize),
    /// 200 as `Ok`, after working this many seconds (of virtual time): a busy or hung
    /// server (fake Ollama only).
    HoldFor(u64),
    /// 200, vectors that do not tell texts apart ([`degenerate_vector_of`]; fake Ollama
    /// only).
    Degenerate,
}
