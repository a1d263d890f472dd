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

use crate::api::notes::{RelatedNotes, SearchHit};
use crate::api::replies::TagCount;
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
}

/// One note a search found: enough to choose which to read with get_note.
#[derive(Debug, Serialize)]
pub struct FoundNote {
    pub id: String,
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub created_at: String,
    /// The piece of the note's text that matched.
    pub snippet: String,
}

impl FoundNotes {
    pub fn from_hits(hits: Vec<SearchHit>) -> Self {
        let hint = hits.is_empty().then_some(
            "no note has every one of these words; try fewer or other words, or list_tags",
        );
        FoundNotes {
            notes: hits.into_iter().map(FoundNote::from_hit).collect(),
            hint,
        }
    }
}

impl FoundNote {
    fn from_hit(hit: SearchHit) -> Self {
        FoundNote {
            snippet: hit.snippet.into_iter().map(|part| part.text).collect(),
            id: hit.note.id,
            title: hit.note.title,
            tags: hit.note.tags,
            created_at: hit.note.created_at,
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
}

impl NoteReply {
    pub fn from_note(note: Note) -> Self {
        NoteReply {
            ai_status: note.ai_status.as_str().to_string(),
            in_trash: note.deleted_at.is_some(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            summary: note.summary,
            text: note.body,
            created_at: note.created_at,
            edited_at: note.edited_at,
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
#[derive(Debug, Serialize)]
pub struct AskReply {
    /// The local model's answer, citing the notes as [1], [2] in the order of `notes`;
    /// absent when no answer was made (`why` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Why there is no answer, in one plain line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The notes found for the question, [1] first.
    pub notes: Vec<FoundNote>,
}

impl AskReply {
    /// The notes alone, with why no answer came.
    pub fn notes_only(hits: Vec<SearchHit>, why: &str) -> Self {
        AskReply {
            answer: None,
            why: Some(why.to_string()),
            notes: hits.into_iter().map(FoundNote::from_hit).collect(),
        }
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
    use crate::api::notes::{NoteView, RelatedNote, SnippetPart};
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
        }
    }

    #[test]
    fn a_found_note_carries_its_id_title_tags_and_the_matched_text() {
        let hit = SearchHit {
            note: note("n1"),
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
        };
        let found = serde_json::to_value(FoundNotes::from_hits(vec![hit])).unwrap();
        assert_eq!(
            found,
            serde_json::json!({"notes": [{
                "id": "n1", "title": "Dentist", "tags": ["health"],
                "created_at": "2026-12-01T10:00:00Z", "snippet": "call the dentist"
            }]})
        );
    }

    #[test]
    fn no_hit_says_what_to_try() {
        let found = FoundNotes::from_hits(Vec::new());
        assert!(found.notes.is_empty());
        assert!(found.hint.unwrap().contains("fewer or other words"));
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
}
