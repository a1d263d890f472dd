use super::*;

fn search(query: &str, tag: Option<&str>, limit: Option<u32>) -> SearchNotesArgs {
    SearchNotesArgs {
        query: query.into(),
        tag: tag.map(str::to_string),
        limit,
    }
}

#[test]
fn a_search_asks_for_the_trimmed_words_and_ten_notes_by_default() {
    let query = search("  dentist march ", None, None).to_query().unwrap();
    assert_eq!(query.q.as_deref(), Some("dentist march"));
    assert_eq!(query.limit, Some(DEFAULT_SEARCH_RESULTS));
    assert_eq!(query.tag, None);
    assert!(!query.trash, "a search never reaches into the trash");
}

#[test]
fn a_search_keeps_its_tag_and_drops_an_empty_one() {
    let query = search("a", Some(" health "), Some(3)).to_query().unwrap();
    assert_eq!(query.tag.as_deref(), Some("health"));
    assert_eq!(query.limit, Some(3));
    assert_eq!(search("a", Some(" "), None).to_query().unwrap().tag, None);
}

#[test]
fn an_empty_search_or_a_limit_out_of_range_is_refused_with_the_fix() {
    assert!(search("   ", None, None)
        .to_query()
        .unwrap_err()
        .contains("give one or more words"));
    for limit in [0, MAX_SEARCH_RESULTS + 1] {
        let why = search("a", None, Some(limit)).to_query().unwrap_err();
        assert!(why.contains("use 1 to 50"), "{why}");
    }
    assert!(search("a", None, Some(MAX_SEARCH_RESULTS))
        .to_query()
        .is_ok());
}

#[test]
fn an_empty_id_text_or_question_is_refused() {
    assert!(NoteIdArgs { id: " ".into() }.checked_id().is_err());
    assert_eq!(NoteIdArgs { id: " n1 ".into() }.checked_id(), Ok("n1"));
    assert!(CaptureNoteArgs {
        text: "\n\t ".into()
    }
    .checked_text()
    .is_err());
    // The text is captured as written, its spaces too.
    assert_eq!(
        CaptureNoteArgs {
            text: " a\n".into()
        }
        .checked_text(),
        Ok(" a\n")
    );
    assert!(AskNotesArgs {
        question: "".into()
    }
    .checked_question()
    .is_err());
}

#[test]
fn an_unknown_argument_is_refused_by_name() {
    let refused = serde_json::from_str::<SearchNotesArgs>(r#"{"qeury": "a"}"#)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("qeury"), "{refused}");
}

mod reminder;
