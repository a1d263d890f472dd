//! Tags: what a tag may be, and how the tags of many notes stay one tidy vocabulary.
//!
//! A tag is lowercase text of one line, 1 to [`MAX_TAG_CHARS`] characters, with runs of
//! white space folded to one space. Two tags that differ only in case, spaces, `-` or
//! `_` ("Machine-Learning", "machine learning", "machine_learning") are the same tag:
//! they share a [`key`], and a tag that comes in (from the AI, or typed by the user) is
//! stored under the spelling already in use, the most used one when several are
//! ([`Vocabulary::tidy`]). Plain functions over plain data; the store applies them.
//!
//! - [`guards`]: what of a model's tags is kept (no schema word, no copy of the
//!   prompt the note does not support), and which tags in use a prompt may offer;
//! - [`neighbours`]: which tags of a note's nearest neighbours its prompt carries.

pub mod guards;
pub mod neighbours;

use std::collections::HashMap;

/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 32;
/// The most tags a user may set on one note (the AI gives at most five).
pub const MAX_TAGS_SET_BY_USER: usize = 20;
/// How many of the most used tags the enrichment prompt carries.
pub const VOCABULARY_IN_PROMPT: usize = 50;

/// Why a tag was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    #[error("a tag cannot be empty")]
    Empty,
    #[error("the tag \"{0}\" is longer than {MAX_TAG_CHARS} characters")]
    TooLong(String),
    #[error("a tag cannot hold a comma, a line break or a control character (got {0:?})")]
    BadCharacter(String),
}

/// `text` as a tag: trimmed, lowercased, inner white space folded to one space.
pub fn normalize(text: &str) -> Result<String, TagError> {
    // A tab is folded like a space; any other control character (a line break
    // included) has no place in a one-line name.
    if text
        .chars()
        .any(|c| c == ',' || (c.is_control() && c != '\t'))
    {
        return Err(TagError::BadCharacter(text.to_string()));
    }
    let tag = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    if tag.is_empty() {
        return Err(TagError::Empty);
    }
    if tag.chars().count() > MAX_TAG_CHARS {
        return Err(TagError::TooLong(tag));
    }
    Ok(tag)
}

/// What makes two tags the same: lowercase, without white space, `-` or `_`.
pub fn key(tag: &str) -> String {
    tag.chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The tags in use, by key, each under its most used spelling.
#[derive(Debug, Default)]
pub struct Vocabulary {
    by_key: HashMap<String, String>,
}

impl Vocabulary {
    /// From the tags in use, most used first: where two share a key, the first wins.
    pub fn new(most_used_first: impl IntoIterator<Item = String>) -> Self {
        let mut by_key = HashMap::new();
        for tag in most_used_first {
            by_key.entry(key(&tag)).or_insert(tag);
        }
        Vocabulary { by_key }
    }

    /// `tags` in their spelling in use (a new tag stays as it is), duplicates by key
    /// merged, in their first order. Tags with nothing but `-`, `_` and spaces go.
    pub fn tidy(&self, tags: Vec<String>) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let mut tidy = Vec::new();
        for tag in tags {
            let tag_key = key(&tag);
            if tag_key.is_empty() || !seen.insert(tag_key.clone()) {
                continue;
            }
            tidy.push(self.by_key.get(&tag_key).cloned().unwrap_or(tag));
        }
        tidy
    }
}

#[cfg(test)]
mod tests;
