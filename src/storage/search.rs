//! Search: what a query means, and how a hit's snippet is cut. Plain functions over
//! plain data; `Store::search` runs them against the search index (migration 0006:
//! titles, bodies and distinct tags each in an FTS5 table of their own).
//!
//! A query is words separated by spaces; a note matches when it contains every word
//! (in its title, tags or body, ignoring case), anywhere, also inside a longer word.
//! The index is FTS5's trigram tokenizer, so a word of three or more characters is
//! looked up in the index; a shorter one (two Korean syllables are a common word) has no
//! trigram and is matched with `LIKE` over the notes the longer words left, or over all
//! of them when it is alone. Results are ranked with BM25, each field scored in its own
//! index and weighted: a title match 10, a tag 5, the body 1; ties (and queries of
//! short words only, which have no rank) newest first.
//!
//! Ranking every match cannot answer within a frame: BM25 over a word in half of
//! 100,000 notes takes 40–90 ms in FTS5 alone (docs/PERFORMANCE.md). So a search first
//! ranks a bounded set: the newest [`CANDIDATES`] matches of each word in each field
//! (FTS5 gives a word's matches newest first for a fraction of a millisecond). A field
//! where a word has more matches than that is "past the threshold": its matches all
//! score alike (the word's weight, its rarity estimated from how densely the newest
//! matches lie), so among them the newest come first. Below the threshold nothing
//! changes: every match is ranked by BM25. [`FieldMatches`] and [`needs_exact_run`]
//! decide this; `Store::search` carries it out.

use crate::api::notes::SnippetPart;

/// The longest query taken, in characters.
pub const MAX_QUERY_CHARS: usize = 500;

/// A query, split into what the index can look up and what it cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    /// The words, lowercased, in the order typed.
    pub words: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchQueryError {
    #[error("the search is empty: give a word to look for")]
    Empty,
    #[error("the search is {0} characters long; the limit is {MAX_QUERY_CHARS}")]
    TooLong(usize),
    /// FTS5 reads a NUL as the end of the query ("unterminated string"), and no other
    /// control character is anything a person types: refused, not passed on.
    #[error("the search contains a control character ({0}); type only the words to look for")]
    ControlCharacter(String),
}

/// Words shorter than this have no trigram: matched with `LIKE`, not the index.
const TRIGRAM: usize = 3;

/// Matches of a word in one field that a search ranks: past this many, the newest.
/// A few hundred: ranking and joining them costs about a millisecond, and a page is at
/// most 500 notes (the API's largest `limit`).
pub const CANDIDATES: u32 = 500;

/// What a bounded look at one word in one field found: the newest matches, at most
/// one more than [`CANDIDATES`] (the one more says there are more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldMatches {
    /// Matches seen, at most `CANDIDATES + 1`.
    pub found: u64,
    /// The search key of the oldest match seen (keys grow with each note stored).
    pub oldest_key: i64,
}

impl FieldMatches {
    /// More matches than are ranked: the field's newest [`CANDIDATES`] stand for all.
    pub fn capped(&self) -> bool {
        self.found > u64::from(CANDIDATES)
    }

    /// How many notes have the word in this field: exact below the threshold; past it,
    /// estimated from how densely the newest matches lie among the `newest_key` notes
    /// (a word in half the notes has its newest 500 among the newest ~1,000).
    pub fn notes_with(&self, newest_key: i64) -> f64 {
        if !self.capped() {
            return self.found as f64;
        }
        let span = (newest_key - self.oldest_key + 1).max(1) as f64;
        (self.found as f64 * newest_key.max(1) as f64 / span).min(newest_key.max(1) as f64)
    }
}

/// After a bounded search found `found` notes for a page of `limit`: run it again over
/// every match when it came up short and something was left out (a field past the
/// threshold). A search of the trash or of one status whose notes are all older than
/// the newest matches is exact this way; so is a query whose words are rare.
pub fn needs_exact_run(found: usize, limit: usize, left_out: bool) -> bool {
    found < limit && left_out
}

