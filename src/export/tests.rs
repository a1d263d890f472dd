use super::*;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn note() -> Note {
    Note {
        id: "0197a2b3-59e2-72ff-a641-d3be67972b87".into(),
        body: "\nBuy stamps: \"first class\"\n---\nand envelopes".into(),
        title: Some("Buy stamps".into()),
        summary: Some("Stamps and envelopes.".into()),
        tags: vec!["errands".into(), "post office".into()],
        ai_status: AiStatus::Done,
        ai_error: None,
        created_at: "2026-03-01T12:00:00.000Z".into(),
        updated_at: "2026-03-01T12:00:05.000Z".into(),
        deleted_at: Some("2026-03-02T08:00:00.000Z".into()),
        kept_at: None,
        title_set_by_user: true,
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

#[test]
fn a_note_written_as_markdown_reads_back_the_same() {
    let note = note();
    let text = to_markdown(&note);
    assert!(text.starts_with("---\nid: \"0197a2b3"), "{text}");
    assert!(
        text.contains("\ntags: [\"errands\",\"post office\"]\n"),
        "{text}"
    );
    let back = from_markdown(&text).validate(65536, now()).unwrap();
    assert_eq!(back, note);
}

#[test]
fn a_markdown_file_from_elsewhere_is_read_as_far_as_it_goes() {
    let plain = from_markdown("just a thought\n");
    assert_eq!(plain.body, "just a thought\n");
    assert_eq!(plain.id, None);

    let obsidian = from_markdown(
            "---\ntitle: 'It''s a plan'\ndate: 2026-02-01T09:30:00+09:00\naliases: [x]\ntags:\n  - Cooking\n  - food\n---\nBody here.\n",
        );
    assert_eq!(obsidian.title.as_deref(), Some("It's a plan"));
    assert_eq!(obsidian.tags, ["Cooking", "food"]);
    assert_eq!(obsidian.body, "Body here.\n");
    let stored = obsidian.validate(65536, now()).unwrap();
    assert_eq!(stored.created_at, "2026-02-01T00:30:00.000Z");
    assert_eq!(stored.tags, ["cooking", "food"]);
    assert_eq!(stored.ai_status, AiStatus::Pending);
    assert!(
        stored.title_set_by_user && stored.tags_set_by_user,
        "a person's title and tags, kept from the AI"
    );

    let flow = from_markdown("---\ntags: [a, \"b c\"]\n---\nx");
    assert_eq!(flow.tags, ["a", "b c"]);
    let unclosed = from_markdown("---\nnot front matter");
    assert_eq!(unclosed.body, "---\nnot front matter");
}

#[test]
fn a_note_coming_in_is_checked_field_by_field() {
    let good = || ImportedNote {
        body: "text".into(),
        ..ImportedNote::default()
    };
    let filled = good().validate(100, now()).unwrap();
    assert_eq!(filled.created_at, "2026-03-01T12:00:00.000Z");
    assert_eq!(filled.updated_at, filled.created_at);
    assert_eq!(
        (filled.ai_status, filled.id.as_str()),
        (AiStatus::Pending, "")
    );

    let failed = ImportedNote {
        ai_status: Some(AiStatus::Failed),
        ..good()
    };
    assert!(failed.validate(100, now()).unwrap().ai_error.is_some());
    let bad = [
        ImportedNote {
            body: " ".into(),
            ..good()
        },
        ImportedNote {
            id: Some("../x".into()),
            ..good()
        },
        ImportedNote {
            created_at: Some("yesterday".into()),
            ..good()
        },
        ImportedNote {
            title: Some("a\nb".into()),
            ..good()
        },
        ImportedNote {
            tags: vec!["a,b".into()],
            ..good()
        },
        ImportedNote {
            summary: Some("s".repeat(2001)),
            ..good()
        },
        ImportedNote {
            body: "x".repeat(101),
            ..good()
        },
    ];
    for note in bad {
        assert!(note.clone().validate(100, now()).is_err(), "{note:?}");
    }
}

#[test]
fn a_date_outside_1970_to_2200_is_refused_saying_which_field_and_how_to_fix_it() {
    let dated = |field: &str, at: &str| {
        let mut note = ImportedNote {
            body: "text".into(),
            ..ImportedNote::default()
        };
        let value = Some(at.to_string());
        match field {
            "created_at" => note.created_at = value,
            "updated_at" => note.updated_at = value,
            "deleted_at" => note.deleted_at = value,
            _ => note.kept_at = value,
        }
        note.validate(100, now())
    };
    for field in ["created_at", "updated_at", "deleted_at", "kept_at"] {
        for at in [
            "0000-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "2201-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ] {
            let refused = dated(field, at).unwrap_err().to_string();
            assert!(
                refused.starts_with(&format!("{field} \"{at}\"")),
                "{refused}"
            );
            assert!(refused.contains("1970 to 2200"), "{refused}");
        }
        for at in ["1970-01-01T00:00:00Z", "2200-12-31T23:59:59Z"] {
            assert!(dated(field, at).is_ok(), "{field} {at}");
        }
    }
}

#[test]
fn file_names_come_from_the_date_the_headline_and_the_id_s_random_end() {
    let mut note = note();
    assert_eq!(file_name(&note), "2026-03-01-buy-stamps-67972b87.md");
    note.title = None;
    note.body = "  \n사과를 사다 / 오늘!".into();
    assert_eq!(file_name(&note), "2026-03-01-사과를-사다-오늘-67972b87.md");
    note.body = "!!!".into();
    assert_eq!(file_name(&note), "2026-03-01-note-67972b87.md");
}

#[test]
fn the_json_export_is_one_document_in_pieces() {
    let document = format!(
        "{}{}{}{}{}",
        json_head("2026-03-01T12:00:00.000Z"),
        serde_json::to_string(&note()).unwrap(),
        JSON_SEPARATOR,
        serde_json::to_string(&note()).unwrap(),
        JSON_TAIL
    );
    let read: ExportDocument = serde_json::from_str(&document).unwrap();
    assert_eq!(read.inkling_export, FORMAT_VERSION);
    assert_eq!(read.notes.len(), 2);
    assert_eq!(
        read.notes[0].clone().validate(65536, now()).unwrap(),
        note()
    );
}
