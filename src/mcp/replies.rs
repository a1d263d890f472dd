//! What each MCP tool answers a model with, made from the service's answers: plain
//! data and plain functions, so what a model reads is tested without a service.
//!
//! Each answer is one JSON object (the tool result's text), named fields a model can
//! read and quote back (a note's `id` for get_note and related_notes). A note's
//! machinery (its AI's attempts, its expiry) is left out; what a person wrote, what the
//! model added and when are kept.
//!
//! A failed call becomes a tool error (`isError`) whose text is one plain sentence with
//! the fix: the model relays it to the person, who can act on it.

use serde::Serialize;

use crate::api::ask::{AskEvent, MAX_ANSWER_BYTES};
use crate::api::notes::{NoteView, RelatedNotes};
use crate::api::replies::TagCount;
use crate::api::search::{FoundBy, HybridHitView, SearchAnswer};
use crate::client::ClientError;
use crate::domain::Note;

/// What a tool says when the service is not running: how a person starts it.
pub const NOT_RUNNING: &str = "inkling is not running, so the notes cannot be reached. \
Ask the person to start it: run `inkling` (from a source checkout, `cargo run --release`), \
or `inkling autostart on` to start it at every login; then try again.";

/// `search_notes`: the notes found, best first.
#[derive(Debug, Serialize)]
pub struct FoundNotes {
    pub notes: Vec<FoundNote>,
    /// Said when nothing matched, with what to try instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
    /// Said when the search could use the words only (the model server down, its
    /// embedding model missing, …): one plain line why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_words_only: Option<String>,
}

/// One note a search found: enough to choose which to read with get_note.
#[derive(Debug, Serialize)]
pub struct FoundNote {
    pub id: String,
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub created_at: String,
    /// The piece of the note's text that matched (for a note found by its meaning, or
    /// given for a question, the start of its text).
    pub snippet: String,
    /// What found it: its `words`, its `meaning`, or `both`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_by: Option<FoundBy>,
    /// `true`: an answer saved from an earlier question (ask_notes), not the person's own
    /// note: not evidence of what they wrote. Absent: their note.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_answer: bool,
}

impl FoundNotes {
    /// The hybrid search's answer (`GET /api/search`) as a model reads it.
    pub fn from_answer(answer: SearchAnswer) -> Self {
        let hint = answer.hits.is_empty().then_some(
            "no note has these words or is near them in meaning; try fewer or other words, \
or list_tags",
        );
        FoundNotes {
            notes: answer.hits.into_iter().map(FoundNote::from_hit).collect(),
            hint,
            by_words_only: answer.keyword_only.map(|why| why.line),
        }
    }
}

/// How much of a note's text is given for a note found by a question (a model reads
/// the rest with get_note).
const NOTE_START_CHARS: usize = 200;

