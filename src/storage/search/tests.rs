use super::*;

fn words(text: &str) -> Vec<String> {
    SearchQuery::parse(text).unwrap().words
}

#[test]
fn a_query_is_its_words_lowercased_once_each() {
    assert_eq!(words("  Tomato  soup tomato "), ["tomato", "soup"]);
    assert_eq!(SearchQuery::parse("   "), Err(SearchQueryError::Empty));
    for control in ['\0', '\u{1b}', '\u{7f}'] {
        let refused = SearchQuery::parse(&format!("tomato{control}soup"));
        assert!(
            matches!(refused, Err(SearchQueryError::ControlCharacter(_))),
            "{control:?}: {refused:?}"
        );
    }
    assert!(
        SearchQuery::parse("tomato\tsoup\n").is_ok(),
        "tabs and newlines part words"
    );
    let long = "x".repeat(MAX_QUERY_CHARS + 1);
    assert_eq!(
        SearchQuery::parse(&long),
        Err(SearchQueryError::TooLong(501))
    );
}

#[test]
fn long_words_go_to_the_index_quoted_and_short_ones_to_like() {
    let query = SearchQuery::parse(r#"tomat "Quoted" 사과 5%"#).unwrap();
    assert_eq!(
        query.index_expression().as_deref(),
        Some(r#""tomat" """quoted""""#)
    );
    assert_eq!(query.short_word_patterns(), ["%사과%", "%5\\%%"]);
    assert_eq!(SearchQuery::parse("ab").unwrap().index_expression(), None);
}

#[test]
fn past_the_threshold_a_fields_matches_are_estimated_from_how_densely_they_lie() {
    let rare = FieldMatches {
        found: 12,
        oldest_key: 3,
    };
    assert!(!rare.capped());
    assert_eq!(rare.notes_with(100_000), 12.0);
    // The newest 501 matches among the newest 1,002 notes: about half of them.
    let common = FieldMatches {
        found: u64::from(CANDIDATES) + 1,
        oldest_key: 100_000 - 1_001,
    };
    assert!(common.capped());
    assert_eq!(common.notes_with(100_000), 50_000.0);
    // Never more notes than there are.
    let everywhere = FieldMatches {
        found: u64::from(CANDIDATES) + 1,
        oldest_key: 100_000,
    };
    assert_eq!(everywhere.notes_with(100_000), 100_000.0);
}

#[test]
fn a_bounded_search_runs_again_only_when_it_came_up_short_and_left_matches_out() {
    assert!(!needs_exact_run(50, 50, true), "a full page");
    assert!(
        !needs_exact_run(3, 50, false),
        "short, but nothing was left out"
    );
    assert!(needs_exact_run(3, 50, true));
}

#[test]
fn a_snippet_marks_every_match_near_the_first_one() {
    let body = "Buy Tomatoes and basil.\nThe tomato sauce needs time.";
    assert_eq!(
        bracketed(&snippet(body, &words("tomat"))),
        "Buy [Tomat]oes and basil. The [tomat]o sauce needs time."
    );
    let long = format!("{}the word{}", "a".repeat(200), "b".repeat(200));
    let cut = bracketed(&snippet(&long, &words("word")));
    assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
    assert!(cut.contains("the [word]"), "{cut}");
    assert!(cut.chars().count() < 200, "{cut}");
}

#[test]
fn a_snippet_matches_inside_words_of_any_script_and_falls_back_to_the_start() {
    assert_eq!(
        bracketed(&snippet("오늘은 사과를 샀다", &words("사과"))),
        "오늘은 [사과]를 샀다"
    );
    assert_eq!(
        bracketed(&snippet("nothing here", &words("title-only"))),
        "nothing here"
    );
}
