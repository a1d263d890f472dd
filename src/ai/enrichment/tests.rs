//! The enrichment prompt and the parsing of its answer, rule by rule.

use super::*;

/// The first call's prompt for a note, no tags offered.
fn note(body: &str) -> Prompt {
    prompt(body, &PromptTags::default(), None, 8192, OUTPUT_TOKENS)
}

#[test]
fn a_good_answer_is_accepted_with_tags_normalised() {
    let e = parse_enrichment(
        r#" {"title": " Plumber ", "tags": ["Home", "home", " repairs", ""], "summary": "Call the plumber."} "#,
        &note("call the plumber"),
    )
    .unwrap();
    assert_eq!(e.title, "Plumber");
    assert_eq!(e.tags, vec!["home", "repairs"]);
    assert_eq!(e.summary, "Call the plumber.");
}

#[test]
fn json_in_prose_or_a_fence_is_taken_out_and_extra_fields_ignored() {
    let fenced = "```json\n{\"title\": \"T\", \"tags\": [], \"summary\": \"S\"}\n```";
    assert_eq!(parse_enrichment(fenced, &note("x")).unwrap().title, "T");
    let prose = r#"Sure! Here it is: {"title": "A {brace} \"quoted\"", "tags": ["apple"], "summary": "S", "mood": "ok"} Hope that helps."#;
    let e = parse_enrichment(prose, &note("a quoted brace")).unwrap();
    assert_eq!(e.title, r#"A {brace} "quoted""#);
    assert_eq!(e.tags, ["apple"]);
}

#[test]
fn what_is_too_long_is_cut_and_what_is_missing_filled_in() {
    let long = format!("{} end", "word ".repeat(20));
    let e = parse_enrichment(
        &format!(r#"{{"title": "{long}", "tags": ["apple","berry","Apple","cherry","date","elder","fig", "", "x,y"], "summary": "{}"}}"#, "s ".repeat(200)),
        &note("a word or two"),
    )
    .unwrap();
    assert!(
        e.title.chars().count() <= MAX_TITLE_CHARS && e.title.ends_with("word…"),
        "{}",
        e.title
    );
    assert!(e.summary.chars().count() <= MAX_SUMMARY_CHARS && e.summary.ends_with('…'));
    assert_eq!(e.tags, ["apple", "berry", "cherry", "date", "elder"]);
    // A one-word note: no title, no summary. Its own text is its title.
    let e = parse_enrichment(
        r#"{"title": "", "tags": ["groceries"]}"#,
        &note("\n  milk\n"),
    )
    .unwrap();
    assert_eq!((e.title.as_str(), e.summary.as_str()), ("milk", ""));
    assert_eq!(e.tags, ["groceries"]);
}

#[test]
fn a_thinking_models_reasoning_is_not_taken_for_its_answer() {
    let answer = r#"{"title": "Plumber", "tags": ["home"], "summary": "Call him."}"#;
    for content in [
        format!("<think>The user wants {{\"title\"}}…</think>\n{answer}"),
        format!("reasoning with {{braces}} and no opening tag</think>{answer}"),
        format!("<thinking>hmm {{}}</thinking> {answer}"),
    ] {
        let e = parse_enrichment(&content, &note("call the plumber")).expect(&content);
        assert_eq!(e.title, "Plumber", "{content}");
    }
}

#[test]
fn the_system_prompt_carries_the_neighbours_tags_before_the_tags_in_use() {
    let tags = |in_use: &[&str], neighbours: &[&str]| PromptTags {
        in_use: in_use.iter().map(|t| t.to_string()).collect(),
        neighbours: neighbours.iter().map(|t| t.to_string()).collect(),
    };
    assert_eq!(
        system_prompt(&tags(&[], &[])),
        SYSTEM_PROMPT,
        "no tags: as it was"
    );
    let both = system_prompt(&tags(&["work", "kitchen"], &["running", "knee"]));
    let like = both
        .find(r#"Notes like this one are tagged: ["running","knee"]."#)
        .expect(&both);
    let in_use = both
        .find(r#"Tags already in use, most used first: ["work","kitchen"]."#)
        .expect(&both);
    assert!(like < in_use, "{both}");
    assert!(both.ends_with("use it exactly as written instead of a new word."));
    let vocabulary_only = system_prompt(&tags(&["work"], &[]));
    assert!(
        !vocabulary_only.contains("Notes like this one"),
        "{vocabulary_only}"
    );
    assert!(vocabulary_only.contains(r#"["work"]"#));
    let neighbours_only = system_prompt(&tags(&[], &["garden"]));
    assert!(
        !neighbours_only.contains("already in use"),
        "{neighbours_only}"
    );
    assert!(neighbours_only.ends_with("instead of a new word."));
    let many: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
    let capped = system_prompt(&PromptTags {
        in_use: Vec::new(),
        neighbours: many,
    });
    assert!(
        capped.contains(r#""t7"]"#) && !capped.contains("\"t8\""),
        "{capped}"
    );
}

#[test]
fn the_tags_in_use_are_offered_only_where_the_note_supports_them() {
    let tags = PromptTags {
        in_use: ["kitchen", "leaking", "plumber", "garden"]
            .map(String::from)
            .to_vec(),
        neighbours: Vec::new(),
    };
    let garden = prompt(
        "The garden needs mulch before the first frost",
        &tags,
        None,
        8192,
        OUTPUT_TOKENS,
    );
    let system = &garden.messages[0].content;
    assert!(
        system.contains(r#"Tags already in use, most used first: ["garden"]."#),
        "{system}"
    );
    let sourdough = prompt("Sourdough", &tags, None, 8192, OUTPUT_TOKENS);
    assert_eq!(sourdough.messages[0].content, SYSTEM_PROMPT, "none fits");
}

#[test]
fn an_answer_copying_the_prompt_or_the_schema_keeps_only_the_notes_own_tags() {
    // The tags a kitchen note left in use, offered to a garden note as neighbours'.
    let tags = PromptTags {
        in_use: Vec::new(),
        neighbours: ["kitchen", "leaking", "plumber"].map(String::from).to_vec(),
    };
    let garden = prompt(
        "The garden needs mulch before the first frost",
        &tags,
        None,
        8192,
        OUTPUT_TOKENS,
    );
    let answer = r#"{"title": "Mulch", "tags": ["title", "kitchen", "plumber", "summary", "mulch", "autumn"], "summary": "Mulch the garden."}"#;
    let e = parse_enrichment(answer, &garden).unwrap();
    assert_eq!(e.tags, ["mulch", "autumn"]);
}

#[test]
fn a_title_of_something_else_gives_way_to_the_notes_first_line() {
    let library = note("Return the two overdue library books\nand pay the fine");
    let answer = r#"{"title": "The Lost City of Eldrador", "tags": [], "summary": "S."}"#;
    let e = parse_enrichment(answer, &library).unwrap();
    assert_eq!(e.title, "Return the two overdue library books");
}

#[test]
fn a_word_of_the_instructions_is_never_a_tag_even_when_the_note_says_it() {
    // Said in the system prompt ("personal notes", "topic words"), in the sentences
    // that offer tags ("tagged") and in a retry's follow-up ("object"), whether or
    // not this prompt carried them.
    let meeting = note("Meeting notes: personal topic, the object tagged for review");
    let answer = r#"{"title": "Meeting", "tags": ["notes", "personal", "topic", "tagged", "object", "meeting", "review"], "summary": "A meeting."}"#;
    let e = parse_enrichment(answer, &meeting).unwrap();
    assert_eq!(e.tags, ["meeting", "review"]);
}

#[test]
fn a_retry_shows_the_model_its_answer_and_what_was_wrong_and_samples_anew() {
    let first = messages_json(&prompt("note", &PromptTags::default(), None, 2048, 512).messages);
    assert_eq!(first.as_array().map(Vec::len), Some(2));
    let refused = RefusedAnswer::new("\"tags\" is \"a\", not a list", r#"{"tags":"a"}"#, false);
    let retry =
        messages_json(&prompt("note", &PromptTags::default(), Some(&refused), 2048, 1024).messages);
    assert_eq!(retry[2]["role"], "assistant");
    assert_eq!(retry[2]["content"], r#"{"tags":"a"}"#);
    assert_eq!(retry[3]["role"], "user");
    let told = retry[3]["content"].as_str().unwrap_or_default();
    assert!(told.contains("not a list"), "{told}");
    assert_eq!(sampling(false, 0), Sampling::Greedy);
    match sampling(true, 2) {
        Sampling::Reseeded { temperature, seed } => {
            assert_eq!(seed, 2);
            assert!(temperature > 0.0);
        }
        Sampling::Greedy => panic!("a retry samples anew"),
    }
    assert_eq!(
        [
            output_tokens(0),
            output_tokens(1),
            output_tokens(2),
            output_tokens(9)
        ],
        [512, 1024, 2048, 2048]
    );
}

#[test]
fn a_note_that_fits_is_sent_whole_and_a_longer_one_keeps_its_beginning() {
    let (sent, read) = fit_note("short note", 8192, 300, 512);
    assert_eq!((sent, read), ("short note", None));
    let article = format!("Title line\n{}", "word ".repeat(20_000)); // ~100 KB
    let (sent, read) = fit_note(&article, 8192, 300, 512);
    assert!(sent.starts_with("Title line\n"), "the head is kept");
    let room = (8192 - 300 - 512 - TEMPLATE_TOKENS) * BYTES_PER_TOKEN;
    assert!(
        sent.len() <= room && sent.len() > room * 4 / 5,
        "{}",
        sent.len()
    );
    assert!(sent.ends_with("word"), "cut at a word");
    assert_eq!(read, Some(sent.chars().count() as u32));
    // Korean: cut on a character boundary, counted in characters.
    let korean = "가나다라 ".repeat(10_000);
    let (sent, read) = fit_note(&korean, 4096, 300, 512);
    assert!(korean.starts_with(sent));
    assert_eq!(read, Some(sent.chars().count() as u32));
    // No room at all: nothing of the note, said so.
    assert_eq!(fit_note("note", 100, 300, 512), ("", Some(0)));
}

#[test]
fn the_context_length_is_read_from_the_models_architecture() {
    let show = json!({ "model_info": {
        "general.architecture": "llama", "llama.context_length": 131072,
        "bert.context_length": 512 } });
    assert_eq!(context_length(&show), Some(131072));
    let other = json!({ "model_info": { "qwen3.context_length": 40960 } });
    assert_eq!(context_length(&other), Some(40960));
    assert_eq!(context_length(&json!({ "details": {} })), None);
}

#[test]
fn an_answer_with_nothing_usable_is_refused_with_a_reason() {
    let cases = [
        ("", "empty"),
        ("not json", "no complete JSON object"),
        (
            r#"{"title": "T", "tags": ["a", "b"#,
            "no complete JSON object",
        ),
        (r#"{"title": "T", "tags": 3, "summary": "S"}"#, "not a list"),
        (r#"{"title": "T", "tags": "a"}"#, "not a list"),
        (r#"{"title": 7, "tags": [], "summary": "S"}"#, "not text"),
        (r#"{"title": "T", "summary": 2}"#, "not text"),
    ];
    for (answer, expected) in cases {
        let err = parse_enrichment(answer, &note("a note")).unwrap_err();
        assert!(err.contains(expected), "{answer:?}: {err}");
    }
    assert!(
        parse_enrichment(r#"{"title": " "}"#, &note(" \n ")).is_err(),
        "nothing at all to title"
    );
}

/// Before (issue #43 point 7): the AI's title and summary kept raw NUL, ESC, BEL,
/// U+202E and line breaks, which a person's own title may not have.
#[test]
fn control_and_bidi_characters_in_the_models_fields_are_cleaned_like_a_persons_title() {
    let answer = serde_json::json!({
        "title": "Pay\u{0}the\u{1b}[31m bill\u{7}\n\ninvoice\u{202E}fdp.exe",
        "tags": ["bills"],
        "summary": "Line one.\r\n\tLine\u{2067} two.\u{202C}",
    })
    .to_string();
    let e = parse_enrichment(&answer, &note("Pay the bill: the invoice came")).unwrap();
    assert_eq!(e.title, "Pay the [31m bill invoicefdp.exe");
    assert_eq!(e.summary, "Line one. Line two.");
    assert!(crate::domain::parse_title(&e.title).is_ok());
    // A note too short to title: its first line, cleaned the same way.
    let e = parse_enrichment(r#"{"title": ""}"#, &note("\u{1b}]0;x\u{7} milk\u{202E}\n")).unwrap();
    assert_eq!(e.title, "]0;x milk");
}

#[test]
fn the_when_field_is_kept_only_in_the_note_s_own_words() {
    let plumber = note("Call the plumber   tomorrow at 9");
    let answer = |when: &str| {
        format!(r#"{{"title": "Plumber", "tags": [], "summary": "S", "when": {when}}}"#)
    };
    let phrase = |when: &str| {
        parse_enrichment(&answer(when), &plumber)
            .unwrap()
            .remind_phrase
    };
    assert_eq!(phrase(r#""Tomorrow at 9""#), Some("tomorrow at 9".into()));
    assert_eq!(phrase(r#""""#), None);
    assert_eq!(phrase("null"), None);
    // Invented, or the model's own date: dropped, the rest of the answer kept.
    assert_eq!(phrase(r#""tomorrow at 9:00 AM""#), None);
    assert_eq!(phrase(r#""2026-03-02T09:00""#), None);
    // Of the wrong type: an optional field, so not a failure of the answer.
    assert_eq!(phrase("9"), None);
    assert_eq!(phrase(r#"["tomorrow"]"#), None);
    // An answer without it (an older model's habit) is whole.
    let without = r#"{"title": "Plumber", "tags": [], "summary": "S"}"#;
    assert_eq!(
        parse_enrichment(without, &plumber).unwrap().remind_phrase,
        None
    );
}

#[test]
fn the_when_sentence_s_examples_are_no_instruction_words() {
    assert!(SYSTEM_PROMPT.contains(WHEN_FIELD));
    let fixed = fixed_instructions();
    assert!(
        !fixed.contains("friday") && !fixed.contains("화요일"),
        "{fixed}"
    );
    // A note about Friday may be tagged so.
    let e = parse_enrichment(
        r#"{"title": "Dentist", "tags": ["friday", "dentist"], "summary": "S", "when": "friday at 3pm"}"#,
        &note("Dentist on friday at 3pm"),
    )
    .unwrap();
    assert_eq!(e.tags, ["friday", "dentist"]);
    assert_eq!(e.remind_phrase.as_deref(), Some("friday at 3pm"));
}
