//! Asking the notes a question (docs/DESIGN.md, "Ask your notes"), as plain functions:
//!
//! - the prompt: the notes numbered [1], [2], … in the order shown, cut to what fits
//!   the model's context beside the question and the answer's room ([`ask_prompt`]);
//! - the answer's citations as it streams: a citation of a note that was not shown is
//!   taken out, and said ([`Citations`]);
//! - what reaches the person: the worker's [`AskUpdate`]s turned into the wire's
//!   events, citations checked ([`events_of`]).
//!
//! Which notes are asked (the question's words and meaning) is retrieval's
//! (`crate::search`). Nothing here does I/O; the worker's core (`core/ask.rs`) and the
//! use case (`crate::inbox::ask`) carry it out.

use std::time::Duration;

use super::enrichment::{estimate_tokens, fit_note, TEMPLATE_TOKENS};
use super::{ChatMessage, Role};
use crate::api::ask::{AskEvent, NoAnswer};
use crate::configuration::Locale;
use crate::domain::Note;
use crate::words::words;

/// How many notes an answer is made from, at most: a small model reads five short
/// notes well, and the person reads five cards at a glance.
pub const ASK_NOTES: usize = 5;

/// The answer's room, in tokens: a few paragraphs.
pub const ASK_OUTPUT_TOKENS: u32 = 512;

/// Below this many tokens a note's share is a sliver that says nothing: fewer notes
/// are sent whole instead of all of them cut to nothing.
const LEAST_SHARE_TOKENS: usize = 48;

/// Between two pieces of a streamed answer, at most: a model that writes nothing for
/// this long has stalled (a CPU writes a few tokens a second).
pub const ASK_STALL: Duration = Duration::from_secs(60);

/// The system prompt of an answer.
pub const ASK_SYSTEM_PROMPT: &str = "You answer the person's question from their own \
notes, given below, numbered. Use only what the notes say. After each statement, cite \
the note it comes from by its number in square brackets, like [1] or [2]; never cite a \
number that is not given. If the notes do not answer the question, say so in one \
sentence. Answer briefly, in the language of the question.";

/// One streamed chat, as the worker's core planned it: plain data any provider
/// carries out as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatPlan {
    pub messages: Vec<ChatMessage>,
    /// The context the call runs in (Ollama's `num_ctx`; the server's own for the
    /// others, which the prompt was cut to fit).
    pub context_tokens: u32,
    pub output_tokens: u32,
    /// How long the first piece may take (the model reads the prompt first).
    pub first_piece: Duration,
    /// How long any later piece may take.
    pub stall: Duration,
}

/// What the worker sends down an ask's channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskUpdate {
    /// The next piece of the model's answer, as it wrote it.
    Piece(String),
    /// The end: the last update.
    End(AskEnd),
}

/// How an ask ended, as the worker decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskEnd {
    Answered,
    /// No (complete) answer: why, and the technical detail behind it (for the log).
    NotAnswered {
        reason: NoAnswer,
        detail: String,
    },
    /// The person went away: nothing more is sent.
    HungUp,
}

/// The wire's events for one update of the worker: the answer's pieces with their
/// citations checked (`citations` carries what a piece left open to the next), and at
/// the end what was held back, then `done` with `why` in the person's words.
pub fn events_of(
    update: AskUpdate,
    citations: &mut Citations,
    why: impl Fn(NoAnswer) -> String,
) -> Vec<AskEvent> {
    let (filtered, end) = match update {
        AskUpdate::Piece(piece) => (citations.push(&piece), None),
        AskUpdate::End(end) => (citations.finish(), Some(end)),
    };
    let mut events = Vec::new();
    if !filtered.text.is_empty() {
        events.push(AskEvent::Answer {
            text: filtered.text,
        });
    }
    events.extend(
        filtered
            .removed
            .into_iter()
            .map(|citation| AskEvent::Removed { citation }),
    );
    match end {
        None | Some(AskEnd::HungUp) => {}
        Some(AskEnd::Answered) => events.push(AskEvent::answered()),
        Some(AskEnd::NotAnswered { reason, .. }) => {
            events.push(AskEvent::unanswered(reason, why(reason)))
        }
    }
    events
}

