//! An answer's citations, checked as it streams ([`Citations`]): `[n]` stands when n
//! is one of the notes shown, and is taken out (and said) otherwise; and whether the
//! answer only said the question back ([`only_repeats`]) or its prompt
//! ([`repeats_the_prompt`]), which counts as no answer.
//! Plain functions over text; `crate::ai::ask::events_of` turns them into the wire's
//! events.

use crate::tags::guards::{is_stop_word, words};

/// A citation group is at most this long (`[1, 2, 3, 4]`, `[Note 12]`): an open
/// bracket with more than this after it is plain text.
const LONGEST_GROUP: usize = 24;

/// What a piece of the answer became: the text to show, and the citations taken out
/// of it that were not said before.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filtered {
    pub text: String,
    pub removed: Vec<String>,
}

/// Words an answer may add to the question and still say nothing: what a small model
/// wraps an echo in ("Question: … Answer: …").
const ECHO_FILLERS: &[&str] = &["question", "answer", "q", "a", "notes", "note"];

/// Whether `answer` says nothing but `question` back: every word of it (its citations
/// and punctuation aside, and words too common to say anything) is a word of the
/// question or a filler, or it has no word at all. A small model given a question it
/// cannot answer from the notes often writes the question again; streamed, that reads
/// as an answer.
pub fn only_repeats(question: &str, answer: &str) -> bool {
    let asked = words(question);
    words(answer)
        .iter()
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !is_stop_word(w) && !ECHO_FILLERS.contains(&w.as_str()))
        .all(|w| asked.contains(w))
}

/// Whether `answer` repeats the prompt it was given rather than answering it: the
/// fence a note comes in (`<note n="1">`; one in a note's own text is defused before
/// the model sees it, so one in the answer is the prompt's), or the instructions'
/// opening. A base model continues its prompt instead of answering, and
/// the notes' numbers it copies would read as citations.
pub fn repeats_the_prompt(answer: &str) -> bool {
    let answer = answer.to_lowercase();
    let opening = super::ask::ASK_SYSTEM_PROMPT
        .split(',')
        .next()
        .unwrap_or_default()
        .to_lowercase();
    answer.contains("<note n=\"") || answer.contains(&opening)
}

/// The answer's citations, checked as the answer streams: `[n]` (also `[1, 3]`,
/// `[Note 2]`) stands when n is one of the notes shown (1 to `notes`), and is taken out
/// otherwise, each distinct one said once. A group that may still be a citation at the
/// end of a piece is held back until the next piece says.
#[derive(Debug, Clone)]
pub struct Citations {
    notes: usize,
    held: String,
    said: Vec<String>,
    /// The question, when it is known ([`Citations::asked`]), and the answer so far:
    /// what [`only_repeats`] compares at the end.
    question: Option<String>,
    answer: String,
}

impl Citations {
    pub fn new(notes: usize) -> Self {
        Citations {
            notes,
            held: String::new(),
            said: Vec::new(),
            question: None,
            answer: String::new(),
        }
    }

    /// The answer is to `question`: at its end, one that only says it back is no answer.
    pub fn asked(mut self, question: &str) -> Self {
        self.question = Some(question.to_string());
        self
    }

    /// The model was given only the first `notes` of those shown: a citation of any
    /// other can only come from a note's text or the model's invention.
    pub fn given(&mut self, notes: usize) {
        self.notes = self.notes.min(notes);
    }

    /// The next piece of the answer.
    pub fn push(&mut self, piece: &str) -> Filtered {
        self.answer.push_str(piece);
        let mut text = std::mem::take(&mut self.held);
        text.push_str(piece);
        self.filter(&text, false)
    }

    /// The answer ended: what was held back goes out as it is.
    pub fn finish(&mut self) -> Filtered {
        let text = std::mem::take(&mut self.held);
        self.filter(&text, true)
    }

    /// Whether the answer so far says nothing of its own: only the question back
    /// ([`only_repeats`]; never without a question), or its prompt
    /// ([`repeats_the_prompt`]).
    pub fn says_nothing_of_its_own(&self) -> bool {
        repeats_the_prompt(&self.answer)
            || self
                .question
                .as_deref()
                .is_some_and(|question| only_repeats(question, &self.answer))
    }

    fn filter(&mut self, text: &str, at_end: bool) -> Filtered {
        let mut out = Filtered::default();
        let mut rest = text;
        while let Some(open) = rest.find('[') {
            out.text.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after.find(']') {
                Some(close) if close <= LONGEST_GROUP && !after[..close].contains('[') => {
                    rest = &after[close + 1..];
                    match citation_numbers(&after[..close]) {
                        Some(numbers) => self.cite(&numbers, &mut out),
                        None => {
                            out.text.push('[');
                            out.text.push_str(&after[..close]);
                            out.text.push(']');
                        }
                    }
                }
                None if !at_end && after.len() <= LONGEST_GROUP && may_become_citation(after) => {
                    // The space before it waits too: a citation taken out takes it.
                    let kept = out.text.trim_end_matches(' ').len();
                    self.held = out.text.split_off(kept) + &rest[open..];
                    return out;
                }
                _ => {
                    out.text.push('[');
                    rest = after;
                }
            }
        }
        out.text.push_str(rest);
        out
    }

