use super::*;

#[test]
fn the_quiet_line_is_one_plain_sentence_for_every_reason() {
    let reasons = [
        KeywordOnly::Off,
        KeywordOnly::ProviderDown,
        KeywordOnly::ModelMissing {
            model: "embeddinggemma".into(),
        },
        KeywordOnly::NotServed,
        KeywordOnly::Indexing,
        KeywordOnly::TimedOut,
        KeywordOnly::Failed,
        KeywordOnly::Trash,
    ];
    for why in reasons {
        let line = why.line();
        assert!(line.starts_with("Found by words only: "), "{line}");
        assert!(line.ends_with('.') && !line.contains('\n'), "{line}");
    }
    assert!(KeywordOnly::ModelMissing {
        model: "embeddinggemma".into()
    }
    .line()
    .contains("embeddinggemma"));
}

#[test]
fn the_reason_travels_as_a_code_beside_its_line() {
    let line = KeywordOnlyLine::from(KeywordOnly::ModelMissing { model: "m".into() });
    let json = serde_json::to_value(&line).unwrap();
    assert_eq!(json["reason"], "model_missing");
    assert_eq!(json["model"], "m");
    assert_eq!(json["line"], line.line);
    let back: KeywordOnlyLine = serde_json::from_value(json).unwrap();
    assert_eq!(back, line);
}
