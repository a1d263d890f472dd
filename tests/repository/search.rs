//! Search: ranking, matching inside words and in any script, filters, snippets, an
//! upgraded database, and the index the query goes through.

use chrono::Duration;
use inkling::domain::{AiStatus, ListFilter};
use inkling::storage::Store;

use crate::{assert_invariants, capture, enriched, save_answer, store, t0, EXPIRY_DAYS};

/// The ids a search for `text` finds, best first.
pub(crate) fn search(store: &Store, text: &str, filter: &ListFilter) -> Vec<String> {
    let query = inkling::storage::SearchQuery::parse(text).unwrap();
    store
        .search(&query, filter, t0())
        .unwrap()
        .into_iter()
        .map(|hit| hit.note.id)
        .collect()
}

#[test]
fn search_ranks_a_title_match_over_a_tag_over_the_body_and_ties_newest_first() {
    let mut store = store();
    let in_body_old = capture(&mut store, "a soup with tomatoes", t0());
    let in_body_new = capture(&mut store, "tomatoes again", t0() + Duration::minutes(1));
    let in_tags = capture(&mut store, "dinner plans", t0());
    save_answer(
        &mut store,
        &in_tags,
        &enriched("Dinner", &["tomatoes"]),
        t0(),
    )
    .unwrap();
    let in_title = capture(&mut store, "what to plant", t0());
    save_answer(
        &mut store,
        &in_title,
        &enriched("Tomatoes for the garden", &["garden"]),
        t0(),
    )
    .unwrap();
    capture(&mut store, "nothing red here", t0());

    let all = ListFilter::default();
    // The beginning of a word finds it; case does not matter.
    assert_eq!(
        search(&store, "TOMAT", &all),
        [
            in_title.clone(),
            in_tags.clone(),
            in_body_new.clone(),
            in_body_old.clone()
        ]
    );
    // Every word must be there.
    assert_eq!(
        search(&store, "tomatoes soup", &all),
        std::slice::from_ref(&in_body_old)
    );
    assert!(search(&store, "tomatoes zucchini", &all).is_empty());
    assert_invariants(&store);
}

#[test]
fn search_matches_inside_words_in_scripts_without_spaces_and_short_words_too() {
    let mut store = store();
    let apples = capture(&mut store, "오늘은 사과를 샀다", t0());
    let pie = capture(&mut store, "사과파이 만들기", t0() + Duration::minutes(1));
    capture(&mut store, "배를 샀다", t0());
    let all = ListFilter::default();
    // Two syllables: no trigram, matched all the same.
    assert_eq!(search(&store, "사과", &all), [pie.clone(), apples.clone()]);
    // Three: through the index, inside a longer word.
    assert_eq!(search(&store, "사과파", &all), std::slice::from_ref(&pie));
    assert_eq!(search(&store, "샀다 사과", &all), [apples]);
    // Nothing the user types is query syntax.
    for odd in ["\"", "a*", "NOT", "(", "title:x", "50%", "_"] {
        assert!(search(&store, odd, &all).is_empty(), "{odd}");
    }
}

#[test]
fn search_combines_with_status_tag_and_trash_and_never_shows_a_stale_or_trashed_note() {
    let mut store = store();
    let pending = capture(&mut store, "call the plumber", t0());
    let done = capture(&mut store, "plumber invoice", t0());
    save_answer(&mut store, &done, &enriched("Invoice", &["house"]), t0()).unwrap();
    let trashed = capture(&mut store, "plumber was late", t0());
    store.trash(&trashed, t0()).unwrap();

    let filter = |status, tag: Option<&str>, trash| ListFilter {
        status,
        tag: tag.map(str::to_string),
        trash,
        ..ListFilter::default()
    };
    assert_eq!(
        search(
            &store,
            "plumber",
            &filter(Some(AiStatus::Pending), None, false)
        ),
        std::slice::from_ref(&pending)
    );
    assert_eq!(
        search(&store, "plumber", &filter(None, Some("house"), false)),
        std::slice::from_ref(&done)
    );
    assert_eq!(
        search(&store, "plumber", &filter(None, None, true)),
        std::slice::from_ref(&trashed)
    );
    assert!(!search(&store, "plumber", &ListFilter::default()).contains(&trashed));

    // The enrichment's title is searchable at once, in the same write.
    assert_eq!(
        search(&store, "invoice", &ListFilter::default()),
        std::slice::from_ref(&done)
    );
    // A note deleted for good (the trash purge) is gone from the index.
    store
        .purge_trash(t0() + Duration::days(1), t0() + Duration::days(1))
        .unwrap();
    assert!(search(&store, "late", &filter(None, None, true)).is_empty());
    assert_invariants(&store);
}

