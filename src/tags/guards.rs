//! Guards on the tags a model answers, that hold whatever the model (issue #37): a
//! small model copies what its prompt shows it. Seen on real days: Gemma 3 270M gave
//! every note the first note's tags (fed back as its neighbours' tags) and the schema's
//! own field names (`title`, `summary`); SmolLM2-135M-Instruct gave 7 of 8 unrelated
//! notes the tags in use listed in its prompt (`kitchen`, `leaking`, `plumber`).
//!
//! - [`SCHEMA_WORDS`]: the answer's field names and format words are never a tag, and
//!   neither is a word of the prompt's fixed instructions (`personal`, `notes`, `topic`):
//!   a model that answers one is reading its instructions back, whatever the note says;
//! - [`supported`]: a tag is supported by a note's text when one of its words is one of
//!   the note's (a shared stem: `leak` and `leaking`, `plumber` and `plumbing`);
//! - [`fitting`]: the tags a prompt offers are only those the note supports, so the
//!   list that keeps the spelling consistent is never an answer ready to copy;
//! - [`guard`]: a tag that is only a number the note does not say (`1`, `1234567890`,
//!   `10%`: SmolLM2's for notes without a number) says nothing of the note and goes;
//!   a tag whose words all come from the prompt (its instructions, the tags
//!   it offered) and that the note does not support is dropped; a word the model brought
//!   itself stays (`home` for a note about a plumber), as the prompt did not put it there.
//! - [`title_told_by`]: a title with no word of the note is no title of it (SmolLM2 titled
//!   "Return the two overdue library books" "The Lost City of Eldrador"); the
//!   enrichment then titles the note with its first line, as it does a note too short
//!   to title.
//!
//! Plain functions over text; the enrichment applies them (`crate::ai::enrichment`).

use std::collections::HashSet;

use super::key;

/// The answer's own field names and the words of its format: a model that fills the
/// tag list with them is reading the schema back, never the note.
pub const SCHEMA_WORDS: &[&str] = &[
    "title",
    "titles",
    "tag",
    "tags",
    "summary",
    "summaries",
    "json",
    "schema",
];

/// Words too common to say what a note is about: they support no tag.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "for", "from", "has", "have", "he",
    "her", "his", "i", "in", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our",
    "she", "so", "than", "that", "the", "their", "them", "then", "there", "they", "this", "to",
    "up", "us", "was", "we", "were", "will", "with", "you", "your",
];

/// Two words are one when the shorter begins the longer and has at least this many
/// characters (`tax` and `taxes`, `leak` and `leaking`)...
const LEAST_STEM_CHARS: usize = 3;
/// ...or when they share a beginning this long (`plumber` and `plumbing`).
const SHARED_STEM_CHARS: usize = 5;

/// Why a tag of the answer was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// One of [`SCHEMA_WORDS`].
    SchemaWord,
    /// A word of the prompt's fixed instructions.
    InstructionWord,
    /// Only a number, and not one of the note's.
    NumberNotInNote,
    /// Its words all come from the prompt, and the note's text does not support it.
    Copied,
}

/// The answer's tags after the guards: those kept, in order, and those dropped with why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guarded {
    pub kept: Vec<String>,
    pub dropped: Vec<(String, Dropped)>,
}

/// The words of `text`: its runs of letters and digits, lowercased.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `word` (lowercased) is too common to say what a text is about.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// Whether `word` can say what a note is about: not a stop word, and long enough (two
/// characters of a script without ASCII letters, such as a Hangul word, say as much).
fn substantial(word: &str) -> bool {
    let chars = word.chars().count();
    let least = if word.is_ascii() { LEAST_STEM_CHARS } else { 2 };
    chars >= least && !STOP_WORDS.contains(&word)
}

/// Whether two lowercased words are one word (see the stem lengths above).
fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    let least = if a.is_ascii() && b.is_ascii() {
        LEAST_STEM_CHARS
    } else {
        2
    };
    (shared == shorter && shorter >= least) || shared >= SHARED_STEM_CHARS
}

/// The words of `tag` that say what it is about: its substantial words, or all of them
/// when it has none (`ai`, `c`, `3d` are tags too; `the` is one only if the note says it).
fn telling_words(tag: &str) -> Vec<String> {
    let all = words(tag);
    let substantial: Vec<String> = all.iter().filter(|w| substantial(w)).cloned().collect();
    if substantial.is_empty() {
        all
    } else {
        substantial
    }
}

