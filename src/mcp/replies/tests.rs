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