/// Why there is no (complete) answer, in one plain line of the person's language.
pub fn why_not_answered(reason: NoAnswer, locale: Locale) -> &'static str {
    let words = words(locale);
    match reason {
        NoAnswer::NoNotes => words.ask_no_notes,
        NoAnswer::ModelDown => words.ask_model_down,
        NoAnswer::ModelMissing => words.ask_model_missing,
        NoAnswer::ModelUnavailable => words.ask_model_unavailable,
        NoAnswer::Failed => words.ask_failed,
        NoAnswer::Replaced => words.ask_replaced,
    }
}

/// An answer's prompt, built once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskPrompt {
    pub messages: Vec<ChatMessage>,
    /// How many of the notes the model reads (the first ones: the best matches).
    pub notes_read: usize,
    /// Some note was cut to fit.
    pub cut: bool,
    pub estimated_tokens: usize,
}

/// A note as the model reads it: its title (the person's or the AI's) and its body.
fn note_text(note: &Note) -> String {
    match note.title.as_deref().filter(|t| !t.trim().is_empty()) {
        Some(title) => format!("{title}\n{}", note.body),
        None => note.body.clone(),
    }
}

/// The prompt of an answer: the question, and the notes in the order shown, numbered
/// from 1, each cut (its beginning kept, at a line break or a space) so that all of
/// them fit a context of `context_tokens` beside the system prompt, the question and
/// the answer's room. The room is shared out evenly, a short note giving what it does
/// not use to the longer ones; when a share would be a sliver, the last (weakest)
/// notes are left out instead.
pub fn ask_prompt(question: &str, notes: &[Note], context_tokens: u32) -> AskPrompt {
    let framing = "Notes:\n\nQuestion: ";
    let around = estimate_tokens(ASK_SYSTEM_PROMPT)
        + estimate_tokens(question)
        + estimate_tokens(framing)
        + 2 * TEMPLATE_TOKENS;
    let room = (context_tokens as usize)
        .saturating_sub(around)
        .saturating_sub(ASK_OUTPUT_TOKENS as usize);
    let texts: Vec<String> = notes.iter().map(note_text).collect();
    // Each note's number and line breaks cost a few tokens of their own.
    let cost = |text: &str| estimate_tokens(text) + 4;
    let mut count = texts.len();
    while count > 1 && room / count < LEAST_SHARE_TOKENS {
        count -= 1;
    }
    let shares = shares(
        &texts[..count].iter().map(|t| cost(t)).collect::<Vec<_>>(),
        room,
    );
    let mut cut = false;
    let mut body = String::from("Notes:\n");
    for (index, (text, share)) in texts.iter().zip(shares).enumerate().take(count) {
        // `fit_note` keeps what fits a context beside the other parts; here the whole
        // context given to it is the note's share.
        let (head, read) = fit_note(text, (share + TEMPLATE_TOKENS) as u32, 4, 0);
        cut |= read.is_some();
        body.push_str(&format!("\n[{}] {}\n", index + 1, head));
    }
    body.push_str(&format!("\nQuestion: {question}"));
    let estimated_tokens = estimate_tokens(ASK_SYSTEM_PROMPT) + estimate_tokens(&body);
    AskPrompt {
        messages: vec![
            ChatMessage {
                role: Role::System,
                content: ASK_SYSTEM_PROMPT.to_string(),
            },
            ChatMessage {
                role: Role::User,
                content: body,
            },
        ],
        notes_read: count,
        cut,
        estimated_tokens,
    }
}

/// `room` shared among notes costing `costs`: evenly, each taking at most what it
/// costs, what a note leaves going to the others (water filling).
fn shares(costs: &[usize], room: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by_key(|&i| costs[i]);
    let mut shares = vec![0; costs.len()];
    let mut left = room;
    for (taken, &i) in order.iter().enumerate() {
        let even = left / (costs.len() - taken);
        shares[i] = costs[i].min(even);
        left -= shares[i];
    }
    shares
}

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

/// The answer's citations, checked as the answer streams: `[n]` (also `[1, 3]`,
/// `[Note 2]`) stands when n is one of the notes shown (1 to `notes`), and is taken out
/// otherwise, each distinct one said once. A group that may still be a citation at the
/// end of a piece is held back until the next piece says.
#[derive(Debug, Clone)]
pub struct Citations {
    notes: usize,
    held: String,
    said: Vec<String>,
}