/// Whether `tag` is supported by a text of these `words`: one of the tag's telling
/// words is one of them.
fn supported_by(tag: &str, text_words: &[String]) -> bool {
    telling_words(tag)
        .iter()
        .any(|w| text_words.iter().any(|t| same_word(w, t)))
}

/// Whether `note`'s own text supports `tag`.
pub fn supported(tag: &str, note: &str) -> bool {
    supported_by(tag, &words(note))
}

/// The `tags` that `note`'s text supports, in their order: what a prompt may offer.
pub fn fitting(tags: &[String], note: &str) -> Vec<String> {
    let note_words = words(note);
    tags.iter()
        .filter(|tag| supported_by(tag, &note_words))
        .cloned()
        .collect()
}

/// Whether `title` says something of `note`: one of its substantial words is the note's
/// (by stem, as tags are), or it has no substantial word to judge by.
pub fn title_told_by(title: &str, note: &str) -> bool {
    let note_words = words(note);
    let title_words: Vec<String> = words(title)
        .into_iter()
        .filter(|w| substantial(w))
        .collect();
    title_words.is_empty()
        || title_words
            .iter()
            .any(|w| note_words.iter().any(|n| same_word(w, n)))
}

/// Whether `tag` is one of [`SCHEMA_WORDS`] (by its key: `Tags`, `"title"`).
pub fn is_schema_word(tag: &str) -> bool {
    let tag_key = key(tag);
    SCHEMA_WORDS.iter().any(|word| *word == tag_key)
}

