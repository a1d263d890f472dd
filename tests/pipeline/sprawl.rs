//! The tag-sprawl measure (`tests/support/sprawl.rs`, the figures the tag sprawl bench
//! prints): which tags are near-duplicates and why, and a body of notes' figures.

use crate::sprawl_measure::*;

#[test]
fn spelling_variants_are_near_duplicates() {
    assert_eq!(
        kinship("half-marathon", "half marathon"),
        Some(Kinship::Spelling)
    );
    assert_eq!(kinship("Work_Trip", "worktrip"), Some(Kinship::Spelling));
    assert_eq!(kinship("garden", "garden"), None, "the same tag is no pair");
}

#[test]
fn plurals_are_near_duplicates() {
    assert_eq!(kinship("recipe", "recipes"), Some(Kinship::Plural));
    assert_eq!(kinship("taxes", "tax"), Some(Kinship::Plural));
    assert_eq!(kinship("library", "libraries"), Some(Kinship::Plural));
    assert_eq!(kinship("book", "bookshop"), None);
}

#[test]
fn words_of_one_stem_are_near_duplicates() {
    assert_eq!(kinship("run", "running"), Some(Kinship::Stem));
    assert_eq!(kinship("garden", "gardening"), Some(Kinship::Stem));
    assert_eq!(kinship("cooking", "cooked"), Some(Kinship::Stem));
    assert_eq!(kinship("plan", "planning"), Some(Kinship::Stem));
    assert_eq!(
        kinship("sing", "song"),
        Some(Kinship::Edit),
        "no stem under 3 letters, but a letter apart"
    );
}

#[test]
fn small_edits_count_more_the_longer_the_word() {
    assert_eq!(kinship("lisbon", "lisboa"), Some(Kinship::Edit));
    assert_eq!(kinship("korean", "korea"), Some(Kinship::Edit));
    assert_eq!(kinship("migration", "migraton"), Some(Kinship::Edit));
    assert_eq!(kinship("renovation", "renovatoin"), Some(Kinship::Edit));
    assert_eq!(kinship("tax", "tea"), None, "too short to tell");
    assert_eq!(kinship("title", "tiles"), None, "two edits in five letters");
    assert_eq!(kinship("kitchen", "chicken"), None);
    assert_eq!(kinship("school", "shopping"), None);
}

#[test]
fn near_duplicates_lists_each_pair_once_in_order() {
    let tags = ["running", "run", "garden", "running", "recipes", "recipe"];
    assert_eq!(
        near_duplicates(tags),
        vec![
            NearDuplicate {
                first: "recipe".into(),
                second: "recipes".into(),
                kinship: Kinship::Plural
            },
            NearDuplicate {
                first: "run".into(),
                second: "running".into(),
                kinship: Kinship::Stem
            },
        ]
    );
}

#[test]
fn sprawl_counts_distinct_tags_per_100_notes() {
    let notes: Vec<Vec<String>> = vec![
        vec!["kitchen".into(), "budget".into()],
        vec!["kitchen".into(), "kitchens".into()],
        vec![],
        vec!["running".into()],
    ];
    let figures = sprawl(&notes);
    assert_eq!((figures.notes, figures.tagged, figures.distinct), (4, 3, 4));
    assert_eq!(figures.distinct_per_100_notes, 100.0);
    assert!((figures.tags_per_tagged_note - 5.0 / 3.0).abs() < 1e-9);
    assert_eq!(figures.near_duplicates.len(), 1);
    assert_eq!(sprawl(&[]).distinct_per_100_notes, 0.0);
}
