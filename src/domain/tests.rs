use super::*;

#[test]
fn a_blank_body_is_refused() {
    assert_eq!(
        NoteBody::parse(" \n\t".into(), 100),
        Err(NoteBodyError::Empty)
    );
}

#[test]
fn a_body_of_only_invisible_characters_is_refused_but_one_with_text_is_kept() {
    for invisible in [
        "\u{200B}",
        "\u{FEFF}\u{200B} \u{2060}",
        "\u{00AD}\n\u{200D}",
    ] {
        assert_eq!(
            NoteBody::parse(invisible.into(), 100),
            Err(NoteBodyError::Empty),
            "{invisible:?}"
        );
    }
    assert!(NoteBody::parse("\u{200B}a".into(), 100).is_ok());
}

#[test]
fn a_body_over_the_limit_is_refused_and_one_at_the_limit_is_kept_as_typed() {
    assert!(matches!(
        NoteBody::parse("abcd".into(), 3),
        Err(NoteBodyError::TooLarge { size: 4, limit: 3 })
    ));
    assert_eq!(NoteBody::parse(" ab".into(), 3).unwrap().as_str(), " ab");
}

#[test]
fn timestamps_are_fixed_width_utc_with_milliseconds() {
    let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
        .unwrap()
        .with_timezone(&Utc);
    assert_eq!(timestamp(at), "2026-01-02T03:04:05.000Z");
}

#[test]
fn an_edit_checks_every_field_it_sets_and_needs_at_least_one() {
    let parse = |body: Option<&str>, title: Option<&str>, tags: Option<&[&str]>| {
        NoteEdit::parse(
            body.map(String::from),
            title.map(String::from),
            tags.map(|t| t.iter().map(|s| s.to_string()).collect()),
            100,
        )
    };
    assert_eq!(parse(None, None, None), Err(EditError::Nothing));
    assert!(matches!(
        parse(Some(" "), None, None),
        Err(EditError::Body(_))
    ));
    assert_eq!(parse(None, Some("  "), None), Err(EditError::EmptyTitle));
    assert_eq!(
        parse(None, Some("a\nb"), None),
        Err(EditError::TitleNotOneLine)
    );
    assert_eq!(
        parse(None, Some(&"t".repeat(201)), None),
        Err(EditError::TitleTooLong)
    );
    assert!(matches!(
        parse(None, None, Some(&[""])),
        Err(EditError::Tag(_))
    ));
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert_eq!(
        parse(None, None, Some(&many)),
        Err(EditError::TooManyTags(21))
    );
    let edit = parse(None, Some(" Stamps "), Some(&["Post", "post ", "home"])).unwrap();
    assert_eq!(edit.title.as_deref(), Some("Stamps"));
    assert_eq!(
        edit.tags,
        Some(vec!["post".to_string(), "home".to_string()])
    );
    assert_eq!(parse(None, None, Some(&[])).unwrap().tags, Some(vec![]));
}

#[test]
fn a_note_expires_its_expiry_days_after_it_came_unless_kept_or_trashed_or_expiry_is_off() {
    let note = Note {
        id: "n1".into(),
        body: "b".into(),
        title: None,
        summary: None,
        tags: vec![],
        ai_status: AiStatus::Done,
        ai_error: None,
        created_at: "2026-01-01T00:00:00.000Z".into(),
        updated_at: "2026-01-01T00:00:00.000Z".into(),
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
    };
    let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
    assert_eq!(note.expires_at(Some(30)), Some(at("2026-01-31T00:00:00Z")));
    assert!(!note.is_expired(Some(30), at("2026-01-31T00:00:00Z")));
    assert!(note.is_expired(Some(30), at("2026-01-31T00:00:00.001Z")));
    let kept = Note {
        kept_at: Some("2026-01-02T00:00:00.000Z".into()),
        ..note.clone()
    };
    assert_eq!(kept.expires_at(Some(30)), None);
    assert!(!kept.is_expired(Some(30), at("2027-01-01T00:00:00Z")));
    let trashed = Note {
        deleted_at: Some("2026-01-02T00:00:00.000Z".into()),
        ..note.clone()
    };
    assert!(!trashed.is_expired(Some(30), at("2027-01-01T00:00:00Z")));
    // Expiry off: nothing expires, however old.
    assert_eq!(note.expires_at(None), None);
    assert!(!note.is_expired(None, at("2027-01-01T00:00:00Z")));
    // Imported on 2026-03-01: its days count from then, not from when it was written.
    let imported = Note {
        imported_at: Some("2026-03-01T00:00:00.000Z".into()),
        ..note
    };
    assert_eq!(
        imported.expires_at(Some(30)),
        Some(at("2026-03-31T00:00:00Z"))
    );
    assert!(!imported.is_expired(Some(30), at("2026-03-01T00:00:00Z")));
}

#[test]
fn the_list_limit_is_clamped() {
    let mut f = ListFilter::default();
    assert_eq!(f.effective_limit(), 50);
    f.limit = Some(0);
    assert_eq!(f.effective_limit(), 1);
    f.limit = Some(10_000);
    assert_eq!(f.effective_limit(), 500);
}