/// The answer's `tags` for `note`, given `prompt`: the text the model was given besides
/// the note (its instructions and the tags it offered), and `instructions`: the fixed
/// words of those instructions, the same for every note. A schema word goes, and so
/// does a tag that is one word of the instructions (`notes` even for "meeting notes":
/// the note's other words say its topic better than the prompt's), and one that is only
/// numbers the note does not say; a tag whose telling
/// words all appear in the prompt goes unless the note supports it; every other tag
/// stays (one with no word at all, an emoji, too: the prompt has none).
pub fn guard(tags: Vec<String>, note: &str, prompt: &str, instructions: &str) -> Guarded {
    let note_words = words(note);
    let prompt_words: HashSet<String> = words(prompt).into_iter().collect();
    let instruction_words: HashSet<String> = words(instructions).into_iter().collect();
    let from_prompt = |word: &String| prompt_words.iter().any(|p| same_word(word, p));
    let mut guarded = Guarded::default();
    for tag in tags {
        if is_schema_word(&tag) {
            guarded.dropped.push((tag, Dropped::SchemaWord));
            continue;
        }
        if instruction_words.contains(&key(&tag)) {
            guarded.dropped.push((tag, Dropped::InstructionWord));
            continue;
        }
        let telling = telling_words(&tag);
        let a_number = !telling.is_empty()
            && telling
                .iter()
                .all(|word| word.chars().all(|c| c.is_numeric()));
        if a_number && !telling.iter().all(|word| note_words.contains(word)) {
            guarded.dropped.push((tag, Dropped::NumberNotInNote));
            continue;
        }
        let copied = !telling.is_empty() && telling.iter().all(from_prompt);
        if copied && !supported_by(&tag, &note_words) {
            guarded.dropped.push((tag, Dropped::Copied));
        } else {
            guarded.kept.push(tag);
        }
    }
    guarded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(tags: &[&str]) -> Vec<String> {
        tags.iter().map(|t| t.to_string()).collect()
    }

    const INSTRUCTIONS: &str = "You file short personal notes. Answer with \"title\", \
        \"tags\" and \"summary\". Tags already in use:";
    const PROMPT: &str = "You file short personal notes. Answer with \"title\", \"tags\" \
        and \"summary\". Tags already in use: [\"kitchen\",\"leaking\",\"plumber\",\
        \"water_supply_to_the_land\"].";

    fn guarding(tags: &[&str], note: &str) -> Guarded {
        guard(strings(tags), note, PROMPT, INSTRUCTIONS)
    }

    #[test]
    fn a_schema_word_is_never_a_tag_even_when_the_note_says_it() {
        let guarded = guarding(
            &["title", "Tags", "summary", "novel"],
            "Title ideas for my novel, and a summary of chapter one",
        );
        assert_eq!(guarded.kept, ["novel"]);
        assert_eq!(
            guarded.dropped,
            [
                ("title".to_string(), Dropped::SchemaWord),
                ("Tags".to_string(), Dropped::SchemaWord),
                ("summary".to_string(), Dropped::SchemaWord),
            ]
        );
    }

    #[test]
    fn tags_copied_from_the_prompt_that_the_note_does_not_support_are_dropped() {
        // SmolLM2-135M-Instruct's answer for a garden note, the tags in use in its prompt.
        let guarded = guarding(
            &[
                "kitchen",
                "leaking",
                "plumber",
                "water_supply_to_the_land",
                "mulch",
            ],
            "The garden needs mulch before the first frost",
        );
        assert_eq!(guarded.kept, ["mulch"], "{guarded:?}");
        assert!(guarded
            .dropped
            .iter()
            .all(|(_, why)| *why == Dropped::Copied));
        // Instruction words together are copied as much as a tag in use.
        let instructions = guarding(&["short personal"], "Buy stamps");
        assert_eq!(
            instructions.dropped,
            [("short personal".to_string(), Dropped::Copied)]
        );
    }

    #[test]
    fn a_word_of_the_instructions_is_never_a_tag_even_when_the_note_says_it() {
        let guarded = guarding(
            &["notes", "Personal", "meeting", "short_notes"],
            "Meeting notes: personal goals, short and long",
        );
        assert_eq!(guarded.kept, ["meeting", "short_notes"], "{guarded:?}");
        assert_eq!(
            guarded.dropped,
            [
                ("notes".to_string(), Dropped::InstructionWord),
                ("Personal".to_string(), Dropped::InstructionWord),
            ]
        );
    }

    #[test]
    fn a_title_with_no_word_of_the_note_is_not_its_title() {
        let note = "Return the two overdue library books and pay the fine";
        assert!(!title_told_by("The Lost City of Eldrador", note));
        assert!(title_told_by("Overdue library books", note));
        assert!(title_told_by("Book return", note), "a stem of the note's");
        assert!(title_told_by("🍅", note), "nothing to judge by");
        assert!(title_told_by(
            "치과 예약",
            "내일 오전에 치과에 예약 확인하기"
        ));
    }

    #[test]
    fn a_number_the_note_does_not_say_is_no_tag_and_one_it_says_stays() {
        // SmolLM2-135M-Instruct's tags for notes without a number in them.
        let guarded = guarding(
            &["1", "1234567890", "10%", "export", "2024"],
            "Bug: the export button does nothing in the 2024 build",
        );
        assert_eq!(guarded.kept, ["export", "2024"], "{guarded:?}");
        assert!(guarded
            .dropped
            .iter()
            .all(|(_, why)| *why == Dropped::NumberNotInNote));
        assert_eq!(
            guarding(&["10% cheaper"], "Cheaper plans").kept,
            ["10% cheaper"]
        );
    }

    #[test]
    fn a_tag_from_the_prompt_that_the_note_supports_stays_and_so_does_a_new_word() {
        let guarded = guarding(
            &["kitchen", "leak", "plumbing", "home"],
            "Call the plumber about the leaking kitchen tap",
        );
        assert_eq!(guarded.kept, ["kitchen", "leak", "plumbing", "home"]);
        // Korean: a word with its particle is the same word.
        assert!(supported("치과", "내일 오전에 치과에 예약 확인하기"));
    }

    #[test]
    fn the_tags_a_prompt_offers_are_only_those_the_note_supports() {
        let in_use = strings(&["kitchen", "taxes", "garden"]);
        assert_eq!(
            fitting(&in_use, "File the tax return before April"),
            ["taxes"]
        );
        assert!(fitting(&in_use, "Sourdough").is_empty());
    }

    #[test]
    fn words_are_one_by_a_shared_stem_not_by_a_short_accident() {
        assert!(same_word("tax", "taxes"));
        assert!(same_word("plumber", "plumbing"));
        assert!(same_word("garden", "gardening"));
        assert!(!same_word("an", "ant"), "too short to be a stem");
        assert!(!same_word("tomato", "tomb"));
        assert!(
            supported("the", "the garden"),
            "a tag of stop words, said as it is"
        );
        assert!(
            !supported("the garden", "the kitchen"),
            "the stop word says nothing"
        );
        let short = guarding(&["ai", "and", "🍅"], "Read about models");
        assert_eq!(short.kept, ["ai", "🍅"], "{short:?}");
    }
}