    /// Writes the group's citations that name a note shown, and takes out the others.
    fn cite(&mut self, numbers: &[usize], out: &mut Filtered) {
        let (kept, invented): (Vec<usize>, Vec<usize>) = numbers
            .iter()
            .partition(|&&n| (1..=self.notes).contains(&n));
        for n in invented {
            let citation = format!("[{n}]");
            if !self.said.contains(&citation) {
                self.said.push(citation.clone());
                out.removed.push(citation);
            }
        }
        if kept.is_empty() {
            // "water them [7]." reads "water them." (a space before a group that may
            // be a citation is held back with it, so it is here to take).
            if out.text.ends_with(' ') {
                out.text.pop();
            }
            return;
        }
        let kept: Vec<String> = kept.iter().map(|n| format!("[{n}]")).collect();
        out.text.push_str(&kept.concat());
    }
}

/// The numbers of a citation group's inside (`1`, `1, 3`, `Note 2`, `notes 1 and 2`),
/// or `None` when it is not one.
fn citation_numbers(inside: &str) -> Option<Vec<usize>> {
    let mut numbers = Vec::new();
    for part in inside.split([',', ';', ' ']) {
        let part = part.trim();
        let lower = part.to_lowercase();
        if part.is_empty() || matches!(lower.as_str(), "note" | "notes" | "and" | "&") {
            continue;
        }
        numbers.push(part.parse::<usize>().ok()?);
    }
    (!numbers.is_empty()).then_some(numbers)
}

/// Whether an unclosed group's beginning may still turn out a citation.
fn may_become_citation(after: &str) -> bool {
    let lower = after.to_lowercase();
    lower
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ',' | ';' | ' ' | '&') || "notesand".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(notes: usize, pieces: &[&str]) -> (String, Vec<String>) {
        let mut citations = Citations::new(notes);
        let mut text = String::new();
        let mut removed = Vec::new();
        for piece in pieces {
            let out = citations.push(piece);
            text.push_str(&out.text);
            removed.extend(out.removed);
        }
        let out = citations.finish();
        text.push_str(&out.text);
        removed.extend(out.removed);
        (text, removed)
    }

    #[test]
    fn an_answer_that_only_says_the_question_back_repeats_it() {
        let question = "When do I water the tomato plants?";
        for echo in [
            "When do I water the tomato plants?",
            "Question: when do I water the tomato plants? Answer: you water the tomato plants [1].",
            "",
            " [1] ",
        ] {
            assert!(only_repeats(question, echo), "{echo:?}");
        }
        for answer in [
            "Every Sunday morning, before the heat [1].",
            "Sunday [1].",
            "Yes.",
        ] {
            assert!(!only_repeats(question, answer), "{answer:?}");
        }
    }

    #[test]
    fn an_answer_that_repeats_its_prompt_is_no_answer() {
        // What Gemma 3 270M, a base model, wrote for three questions of the quality
        // benchmark: its prompt again, the notes' fences and numbers with it.
        for echo in [
            "You answer the person's question from their own notes, given below, each between",
            "<note n=\"6\">\nThe kitchen is a small shed.\n</note>\n\nQuestion: Which tiles?",
            "Question: Which tiles did we choose?\n</note>\n",
        ] {
            let said_back =
                repeats_the_prompt(echo) || only_repeats("Which tiles did we choose?", echo);
            assert!(said_back, "{echo:?}");
            let mut citations = Citations::new(7).asked("Which tiles did we choose?");
            citations.push(echo);
            assert!(citations.says_nothing_of_its_own(), "{echo:?}");
        }
        for answer in [
            "The white metro ones [2].",
            "Your note says: answer the door after 6 [1].",
            "A ‹note› written in a note is the person's.",
            // A question about HTML's own <note> element may be answered with it.
            "Write it as <note>Remember</note> [1].",
        ] {
            assert!(!repeats_the_prompt(answer), "{answer:?}");
        }
    }

    #[test]
    fn citations_of_the_notes_shown_stand_and_any_other_is_taken_out_and_said_once() {
        let (text, removed) = streamed(2, &["Water them [1] and feed [2]. Also [7], and [7]."]);
        assert_eq!(text, "Water them [1] and feed [2]. Also, and.");
        assert_eq!(removed, ["[7]"]);
        let (text, removed) = streamed(3, &["Both [1, 3] and [Note 2]; not [0] nor [2, 9]."]);
        assert_eq!(text, "Both [1][3] and [2]; not nor [2].");
        assert_eq!(removed, ["[0]", "[9]"]);
    }

    #[test]
    fn a_citation_split_across_pieces_is_held_until_it_closes() {
        let (text, removed) = streamed(2, &["See [", "1", "] and [1", "2] end"]);
        assert_eq!(text, "See [1] and end");
        assert_eq!(removed, ["[12]"]);
        // What is held never goes out twice, and nothing is lost.
        let mut citations = Citations::new(1);
        assert_eq!(citations.push("a [").text, "a");
        assert_eq!(citations.push("1").text, "");
        assert_eq!(citations.push("]b").text, " [1]b");
        assert_eq!(streamed(1, &["salt [", "7]."]).0, "salt.");
    }

    #[test]
    fn brackets_that_are_not_citations_are_text() {
        let (text, removed) = streamed(1, &["a [link](x) and [x] and [ 12 ok"]);
        assert_eq!(text, "a [link](x) and [x] and [ 12 ok");
        assert!(removed.is_empty());
        assert_eq!(
            streamed(1, &["[a [9] b"]),
            ("[a b".to_string(), vec!["[9]".to_string()])
        );
        // An unclosed group at the end goes out as it is.
        assert_eq!(streamed(1, &["end [1"]).0, "end [1");
        // A long bracketed text is not held back.
        let mut citations = Citations::new(1);
        let long = format!("[{}", "1 ".repeat(20));
        assert_eq!(citations.push(&long).text, long);
    }
}