impl Citations {
    pub fn new(notes: usize) -> Self {
        Citations {
            notes,
            held: String::new(),
            said: Vec::new(),
        }
    }

    /// The next piece of the answer.
    pub fn push(&mut self, piece: &str) -> Filtered {
        let mut text = std::mem::take(&mut self.held);
        text.push_str(piece);
        self.filter(&text, false)
    }

    /// The answer ended: what was held back goes out as it is.
    pub fn finish(&mut self) -> Filtered {
        let text = std::mem::take(&mut self.held);
        self.filter(&text, true)
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

    fn note(title: Option<&str>, body: &str) -> Note {
        serde_json::from_value(serde_json::json!({
            "id": "n", "body": body, "title": title, "summary": null, "tags": [],
            "ai_status": "done", "ai_error": null, "created_at": "2026-03-01T12:00:00Z",
            "updated_at": "2026-03-01T12:00:00Z", "deleted_at": null, "kept_at": null,
        }))
        .unwrap()
    }

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
    fn updates_become_answer_pieces_removed_citations_and_the_end_with_its_line() {
        let mut citations = Citations::new(1);
        let why = |reason: NoAnswer| format!("why {reason:?}");
        assert_eq!(
            events_of(
                AskUpdate::Piece("Water [1] and [".into()),
                &mut citations,
                why
            ),
            [AskEvent::Answer {
                text: "Water [1] and".into()
            }]
        );
        assert_eq!(
            events_of(AskUpdate::Piece("3] more".into()), &mut citations, why),
            [
                AskEvent::Answer {
                    text: " more".into()
                },
                AskEvent::Removed {
                    citation: "[3]".into()
                }
            ]
        );
        let failed = AskEnd::NotAnswered {
            reason: NoAnswer::Failed,
            detail: "reset".into(),
        };
        assert_eq!(
            events_of(AskUpdate::End(failed), &mut citations, why),
            [AskEvent::unanswered(NoAnswer::Failed, "why Failed".into())]
        );
        assert_eq!(
            events_of(
                AskUpdate::End(AskEnd::Answered),
                &mut Citations::new(1),
                why
            ),
            [AskEvent::answered()]
        );
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

    #[test]
    fn the_prompt_numbers_the_notes_in_order_and_cuts_them_to_fit_the_context() {
        let notes = [
            note(Some("Garden"), "Water the tomatoes."),
            note(None, &"long line of text ".repeat(2000)),
        ];
        let prompt = ask_prompt("When do I water?", &notes, 8192);
        let user = &prompt.messages[1].content;
        assert!(user.contains("[1] Garden\nWater the tomatoes.\n"), "{user}");
        assert!(user.contains("\n[2] long line"));
        assert!(user.ends_with("Question: When do I water?"));
        assert!(prompt.cut && prompt.notes_read == 2);
        assert!(
            prompt.estimated_tokens + ASK_OUTPUT_TOKENS as usize <= 8192,
            "{}",
            prompt.estimated_tokens
        );
        // The short note is whole: the long one took what it left.
        let whole = ask_prompt("When?", &notes[..1], 8192);
        assert!(!whole.cut);

        // A context too small for every note leaves the weakest out, not cut to slivers.
        let many: Vec<Note> = (0..5).map(|_| note(None, &"word ".repeat(400))).collect();
        let small = ask_prompt("q", &many, 900);
        assert!(
            small.notes_read < 5 && small.notes_read >= 1,
            "{}",
            small.notes_read
        );
        assert!(!small.messages[1]
            .content
            .contains(&format!("[{}]", small.notes_read + 1)));
        assert!(small.estimated_tokens + ASK_OUTPUT_TOKENS as usize <= 900);
    }

    #[test]
    fn room_is_shared_evenly_and_what_a_short_note_leaves_goes_to_the_others() {
        assert_eq!(shares(&[10, 100, 100], 120), [10, 55, 55]);
        assert_eq!(shares(&[10, 20], 100), [10, 20]);
        assert_eq!(shares(&[], 100), Vec::<usize>::new());
    }
}