#[test]
fn a_hits_snippet_marks_the_words_in_its_body() {
    let mut store = store();
    capture(
        &mut store,
        "First line.\nThen the tomatoes, and more tomatoes.",
        t0(),
    );
    let query = inkling::storage::SearchQuery::parse("tomato").unwrap();
    let hits = store.search(&query, &ListFilter::default(), t0()).unwrap();
    let marked = inkling::storage::search::bracketed(&hits[0].snippet);
    assert_eq!(
        marked,
        "First line. Then the [tomato]es, and more [tomato]es."
    );
}

#[test]
fn notes_stored_before_search_existed_are_found_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    {
        // A database as the release before search left it: migrations 1 and 2.
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        inkling::storage::migrations::migrate(
            &mut conn,
            &inkling::storage::migrations::MIGRATIONS[..2],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO notes (id, body, title, tags, ai_status, created_at, updated_at)
             VALUES ('old', 'an old thought about kimchi', 'Fermenting', '[\"food\"]', 'done',
                     '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
            [],
        )
        .unwrap();
    }
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let all = ListFilter::default();
    assert_eq!(search(&store, "kimchi", &all), ["old"]);
    assert_eq!(search(&store, "ferment", &all), ["old"]);
    assert_eq!(search(&store, "food", &all), ["old"]);
    assert_invariants(&store);
}

#[test]
fn a_filtered_search_is_exact_even_when_its_hits_rank_below_the_first_candidates() {
    let mut store = store();
    let mut trashed = Vec::new();
    let mut failed = Vec::new();
    for i in 0..260 {
        // Longer bodies rank lower: the filtered ones rank last of all.
        let id = if i < 10 {
            capture(
                &mut store,
                &format!("tomato {i} {}", "and more words ".repeat(20)),
                t0(),
            )
        } else {
            capture(&mut store, &format!("tomato {i}"), t0())
        };
        if i < 5 {
            store.trash(&id, t0()).unwrap();
            trashed.push(id);
        } else if i < 10 {
            store.mark_ai_failed(&id, "schema: bad", t0()).unwrap();
            failed.push(id);
        }
    }
    let mut found = search(
        &store,
        "tomato",
        &ListFilter {
            trash: true,
            ..ListFilter::default()
        },
    );
    found.sort();
    trashed.sort();
    assert_eq!(found, trashed);
    let mut found = search(
        &store,
        "tomato",
        &ListFilter {
            status: Some(AiStatus::Failed),
            ..ListFilter::default()
        },
    );
    found.sort();
    failed.sort();
    assert_eq!(found, failed);
    assert_eq!(search(&store, "tomato", &ListFilter::default()).len(), 50);
}

/// More notes with a word than a search ranks (`storage::search::CANDIDATES`).
const PAST_THE_THRESHOLD: usize = inkling::storage::search::CANDIDATES as usize + 100;

#[test]
fn past_the_threshold_a_common_words_newest_matches_come_first_and_a_title_still_leads() {
    let mut store = store();
    // The oldest note has the word in its title; the next oldest have it in the
    // shortest bodies, which BM25 would put first of the body matches.
    let titled = capture(&mut store, "what to plant", t0());
    save_answer(
        &mut store,
        &titled,
        &enriched("Tomato plan", &["garden"]),
        t0(),
    )
    .unwrap();
    let mut bodies = Vec::new();
    for i in 0..PAST_THE_THRESHOLD {
        let text = if i < 100 {
            "tomato".to_string()
        } else {
            format!("tomato {i}, and a longer thought about the rest of the day")
        };
        let at = t0() + Duration::minutes(i as i64 + 1);
        bodies.push(capture(&mut store, &text, at));
    }
    let found = search(&store, "tomato", &ListFilter::default());
    let newest: Vec<String> = bodies.iter().rev().take(49).cloned().collect();
    assert_eq!(found[0], titled, "a title match leads");
    assert_eq!(found[1..], newest[..], "then the newest body matches");

    // Past the threshold, a search of the trash still finds an old note there.
    store.trash(&bodies[3], t0()).unwrap();
    let trash = ListFilter {
        trash: true,
        ..ListFilter::default()
    };
    assert_eq!(search(&store, "tomato", &trash), [bodies[3].clone()]);
    assert_invariants(&store);
}