impl FoundNote {
    fn from_hit(hit: HybridHitView) -> Self {
        let note = hit.hit.note.note;
        FoundNote {
            saved_answer: !note.kind.is_note(),
            snippet: hit.hit.snippet.into_iter().map(|part| part.text).collect(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            created_at: note.created_at,
            found_by: Some(hit.found_by),
        }
    }

    fn from_note(view: NoteView) -> Self {
        let note = view.note;
        FoundNote {
            saved_answer: !note.kind.is_note(),
            snippet: note.body.chars().take(NOTE_START_CHARS).collect(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            created_at: note.created_at,
            found_by: None,
        }
    }
}

/// `get_note` and `capture_note`: one note, whole.
#[derive(Debug, Serialize)]
pub struct NoteReply {
    pub id: String,
    /// The title the model gave it, or the person's; none yet while it is pending.
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub summary: Option<String>,
    /// The note's text as the person wrote it.
    pub text: String,
    pub created_at: String,
    /// When a person last edited it; absent: never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<String>,
    /// `pending` (the local model has not read it yet), `done` or `failed`.
    pub ai_status: String,
    /// The note is in the trash (the person deleted it; it can still be restored).
    pub in_trash: bool,
    /// When the person is to be reminded of it (RFC 3339, UTC); absent: no reminder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remind_at: Option<String>,
    /// The reminder's state: `open`, `done` or `snoozed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remind_state: Option<&'static str>,
    /// `true`: an answer saved from an earlier question (ask_notes), not the person's own
    /// note: not evidence of what they wrote. Absent: their note.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_answer: bool,
}

impl NoteReply {
    pub fn from_note(note: Note) -> Self {
        NoteReply {
            saved_answer: !note.kind.is_note(),
            ai_status: note.ai_status.as_str().to_string(),
            in_trash: note.deleted_at.is_some(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            summary: note.summary,
            text: note.body,
            created_at: note.created_at,
            edited_at: note.edited_at,
            remind_at: note.remind_at,
            remind_state: note.remind_state.map(|s| s.as_str()),
        }
    }
}

/// `list_reminders`: the reminders not done up to `until`, earliest first (the
/// overdue first), and yesterday's notes never opened (Today's other half).
#[derive(Debug, Serialize)]
pub struct RemindersReply {
    pub until: String,
    /// A reminder at or before this is due.
    pub now: String,
    pub reminders: Vec<NoteReply>,
    pub unopened: Vec<NoteReply>,
}

impl RemindersReply {
    pub fn from_answer(answer: crate::api::reminders::RemindersAnswer) -> Self {
        RemindersReply {
            until: answer.until,
            now: answer.now,
            reminders: answer
                .reminders
                .into_iter()
                .map(|view| NoteReply::from_note(view.note))
                .collect(),
            unopened: answer
                .unopened
                .into_iter()
                .map(|view| NoteReply::from_note(view.note))
                .collect(),
        }
    }
}

/// `related_notes`: the notes nearest in meaning, best first.
#[derive(Debug, Serialize)]
pub struct RelatedReply {
    pub notes: Vec<RelatedReplyNote>,
    /// Said when the note has no vector yet, so "none" is not read as "none related".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct RelatedReplyNote {
    pub id: String,
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub summary: Option<String>,
    /// How alike in meaning, 0 to 1.
    pub similarity: f32,
    /// `true`: an answer saved from an earlier question (ask_notes), not the person's own
    /// note: not evidence of what they wrote. Absent: their note.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_answer: bool,
}

impl RelatedReply {
    pub fn from_related(related: RelatedNotes) -> Self {
        let hint = if !related.embedded {
            Some("this note's meaning is not known yet (it is new or was just edited, or no embedding model is set up), so no related notes can be said; try search_notes")
        } else if related.notes.is_empty() {
            Some("no other note is close in meaning")
        } else {
            None
        };
        RelatedReply {
            notes: related
                .notes
                .into_iter()
                .map(|related| RelatedReplyNote {
                    saved_answer: !related.note.note.kind.is_note(),
                    similarity: related.similarity,
                    id: related.note.note.id,
                    title: related.note.note.title,
                    tags: related.note.note.tags,
                    summary: related.note.note.summary,
                })
                .collect(),
            hint,
        }
    }
}

/// `list_tags`: every tag in use, most used first.
#[derive(Debug, Serialize)]
pub struct TagsReply {
    pub tags: Vec<TagCount>,
}

/// `ask_notes`: the notes that answer a question, and the answer when there is one.
#[derive(Debug, Default, Serialize)]
pub struct AskReply {
    /// The local model's answer, citing the notes as [1], [2] in the order of `notes`;
    /// absent when no answer was made (`why` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Why there is no (whole) answer, in one plain line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Citations the model made of no note given, taken out of `answer`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_citations: Vec<String>,
    /// The notes found for the question, [1] first.
    pub notes: Vec<FoundNote>,
}

impl AskReply {
    /// The answer's stream (`POST /api/ask`), gathered: the notes, the answer's pieces
    /// joined, the citations taken out, and why it ended without a whole answer (the
    /// tests' shorthand for [`AskGathering`]).
    #[cfg(test)]
    pub fn from_events(events: impl IntoIterator<Item = AskEvent>) -> Self {
        let mut gathering = AskGathering::default();
        for event in events {
            if !gathering.take(event) {
                break;
            }
        }
        gathering.finish()
    }
}

/// An answer's stream gathered as it comes, its text held to
/// [`crate::api::ask::MAX_ANSWER_BYTES`] (the service's own cut) whatever comes.
#[derive(Debug, Default)]
pub struct AskGathering {
    reply: AskReply,
    answer: String,
    /// The answer passed its limit: nothing more is taken.
    cut: bool,
}

impl AskGathering {
    /// Takes the next event; `false` once the answer has passed its limit (the caller
    /// stops reading, which hangs up).
    pub fn take(&mut self, event: AskEvent) -> bool {
        if self.cut {
            return false;
        }
        match event {
            AskEvent::Notes { notes } => {
                self.reply.notes = notes.into_iter().map(FoundNote::from_note).collect();
            }
            AskEvent::Answer { text } => {
                let room = MAX_ANSWER_BYTES - self.answer.len();
                if text.len() > room {
                    let mut end = room;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    self.answer.push_str(&text[..end]);
                    self.cut = true;
                    self.reply.why = Some(format!(
                        "the answer ran past {MAX_ANSWER_BYTES} bytes and was cut"
                    ));
                    return false;
                }
                self.answer.push_str(&text);
            }
            AskEvent::Removed { citation } => {
                if !self.reply.removed_citations.contains(&citation) {
                    self.reply.removed_citations.push(citation);
                }
            }
            AskEvent::Done { answered, why, .. } => {
                if !answered {
                    self.reply.why = Some(
                        why.unwrap_or_else(|| "the answer stopped before its end".to_string()),
                    );
                }
            }
        }
        true
    }

    /// The reply, with what came.
    pub fn finish(self) -> AskReply {
        let mut reply = self.reply;
        let answer = self.answer.trim();
        reply.answer = (!answer.is_empty()).then(|| answer.to_string());
        reply
    }
}

/// A failed call, as the plain sentence a model relays to the person.
pub fn tool_error_text(error: &ClientError) -> String {
    match error {
        ClientError::NotRunning(_) => NOT_RUNNING.to_string(),
        // The service's own words ("the service refused (404 Not Found): no note …").
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ask::NoAnswer;
    use crate::api::notes::{RelatedNote, SearchHitView, SnippetPart};
    use crate::api::search::KeywordOnly;
    use crate::domain::AiStatus;

    fn note(id: &str) -> Note {
        Note {
            id: id.into(),
            body: "call the dentist\n- [ ] monday".into(),
            title: Some("Dentist".into()),
            summary: Some("A call to make.".into()),
            tags: vec!["health".into()],
            ai_status: AiStatus::Done,
            ai_error: None,
            created_at: "2026-12-01T10:00:00Z".into(),
            updated_at: "2026-12-01T10:00:05Z".into(),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
            edited_at: None,
            remind_at: None,
            remind_state: None,
            kind: crate::domain::NoteKind::Note,
            imported_at: None,
            remind_suggested_at: None,
            remind_suggestion_dismissed: false,
            opened_at: None,
        }
    }

    fn view(note: Note) -> NoteView {
        NoteView {
            note,
            expired: false,
            expires_at: None,
        }
    }

    #[test]
    fn a_found_note_carries_its_id_title_tags_the_matched_text_and_what_found_it() {
        let hit = HybridHitView {
            hit: SearchHitView {
                note: view(note("n1")),
                snippet: vec![
                    SnippetPart {
                        text: "call the ".into(),
                        matched: false,
                    },
                    SnippetPart {
                        text: "dentist".into(),
                        matched: true,
                    },
                ],
            },
            found_by: FoundBy::Both,
        };
        let answer = SearchAnswer {
            hits: vec![hit],
            keyword_only: None,
        };
        let found = serde_json::to_value(FoundNotes::from_answer(answer)).unwrap();
        assert_eq!(
            found,
            serde_json::json!({"notes": [{
                "id": "n1", "title": "Dentist", "tags": ["health"],
                "created_at": "2026-12-01T10:00:00Z", "snippet": "call the dentist",
                "found_by": "both"
            }]})
        );
    }

    #[test]
    fn no_hit_says_what_to_try_and_a_words_only_search_says_why() {
        let answer = SearchAnswer {
            hits: Vec::new(),
            keyword_only: Some(KeywordOnly::ProviderDown.into()),
        };
        let found = FoundNotes::from_answer(answer);
        assert!(found.notes.is_empty());
        assert!(found.hint.unwrap().contains("fewer or other words"));
        assert!(found
            .by_words_only
            .unwrap()
            .starts_with("Found by words only: the model server is not answering"));
    }

    #[test]
    fn an_answer_is_gathered_from_its_stream_with_the_notes_and_the_citations_taken_out() {
        let events = vec![
            AskEvent::Notes {
                notes: vec![view(note("n1"))],
            },
            AskEvent::Answer {
                text: "Call the dentist ".into(),
            },
            AskEvent::Answer {
                text: "on Monday [1].".into(),
            },
            AskEvent::Removed {
                citation: "[4]".into(),
            },
            AskEvent::answered(),
        ];
        let reply = AskReply::from_events(events);
        assert_eq!(
            reply.answer.as_deref(),
            Some("Call the dentist on Monday [1].")
        );
        assert_eq!(reply.why, None);
        assert_eq!(reply.removed_citations, vec!["[4]".to_string()]);
        assert_eq!(reply.notes.len(), 1);
        assert_eq!(reply.notes[0].id, "n1");
        assert_eq!(reply.notes[0].snippet, "call the dentist\n- [ ] monday");
        assert_eq!(reply.notes[0].found_by, None);
    }

    #[test]
    fn without_the_model_the_notes_come_alone_with_the_services_line_why() {
        let events = vec![
            AskEvent::Notes {
                notes: vec![view(note("n1"))],
            },
            AskEvent::Done {
                answered: false,
                reason: Some(NoAnswer::ModelDown),
                why: Some("The model server is not running.".into()),
            },
        ];
        let reply = AskReply::from_events(events);
        assert_eq!(reply.answer, None);
        assert_eq!(
            reply.why.as_deref(),
            Some("The model server is not running.")
        );
        assert_eq!(reply.notes.len(), 1);
    }

    #[test]
    fn a_note_is_its_text_and_what_the_model_added_not_its_machinery() {
        let mut trashed = note("n2");
        trashed.deleted_at = Some("2026-12-02T00:00:00Z".into());
        let reply = serde_json::to_value(NoteReply::from_note(trashed)).unwrap();
        assert_eq!(reply["text"], "call the dentist\n- [ ] monday");
        assert_eq!(reply["summary"], "A call to make.");
        assert_eq!(reply["ai_status"], "done");
        assert_eq!(reply["in_trash"], true);
        assert!(reply.get("ai_error").is_none() && reply.get("edited_at").is_none());
    }

    #[test]
    fn a_saved_answer_is_marked_as_one_wherever_a_model_meets_it() {
        let mut answer = note("a1");
        answer.kind = crate::domain::NoteKind::Answer;
        let own = serde_json::to_value(NoteReply::from_note(note("n1"))).unwrap();
        assert!(own.get("saved_answer").is_none(), "a note is the person's");
        let reply = serde_json::to_value(NoteReply::from_note(answer.clone())).unwrap();
        assert_eq!(reply["saved_answer"], true);
        let found = serde_json::to_value(FoundNote::from_note(view(answer.clone()))).unwrap();
        assert_eq!(found["saved_answer"], true);
        let related = RelatedReply::from_related(RelatedNotes {
            notes: vec![RelatedNote::new(view(answer), 0.9)],
            embedded: true,
        });
        assert!(related.notes[0].saved_answer);
    }

    #[test]
    fn related_notes_tell_not_yet_known_from_none() {
        let unknown = RelatedReply::from_related(RelatedNotes {
            notes: Vec::new(),
            embedded: false,
        });
        assert!(unknown.hint.unwrap().contains("not known yet"));
        let none = RelatedReply::from_related(RelatedNotes {
            notes: Vec::new(),
            embedded: true,
        });
        assert_eq!(none.hint, Some("no other note is close in meaning"));
        let view = NoteView {
            note: note("n3"),
            expired: false,
            expires_at: None,
        };
        let some = RelatedReply::from_related(RelatedNotes {
            notes: vec![RelatedNote::new(view, 0.81234)],
            embedded: true,
        });
        assert_eq!(some.hint, None);
        assert_eq!(some.notes[0].id, "n3");
        assert_eq!(some.notes[0].similarity, 0.812);
    }

    #[test]
    fn a_service_that_is_not_running_is_told_with_how_to_start_it() {
        let text = tool_error_text(&ClientError::NotRunning("http://127.0.0.1:7373".into()));
        assert!(text.contains("inkling is not running"), "{text}");
        assert!(text.contains("cargo run --release"), "{text}");
        assert!(text.contains("inkling autostart on"), "{text}");
        let refused = tool_error_text(&ClientError::Api(
            "the service refused (404): no note n9".into(),
        ));
        assert_eq!(refused, "the service refused (404): no note n9");
    }

    /// Before (issue #43 point 1): `inkling mcp` gathered whatever came, and grew to
    /// 1.08 GB on an answer that never ended.
    #[test]
    fn an_answer_past_its_limit_is_cut_there_and_nothing_more_is_taken() {
        let mut gathering = AskGathering::default();
        assert!(gathering.take(AskEvent::Notes {
            notes: vec![view(note("n1"))],
        }));
        let piece = "é".repeat(1000);
        let mut taken = 0;
        while gathering.take(AskEvent::Answer {
            text: piece.clone(),
        }) {
            taken += 1;
            assert!(taken < 1000, "never cut");
        }
        assert!(!gathering.take(AskEvent::answered()));
        let reply = gathering.finish();
        let answer = reply.answer.unwrap();
        assert_eq!(answer.len(), MAX_ANSWER_BYTES, "cut on a character");
        assert!(reply.why.unwrap().contains("was cut"));
        assert_eq!(reply.notes.len(), 1);
    }
}
