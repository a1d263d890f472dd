use super::*;

/// The same text as the page's "Save as note" writes (web/js/ask.js `answerNote`,
/// checked with the same notes by the browser test of the Ask state).
#[test]
fn a_saved_answer_links_its_notes_by_title_with_brackets_escaped() {
    let note = |id: &str, title: Option<&str>, body: &str| -> Note {
        serde_json::from_value(serde_json::json!({
            "id": id, "body": body, "title": title, "summary": null, "tags": [],
            "ai_status": "done", "ai_error": null,
            "created_at": "2026-12-06T00:00:00.000Z", "updated_at": "2026-12-06T00:00:00.000Z",
            "deleted_at": null, "kept_at": null,
        }))
        .expect("a note")
    };
    let notes = [
        note("a", Some("Bill [2026]"), "x"),
        note("b", None, "\n# first line\nmore"),
    ];
    assert_eq!(
        answer_note(" Q? ", "A [1] and [2].\n", &notes),
        "Q: Q?\n\nA [1] and [2].\n\n1. [Bill \\[2026\\]](/?note=a)\n2. [# first line](/?note=b)"
    );
}

#[test]
fn the_status_says_in_words_when_the_vectors_do_not_tell_notes_apart() {
    let status: ServiceStatus = serde_json::from_value(serde_json::json!({
        "version": "0.1.0", "locale": "en", "expiry_days": 30,
        "counts": { "pending": 0, "failed": 0, "expired": 0 },
        "provider": null,
        "worker": { "state": "idle", "queued": 0 },
        "vectors": { "state": "degenerate", "notes": 24, "median": 0.99, "spread": 0.004 },
        "actors": {},
    }))
    .expect("a status");
    let lines = status_lines(&status, "http://127.0.0.1:1", false);
    let line = lines
        .iter()
        .find(|l| l.starts_with("vectors: "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(line.contains("does not tell notes apart"), "{line}");
    assert!(line.contains("use a model made for embeddings"), "{line}");
}

#[test]
fn the_status_says_what_the_vectors_are_doing_and_keeps_the_actors_for_verbose() {
    let status: ServiceStatus = serde_json::from_value(serde_json::json!({
        "version": "0.1.0", "locale": "en", "expiry_days": 30,
        "counts": { "pending": 0, "failed": 0, "expired": 0 },
        "provider": null,
        "worker": { "state": "idle", "queued": 0 },
        "actors": { "repository": { "received": 3, "handled": 3, "waiting": 0,
                                    "busy_us": 10, "slowest_us": 5 } },
    }))
    .expect("a status");
    let lines = status_lines(&status, "http://127.0.0.1:1", false);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("related notes: off: the built-in embedder is turned off")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("received")), "{lines:?}");
    let verbose = status_lines(&status, "http://127.0.0.1:1", true);
    assert!(
        verbose.iter().any(|l| l.contains("received")),
        "{verbose:?}"
    );
}

#[test]
fn a_search_cut_by_its_limit_says_so_and_how_to_see_more() {
    assert_eq!(
        more_line(50, false),
        "the best 50 shown; more notes match (--limit N shows more, up to 500)"
    );
    assert!(more_line(2, true).contains("a larger --limit"));
}

#[test]
fn actor_counters_print_as_a_table_row_per_actor() {
    let counters = ActorCounters {
        received: 12,
        handled: 11,
        waiting: 1,
        busy_us: 2500,
        slowest_us: 900,
    };
    let actors = BTreeMap::from([("repository".to_string(), counters)]);
    let lines = describe_actors(&actors);
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("received") && lines[0].contains("waiting"));
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(row, ["repository", "12", "11", "1", "2.5", "0.9"]);
    assert!(describe_actors(&BTreeMap::new()).is_empty());
}

#[test]
fn bidirectional_controls_are_printed_escaped() {
    assert_eq!(
        printable("invoice\u{202E}gpj.exe", false),
        "invoice\\u{202e}gpj.exe"
    );
    assert_eq!(printable("\u{2067}x\u{2069}", false), "\\u{2067}x\\u{2069}");
    assert_eq!(printable("한국어 note", false), "한국어 note");
}

#[test]
fn control_characters_are_printed_escaped_and_line_breaks_kept_in_a_body() {
    let hostile = "title\u{1b}]0;owned\u{7}\r\nnext\tline";
    assert_eq!(
        printable(hostile, false),
        "title\\u{1b}]0;owned\\u{7}\\u{d}\\u{a}next\\u{9}line"
    );
    assert_eq!(
        printable(hostile, true),
        "title\\u{1b}]0;owned\\u{7}\\u{d}\nnext\tline"
    );
    let mut note: Note = serde_json::from_value(serde_json::json!({
        "id": "n1", "body": "x", "title": "\u{1b}[2J", "summary": null, "tags": [],
        "ai_status": "done", "ai_error": null, "created_at": "2026-03-01T12:00:00.000Z",
        "updated_at": "2026-03-01T12:00:00.000Z", "deleted_at": null, "kept_at": null
    }))
    .unwrap();
    assert!(!list_line(&note, &note.id).contains('\u{1b}'));
    assert!(!note_lines(&note).concat().contains('\u{1b}'));
    note.title = None;
    note.body = "\u{7}bell".into();
    assert!(list_line(&note, &note.id).ends_with("\\u{7}bell"));
}

#[test]
fn a_slow_note_is_described_in_plain_words_with_what_to_do() {
    let slow = SlowNote {
        note_id: "n".into(),
        timeouts: 3,
        request_timeout_ms: 120_000,
        next_deadline_ms: 600_000,
    };
    assert_eq!(
        describe_slow(&slow),
        "took longer than 2 min 3 times while Ollama was up; it will be tried with up \
         to 10 min. Shorten the note, or raise ollama.request_timeout_ms"
    );
    assert_eq!(plain_duration(90_000), "90 s");
    assert_eq!(
        describe_pull_step("downloading 6a07", Some(910_000_000), Some(2_019_377_376)),
        "downloading 6a07: 45 % (910 MB of 2.0 GB)"
    );
    assert_eq!(
        describe_pull_step("pulling manifest", None, None),
        "pulling manifest"
    );
    assert_eq!(plain_duration(500), "500 ms");
}

#[test]
fn counts_are_said_with_the_right_plural() {
    assert_eq!(
        signed_out_line(1),
        "signed out 1 inbox page; `inkling open` opens the inbox again"
    );
    assert_eq!(imported_line(1, 0), "imported 1 note");
    assert_eq!(
        imported_line(2, 1),
        "imported 2 notes; 1 skipped (a note with the same id is here already)"
    );
    assert_eq!(
        exported_line(1, std::path::Path::new("/x")),
        "exported 1 note to /x"
    );
    let renamed = TagRenamed {
        tag: "b".into(),
        notes: 1,
        merged: true,
    };
    assert_eq!(renamed_line("a", &renamed), "merged a into b (1 note)");
}