#[test]
fn two_words_meet_however_common_one_of_them_is() {
    let mut store = store();
    // The rare word's notes are older than the common word's newest matches.
    let old: Vec<String> = (0..3)
        .map(|i| capture(&mut store, &format!("tomato and zucchini {i}"), t0()))
        .collect();
    let in_body_tagged = capture(&mut store, "a zucchini bread", t0());
    save_answer(
        &mut store,
        &in_body_tagged,
        &enriched("Bread", &["tomatoes"]),
        t0(),
    )
    .unwrap();
    for i in 0..PAST_THE_THRESHOLD {
        let at = t0() + Duration::minutes(i as i64 + 1);
        capture(&mut store, &format!("tomato {i}"), at);
    }
    let titled = capture(&mut store, "tomato soup", t0() + Duration::days(1));
    save_answer(
        &mut store,
        &titled,
        &enriched("Zucchini too", &["soup"]),
        t0(),
    )
    .unwrap();

    let mut found = search(&store, "tomato zucchini", &ListFilter::default());
    assert_eq!(found[0], titled, "the title match first");
    found.sort();
    let mut expected = old.clone();
    expected.extend([in_body_tagged.clone(), titled.clone()]);
    expected.sort();
    assert_eq!(found, expected);
    // A short word beside them is checked on the notes they found.
    assert_eq!(
        search(&store, "zucchini tomato 1", &ListFilter::default()),
        [old[1].clone()]
    );
}

#[test]
fn two_common_words_only_in_bodies_find_their_newest_notes_and_a_rare_pair_its_old_ones() {
    let mut store = store();
    let old: Vec<String> = (0..2)
        .map(|i| capture(&mut store, &format!("tomato and rhubarb {i}"), t0()))
        .collect();
    // Both words past the threshold: every match ranks alike, newest first.
    let mut both = Vec::new();
    for i in 0..2 * PAST_THE_THRESHOLD {
        let at = t0() + Duration::minutes(i as i64 + 1);
        let text = if i % 2 == 0 {
            format!("tomato garden {i}")
        } else {
            format!("tomato {i}")
        };
        let id = capture(&mut store, &text, at);
        if i % 2 == 0 {
            both.push(id);
        }
    }
    let newest: Vec<String> = both.iter().rev().take(50).cloned().collect();
    assert_eq!(
        search(&store, "garden tomato", &ListFilter::default()),
        newest
    );
    let mut found = search(&store, "rhubarb tomato", &ListFilter::default());
    found.sort();
    assert_eq!(found, old);
}

#[test]
fn a_search_reads_the_index_and_joins_its_candidates_by_key() {
    use inkling::storage::search::CANDIDATES;
    let mut store = store();
    // More matches than are ranked, so that the capped query (a word's newest
    // CANDIDATES matches) is the one planned, as for a common word.
    for i in 0..CANDIDATES as usize + 100 {
        let id = capture(&mut store, &format!("tomato note {i}"), t0());
        if i % 3 == 0 {
            save_answer(&mut store, &id, &enriched("Title", &["t"]), t0()).unwrap();
        }
    }
    let query = inkling::storage::SearchQuery::parse("tomato").unwrap();
    for filter in [
        ListFilter::default(),
        ListFilter {
            tag: Some("t".into()),
            ..ListFilter::default()
        },
        ListFilter {
            trash: true,
            status: Some(AiStatus::Done),
            ..ListFilter::default()
        },
    ] {
        for candidates in [Some(CANDIDATES), None] {
            let (sql, args) = store
                .search_query(&query, &filter, t0(), candidates)
                .unwrap();
            assert_eq!(
                sql.contains("rowid DESC LIMIT ?"),
                candidates.is_some(),
                "a bounded search reads each word's newest matches only: {sql}"
            );
            let plan = store.query_plan(&sql, &args).unwrap();
            let text = plan.join(" | ");
            assert!(
                plan.iter().any(|s| s.contains("VIRTUAL TABLE INDEX")),
                "the match goes through the FTS5 index: {text}"
            );
            assert!(
                !plan.iter().any(|s| {
                    let mut words = s.split_whitespace();
                    words.next() == Some("SCAN") && matches!(words.next(), Some("k" | "n" | "t"))
                }),
                "the notes and keys are looked up, not scanned: {text}"
            );
        }
    }
}

