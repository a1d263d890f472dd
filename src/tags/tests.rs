use super::*;

#[test]
fn a_tag_is_trimmed_lowercased_and_its_spaces_folded() {
    assert_eq!(
        normalize("  Machine \t Learning ").unwrap(),
        "machine learning"
    );
    assert_eq!(normalize("한국어").unwrap(), "한국어");
    assert_eq!(normalize(" \t"), Err(TagError::Empty));
    assert!(matches!(normalize("a,b"), Err(TagError::BadCharacter(_))));
    assert!(matches!(normalize("a\nb"), Err(TagError::BadCharacter(_))));
    assert!(matches!(
        normalize(&"x".repeat(33)),
        Err(TagError::TooLong(_))
    ));
    assert!(normalize(&"x".repeat(32)).is_ok());
}

#[test]
fn tags_that_differ_in_case_spaces_dashes_or_underscores_share_a_key() {
    let keys: Vec<String> = [
        "Machine-Learning",
        "machine learning",
        "machine_learning",
        "MachineLearning",
    ]
    .iter()
    .map(|t| key(t))
    .collect();
    assert!(keys.iter().all(|k| k == "machinelearning"), "{keys:?}");
    assert_ne!(key("cooking"), key("cooking tips"));
}

#[test]
fn incoming_tags_take_the_most_used_spelling_and_merge_their_duplicates() {
    let vocabulary =
        Vocabulary::new(["machine learning", "machine-learning", "food"].map(String::from));
    let tidy = vocabulary.tidy(
        [
            "machine-learning",
            "Food",
            "food",
            "new tag",
            "--",
            "machine_learning",
        ]
        .map(String::from)
        .to_vec(),
    );
    assert_eq!(tidy, ["machine learning", "food", "new tag"]);
}
