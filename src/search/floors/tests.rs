use super::*;

#[test]
fn really_near_is_halfway_from_the_median_to_one_and_never_below_the_floor() {
    // Gemma 3 270M's vectors measured: median 0.71.
    let gemma = VectorSpread::TellsNotesApart {
        notes: 16,
        median: 0.71,
        spread: 0.47,
    };
    let floor = neighbours_floor(&gemma).expect("a floor");
    assert!((floor - 0.855).abs() < 1e-6, "{floor}");
    assert!(
        0.84 < floor && floor < 0.89,
        "between its unrelated and related pairs"
    );
    // A model whose unrelated notes are near 0: the related notes' floor holds.
    let apart = VectorSpread::TellsNotesApart {
        notes: 16,
        median: 0.0,
        spread: 0.4,
    };
    assert_eq!(neighbours_floor(&apart), Some(0.5));
    let degenerate = VectorSpread::Degenerate {
        notes: 16,
        median: 0.99,
        spread: 0.003,
    };
    assert_eq!(neighbours_floor(&degenerate), None);
    assert_eq!(
        neighbours_floor(&VectorSpread::TooFewNotes { notes: 1 }),
        None
    );
}

#[test]
fn the_built_in_embedders_cosines_are_held_to_its_own_floors() {
    assert_eq!(search_floor(BUILTIN_EMBEDDER), BUILTIN_SEARCH_FLOOR);
    assert_eq!(related_floor(BUILTIN_EMBEDDER), BUILTIN_RELATED_FLOOR);
    assert_eq!(search_floor("nomic-embed-text"), SEARCH_FLOOR);
    assert_eq!(related_floor("nomic-embed-text"), RELATED_FLOOR);
    // e5 measured: "vegetable patch" against its tomato note 0.798, against the tax
    // note 0.741; the two tomato notes 0.894, the tomato and the tax notes 0.831.
    assert!(0.741 < search_floor(BUILTIN_EMBEDDER) && search_floor(BUILTIN_EMBEDDER) < 0.798);
    assert!(0.831 < related_floor(BUILTIN_EMBEDDER) && related_floor(BUILTIN_EMBEDDER) < 0.894);
}