#[test]
fn a_database_at_migration_5_finds_the_same_notes_after_the_index_is_split() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let queries = [
        "kimchi",
        "KIMCHI",
        "food",
        "kim food",
        "사과",
        "사과를",
        "plant",
        "oes",
        "nothing",
    ];
    let before: Vec<Vec<String>> = {
        // A database as the release before the split left it, its notes written as
        // the store wrote them (the note, its note_tags rows; triggers the rest).
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        inkling::storage::migrations::migrate(
            &mut conn,
            &inkling::storage::migrations::MIGRATIONS[..5],
        )
        .unwrap();
        let notes: [(&str, Option<&str>, &[&str], &str); 4] = [
            (
                "n1",
                Some("Kimchi stew"),
                &["food", "korean"],
                "from grandma",
            ),
            ("n2", Some("Groceries"), &["food"], "buy kimchi and 사과"),
            ("n3", None, &[], "오늘은 사과를 샀다 kimchi"),
            ("n4", Some("Garden"), &["plants"], "tomatoes"),
        ];
        for (i, (id, title, tags, body)) in notes.iter().enumerate() {
            let at = format!("2026-01-01T00:00:0{i}.000Z");
            conn.execute(
                "INSERT INTO notes (id, body, title, tags, ai_status, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'done', ?5, ?5)",
                rusqlite::params![id, body, title, serde_json::to_string(tags).unwrap(), at],
            )
            .unwrap();
            for tag in tags.iter() {
                conn.execute(
                    "INSERT INTO note_tags (tag, note_id) VALUES (?1, ?2)",
                    [tag, id],
                )
                .unwrap();
            }
        }
        // What the old index found, best first (its own query: one table, BM25 10/5/1).
        queries
            .iter()
            .map(|text| {
                let query = inkling::storage::SearchQuery::parse(text).unwrap();
                let mut sql = String::from(
                    "SELECT k.note_id FROM notes_search s JOIN note_search_keys k ON k.key = s.rowid WHERE 1",
                );
                let mut args: Vec<String> = Vec::new();
                if let Some(expression) = query.index_expression() {
                    sql.push_str(" AND notes_search MATCH ?");
                    args.push(expression);
                }
                for pattern in query.short_word_patterns() {
                    sql.push_str(" AND (s.title LIKE ?1 ESCAPE '\\' OR s.tags LIKE ? ESCAPE '\\' OR s.body LIKE ? ESCAPE '\\')");
                    args.extend([pattern.clone(), pattern.clone(), pattern]);
                }
                sql.push_str(" ORDER BY bm25(notes_search, 10.0, 5.0, 1.0), k.note_id DESC");
                let mut stmt = conn.prepare(&sql.replace("?1", "?")).unwrap();
                stmt.query_map(rusqlite::params_from_iter(args), |r| r.get(0))
                    .unwrap()
                    .collect::<Result<Vec<String>, _>>()
                    .unwrap()
            })
            .collect()
    };
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    assert_eq!(
        inkling::storage::migrations::current_version(store.connection()).unwrap(),
        inkling::storage::migrations::MIGRATIONS.len()
    );
    for (text, found_before) in queries.iter().zip(before) {
        let found_after = search(&store, text, &ListFilter::default());
        let (mut was, mut is) = (found_before.clone(), found_after.clone());
        was.sort();
        is.sort();
        assert_eq!(is, was, "{text}: the same notes ({found_before:?} before)");
        // A title match first, before and after.
        if *text == "kimchi" {
            assert_eq!(
                (found_before[0].as_str(), found_after[0].as_str()),
                ("n1", "n1")
            );
        }
    }
    assert_eq!(search(&store, "kimchi", &ListFilter::default()).len(), 3);
    assert_invariants(&store);
}