impl SearchQuery {
    pub fn parse(text: &str) -> Result<SearchQuery, SearchQueryError> {
        let length = text.chars().count();
        if length > MAX_QUERY_CHARS {
            return Err(SearchQueryError::TooLong(length));
        }
        if let Some(control) = text.chars().find(|c| c.is_control() && !c.is_whitespace()) {
            return Err(SearchQueryError::ControlCharacter(format!(
                "U+{:04X}",
                u32::from(control)
            )));
        }
        let mut words: Vec<String> = Vec::new();
        for word in text.split_whitespace() {
            let word = word.to_lowercase();
            if !words.contains(&word) {
                words.push(word);
            }
        }
        if words.is_empty() {
            return Err(SearchQueryError::Empty);
        }
        Ok(SearchQuery { words })
    }

    /// The FTS5 query for the words the index can look up (each a quoted phrase, so
    /// nothing the user types is FTS5 syntax), or `None` when every word is short.
    pub fn index_expression(&self) -> Option<String> {
        let phrases = self.index_phrases();
        (!phrases.is_empty()).then(|| phrases.join(" "))
    }

    /// Each word the index can look up as an FTS5 query of its own (a quoted phrase):
    /// the index is split by field (titles, tags, bodies), and a note has a word when
    /// any of them has it, so each word is matched in each on its own.
    pub fn index_phrases(&self) -> Vec<String> {
        self.words
            .iter()
            .filter(|word| word.chars().count() >= TRIGRAM)
            .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
            .collect()
    }

    /// `LIKE` patterns for the words too short for the index (`\` escapes).
    pub fn short_word_patterns(&self) -> Vec<String> {
        self.words
            .iter()
            .filter(|word| word.chars().count() < TRIGRAM)
            .map(|word| {
                let escaped = word
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_");
                format!("%{escaped}%")
            })
            .collect()
    }
}

/// A snippet on one line, its matched words in `[brackets]` (`inkling search`).
pub fn bracketed(parts: &[SnippetPart]) -> String {
    parts
        .iter()
        .map(|part| {
            if part.matched {
                format!("[{}]", part.text)
            } else {
                part.text.clone()
            }
        })
        .collect()
}

/// Characters of context on each side of the first match.
const CONTEXT: usize = 60;

/// A short piece of `body` around its first match of `words`, every match in it
/// marked; the beginning of the body when the words matched only the title or tags.
pub fn snippet(body: &str, words: &[String]) -> Vec<SnippetPart> {
    let chars: Vec<char> = body.chars().collect();
    let lower: Vec<char> = chars.iter().map(|c| fold(*c)).collect();
    let needles: Vec<Vec<char>> = words
        .iter()
        .map(|w| w.chars().map(fold).collect())
        .collect();
    let match_at = |at: usize| -> Option<usize> {
        needles
            .iter()
            .filter(|needle| !needle.is_empty() && lower[at..].starts_with(needle))
            .map(Vec::len)
            .max()
    };
    let first = (0..chars.len()).find(|&at| match_at(at).is_some());
    let (start, end) = match first {
        Some(at) => (
            at.saturating_sub(CONTEXT),
            (at + CONTEXT * 2).min(chars.len()),
        ),
        None => (0, (CONTEXT * 2).min(chars.len())),
    };
    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut push = |text: String, matched: bool| match parts.last_mut() {
        Some(last) if last.matched == matched && !matched => last.text.push_str(&text),
        _ => parts.push(SnippetPart { text, matched }),
    };
    if start > 0 {
        push("…".into(), false);
    }
    let mut at = start;
    while at < end {
        match match_at(at) {
            Some(length) => {
                let stop = (at + length).min(chars.len());
                push(chars[at..stop].iter().collect(), true);
                at = stop;
            }
            None => {
                push(chars[at].to_string(), false);
                at += 1;
            }
        }
    }
    if end < chars.len() {
        push("…".into(), false);
    }
    // Line breaks inside a snippet read as one line.
    for part in &mut parts {
        part.text = part.text.replace(['\n', '\r', '\t'], " ");
    }
    parts
}

/// A character compared ignoring case (one-to-one, so positions stay).
fn fold(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

#[cfg(test)]
mod tests;
