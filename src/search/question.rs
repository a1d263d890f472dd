//! Which words of a question are searched for its notes: punctuation off, common
//! words and Korean particles cut, each word once ([`retrieval_words`]); how many of
//! them, and how many notes each finds ([`WORDS_SEARCHED`], [`HITS_PER_WORD`]). A
//! question's words rarely all stand in one note, so each is searched alone and the
//! notes found are ranked together (`fusion::fuse_counted`).

/// A question's words searched, at most: a question, not a document.
pub const WORDS_SEARCHED: usize = 8;

/// How many notes each word finds, at most; as many are found by the question's
/// meaning.
pub const HITS_PER_WORD: u32 = 20;

/// Words too common to find anything by (English; Korean particles are cut off the
/// words instead, [`without_particle`]).
const COMMON_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "was",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "why",
    "how",
    "did",
    "does",
    "do",
    "have",
    "has",
    "had",
    "about",
    "that",
    "this",
    "these",
    "those",
    "with",
    "from",
    "into",
    "any",
    "all",
    "can",
    "could",
    "would",
    "should",
    "will",
    "you",
    "your",
    "my",
    "mine",
    "our",
    "notes",
    "note",
    "say",
    "said",
    "tell",
    "there",
    "their",
    "them",
    "they",
    "been",
    "being",
    "not",
    "but",
    "its",
    "it's",
    "it",
    "is",
    "of",
    "to",
    "in",
    "on",
    "at",
    "an",
    "a",
    "or",
    "me",
    "we",
    "i",
    "write",
    "wrote",
    "written",
    "anything",
    "something",
    "know",
];

/// Korean particles a word often ends with (the search matches inside words, so the
/// stem finds every form).
const PARTICLES: &[&str] = &[
    "에서", "에게", "으로", "은", "는", "이", "가", "을", "를", "에", "의", "도", "와", "과", "로",
];

fn without_particle(word: &str) -> &str {
    for particle in PARTICLES {
        if let Some(stem) = word.strip_suffix(particle) {
            if stem.chars().count() >= 2 {
                return stem;
            }
        }
    }
    word
}

/// The words of a question worth a search of their own: punctuation off, lowercased,
/// common words and one-letter words out, each once, in the order asked. A question of
/// common words only keeps its words (something must be looked for).
pub fn retrieval_words(question: &str) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for raw in question.split(|c: char| c.is_whitespace() || ",.;:!?\"()[]{}".contains(c)) {
        let word = raw
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let word = without_particle(&word).to_string();
        if !word.is_empty() && !all.contains(&word) {
            all.push(word);
        }
    }
    let kept: Vec<String> = all
        .iter()
        .filter(|w| w.chars().count() >= 2 && !COMMON_WORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    if kept.is_empty() {
        all
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_searched_leave_out_punctuation_common_words_and_korean_particles() {
        assert_eq!(
            retrieval_words("What did I write about the Tomato plants?"),
            ["tomato", "plants"]
        );
        assert_eq!(
            retrieval_words("토마토를 언제 심었지?"),
            ["토마토", "언제", "심었지"]
        );
        assert_eq!(retrieval_words("what is it?"), ["what", "is", "it"]);
        assert_eq!(retrieval_words("tomato tomato, TOMATO"), ["tomato"]);
    }
}
