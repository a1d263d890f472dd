//! The unit tests of `ollama.rs`: what the client reads from Ollama's answers.

use super::*;

fn answer(json: &str) -> Result<Enrichment, ProviderError> {
    let plan = CallPlan::first_try("a note", &[], std::time::Duration::from_secs(120), 2048);
    check_chat_answer(serde_json::from_str(json).unwrap(), &plan.prompt)
}

#[test]
fn a_complete_answer_yields_the_enrichment() {
    let e = answer(
        r#"{"message": {"role": "assistant", "content": "{\"title\":\"T\",\"tags\":[\"a\"],\"summary\":\"S\"}"},
            "done": true, "done_reason": "stop", "total_duration": 5}"#,
    )
    .unwrap();
    assert_eq!(e.title, "T");
}

#[test]
fn incomplete_truncated_load_only_and_empty_answers_are_invalid() {
    let cases = [
        (
            r#"{"message": {"content": "{}"}, "done": false}"#,
            "incomplete",
        ),
        (r#"{"message": {"content": "{}"}}"#, "incomplete"),
        (
            r#"{"message": {"content": "{\"title\":\"Foo\",\"tags\":[\"a\",\"b"}, "done": true, "done_reason": "length"}"#,
            "cut off",
        ),
        (
            r#"{"message": {"content": ""}, "done": true, "done_reason": "load"}"#,
            "only loaded",
        ),
        (
            r#"{"message": {"content": ""}, "done": true, "done_reason": "stop"}"#,
            "empty",
        ),
    ];
    for (json, expected) in cases {
        match answer(json) {
            Err(error @ (ProviderError::Invalid(_) | ProviderError::Unusable(_))) => {
                let message = error.to_string();
                assert!(message.contains(expected), "{json}: {message}")
            }
            other => panic!("{json}: {other:?}"),
        }
    }
}

#[test]
fn a_refused_answer_keeps_what_the_model_wrote_and_whether_it_was_cut_off() {
    let cut = answer(
        r#"{"message": {"content": "{\"title\":\"Foo\",\"tags\":[\"a"}, "done": true, "done_reason": "length"}"#,
    );
    match cut {
        Err(ProviderError::Unusable(refused)) => {
            assert!(refused.cut_off);
            assert_eq!(refused.answer, r#"{"title":"Foo","tags":["a"#);
        }
        other => panic!("{other:?}"),
    }
    // Cut at the limit, but complete before it: used.
    let complete = answer(
        r#"{"message": {"content": "{\"title\":\"T\",\"tags\":[],\"summary\":\"S\"} and more"}, "done": true, "done_reason": "length"}"#,
    );
    assert_eq!(complete.map(|e| e.title).ok().as_deref(), Some("T"));
    match answer(
        r#"{"message": {"content": "{\"title\":\"T\",\"tags\":\"a\"}"}, "done": true, "done_reason": "stop"}"#,
    ) {
        Err(ProviderError::Unusable(refused)) => {
            assert!(!refused.cut_off);
            assert!(
                refused.problem.contains("not a list"),
                "{}",
                refused.problem
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn odd_diagnostic_figures_never_cost_an_answer() {
    let e = answer(
        r#"{"message": {"content": "{\"title\":\"T\",\"tags\":[],\"summary\":\"S\"}"},
            "done": true, "done_reason": "stop", "prompt_eval_count": 12.5,
            "eval_duration": "soon", "prompt_eval_duration": -1}"#,
    );
    assert_eq!(e.map(|e| e.title).ok().as_deref(), Some("T"));
}

#[test]
fn an_error_line_in_a_200_answer_is_a_server_error() {
    assert!(matches!(
        answer(r#"{"error": "an error was encountered while running the model"}"#),
        Err(ProviderError::Status { code: 500, .. })
    ));
}

#[test]
fn model_names_match_with_an_implicit_latest_tag_and_any_case() {
    assert!(same_model("llama3.2:latest", "llama3.2"));
    assert!(same_model("Llama3.2:latest", "llama3.2:LATEST"));
    assert!(!same_model("llama3.2:1b", "llama3.2"));
    assert!(!same_model("", "llama3.2"));
}

#[test]
fn pull_lines_are_progress_errors_or_nothing() {
    let step = pull_line(br#"{"status":"downloading 6a0746a1ec1a","digest":"sha256:6a07","total":2019377376,"completed":241970}"#);
    assert_eq!(
        step,
        Some(Ok(PullProgress {
            status: "downloading 6a0746a1ec1a".into(),
            completed: Some(241970),
            total: Some(2019377376),
        }))
    );
    assert!(matches!(
        pull_line(br#"{"error":"pull model manifest: file does not exist"}"#),
        Some(Err(ProviderError::Status { .. }))
    ));
    assert_eq!(pull_line(b"  \r\n"), None);
}

#[test]
fn error_bodies_give_their_message() {
    assert_eq!(
        error_message(br#"{"error":"model 'x' not found"}"#),
        "model 'x' not found"
    );
    assert_eq!(error_message(b"404 page not found"), "404 page not found");
}

#[test]
fn a_streamed_answer_is_read_a_line_a_piece_until_done() {
    assert_eq!(
        chat_line(
            r#"{"model":"m","message":{"role":"assistant","content":"Water [1]"},"done":false}"#
        ),
        LineSays::Text("Water [1]".into())
    );
    assert_eq!(
        chat_line(
            r#"{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":9}"#
        ),
        LineSays::End
    );
    assert_eq!(chat_line(""), LineSays::Nothing);
    assert!(matches!(
        chat_line(r#"{"error":"an error was encountered while running the model"}"#),
        LineSays::Failed(ProviderError::Status { code: 500, .. })
    ));
    assert!(matches!(
        chat_line("<html>"),
        LineSays::Failed(ProviderError::Invalid(_))
    ));
}

#[test]
fn a_streamed_answer_is_put_together_and_read_as_the_unstreamed_one() {
    let lines = [
        r#"{"model":"llama3.2","message":{"role":"assistant","content":"{\"title\": \"Call"},"done":false}"#,
        "",
        r#"{"model":"llama3.2","message":{"role":"assistant","content":" the plumber\", \"tags\": [\"home\"], \"summary\": \"The tap leaks.\"}"},"done":false}"#,
        r#"{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":120,"eval_count":20}"#,
    ];
    let mut streamed = StreamedChat::default();
    let ends: Vec<bool> = lines.iter().map(|l| streamed.line(l).unwrap()).collect();
    assert_eq!(ends, [false, false, false, true]);
    let whole = streamed.whole();
    assert_eq!(whole["prompt_eval_count"], 120);
    let e = answer(&whole.to_string()).unwrap();
    assert_eq!(e.summary, "The tap leaks.");

    // Ollama's error line mid-answer, and a line that is not its JSON.
    let mut streamed = StreamedChat::default();
    assert!(matches!(
        streamed.line(r#"{"error":"model runner has unexpectedly stopped"}"#),
        Err(ProviderError::Status { code: 500, .. })
    ));
    assert!(matches!(
        streamed.line("<html>oops</html>"),
        Err(ProviderError::Invalid(_))
    ));
    // A body that ended without `done`: the reader says the answer is incomplete.
    let mut streamed = StreamedChat::default();
    streamed.line(lines[0]).unwrap();
    assert!(matches!(
        answer(&streamed.whole().to_string()),
        Err(ProviderError::Invalid(_))
    ));
}