/// The structure record of an FTS5 index (its segments; row 10 of its `_data` table):
/// the same bytes before and after a write means the write changed nothing in it.
fn index_structure(store: &Store, index: &str) -> Vec<u8> {
    store
        .connection()
        .query_row(
            &format!("SELECT block FROM {index}_data WHERE id = 10"),
            [],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn an_answers_save_rewrites_the_title_index_only_and_an_edit_of_the_body_the_body_index_only() {
    let mut store = store();
    let id = capture(&mut store, "the plumber comes on friday", t0());
    // Its entries are written behind the capture: written now, to compare from here.
    assert_eq!(store.index_pending().unwrap(), 1);
    let bodies = index_structure(&store, "search_bodies");
    let titles = index_structure(&store, "search_titles");
    let tags = index_structure(&store, "search_tags");

    save_answer(
        &mut store,
        &id,
        &enriched("Plumber visit", &["house"]),
        t0(),
    )
    .unwrap();
    assert_eq!(
        index_structure(&store, "search_bodies"),
        bodies,
        "the body's index is untouched"
    );
    assert_ne!(index_structure(&store, "search_titles"), titles);
    assert_ne!(
        index_structure(&store, "search_tags"),
        tags,
        "a new tag is indexed once"
    );
    let all = ListFilter::default();
    assert_eq!(search(&store, "visit", &all), std::slice::from_ref(&id));
    assert_eq!(search(&store, "house", &all), std::slice::from_ref(&id));

    // A tag already in use: no index changes but the title's.
    let other = capture(&mut store, "the roof leaks", t0());
    store.index_pending().unwrap();
    let (bodies, tags) = (
        index_structure(&store, "search_bodies"),
        index_structure(&store, "search_tags"),
    );
    save_answer(&mut store, &other, &enriched("Roof", &["house"]), t0()).unwrap();
    assert_eq!(index_structure(&store, "search_bodies"), bodies);
    assert_eq!(index_structure(&store, "search_tags"), tags);
    assert_eq!(search(&store, "house", &all).len(), 2);

    // An edit of the body alone leaves the titles' index alone.
    let titles = index_structure(&store, "search_titles");
    let edit =
        inkling::domain::NoteEdit::parse(Some("the roof leaks badly".into()), None, None, 65536)
            .unwrap();
    store.edit(&other, &edit, t0()).unwrap();
    assert_eq!(index_structure(&store, "search_titles"), titles);
    assert_eq!(search(&store, "badly", &all), std::slice::from_ref(&other));
    assert_invariants(&store);
}

/// A question's words are searched each alone in one read: each word's hits are what
/// its own search finds, in the words' order, held to the same filter.
#[test]
fn each_word_searched_in_one_read_finds_what_its_own_search_finds() {
    let mut store = store();
    let tomato = capture(&mut store, "tomato soup", t0());
    let basil = capture(&mut store, "basil and tomato", t0() + Duration::minutes(1));
    capture(&mut store, "nothing of the kind", t0());
    let filter = ListFilter::default();
    let queries: Vec<_> = ["tomato", "basil", "zephyr"]
        .iter()
        .map(|word| inkling::storage::SearchQuery::parse(word).unwrap())
        .collect();
    let found: Vec<Vec<String>> = store
        .search_each(&queries, &filter, t0())
        .unwrap()
        .into_iter()
        .map(|hits| hits.into_iter().map(|hit| hit.note.id).collect())
        .collect();
    assert_eq!(
        found,
        [
            search(&store, "tomato", &filter),
            search(&store, "basil", &filter),
            Vec::new()
        ]
    );
    let mut with_tomato = found[0].clone();
    with_tomato.sort();
    assert_eq!(with_tomato, [tomato, basil.clone()]);
    assert_eq!(found[1], [basil]);
    let failed = ListFilter {
        status: Some(AiStatus::Failed),
        ..ListFilter::default()
    };
    let held = store.search_each(&queries, &failed, t0()).unwrap();
    assert!(held.iter().all(Vec::is_empty), "held to the filter");
    assert!(store.search_each(&[], &filter, t0()).unwrap().is_empty());
}
