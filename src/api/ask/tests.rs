use super::*;

#[test]
fn a_question_is_trimmed_and_an_empty_long_or_control_one_is_refused_in_words() {
    assert_eq!(Question::parse("  what  ").unwrap().as_str(), "what");
    assert_eq!(Question::parse(" \n "), Err(QuestionError::Empty));
    let long = "a".repeat(MAX_QUESTION_CHARS + 1);
    assert_eq!(
        Question::parse(&long),
        Err(QuestionError::TooLong(MAX_QUESTION_CHARS + 1))
    );
    assert!(Question::parse(&"가".repeat(MAX_QUESTION_CHARS)).is_ok());
    assert!(matches!(
        Question::parse("a\u{0}b"),
        Err(QuestionError::ControlCharacter(_))
    ));
    assert!(QuestionError::Empty.to_string().contains("type what"));
}

#[test]
fn events_are_one_json_line_each_and_read_back() {
    let events = [
        AskEvent::Answer {
            text: "a\nb [1]".into(),
        },
        AskEvent::Removed {
            citation: "[7]".into(),
        },
        AskEvent::answered(),
        AskEvent::unanswered(NoAnswer::ModelDown, "down".into()),
    ];
    for event in events {
        let line = event.line();
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        assert!(line.ends_with('\n'));
        assert_eq!(AskEvent::from_line(&line).unwrap().unwrap(), event);
    }
    assert_eq!(
        AskEvent::unanswered(NoAnswer::ModelMissing, "x".into()).line(),
        "{\"type\":\"done\",\"answered\":false,\"reason\":\"model_missing\",\"why\":\"x\"}\n"
    );
    assert!(AskEvent::from_line("  ").is_none());
}
