use super::*;

fn answer(line: &str) -> Value {
    match check_line(line.as_bytes()) {
        Verdict::Answer(text) => serde_json::from_str(&text).unwrap(),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn a_sound_request_passes_and_a_blank_line_is_skipped() {
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":[{"b":1},{"b":2}]}}"#;
    assert_eq!(check_line(line.as_bytes()), Verdict::Pass);
    assert_eq!(
        check_line(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\"}\r"),
        Verdict::Pass
    );
    assert_eq!(check_line(b"  \r"), Verdict::Skip);
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error() {
    for line in [
        "{\"jsonrpc\":\"2.0\",",
        "hello",
        "{\"a\":1} {\"b\":2}",
        "{\"a\":\"\\u12\"}",
    ] {
        let said = answer(line);
        assert_eq!(said["error"]["code"], -32700, "{line}: {said}");
        assert_eq!(said["id"], Value::Null, "{line}");
        assert_eq!(said["jsonrpc"], "2.0");
    }
    let said = check_line(b"{\"a\":\"\xff\"}");
    assert!(matches!(said, Verdict::Answer(text) if text.contains("-32700")));
}

#[test]
fn a_repeated_key_at_any_depth_is_an_invalid_request_answered_to_its_id() {
    let said = answer(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"capture_note","name":"delete"}}"#,
    );
    assert_eq!(said["error"]["code"], -32600, "{said}");
    assert_eq!(said["id"], 7);
    assert!(said["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"name\""));
    // Spelt differently, the same key.
    let said = answer(r#"{"jsonrpc":"2.0","id":"x","method":"a","\u006dethod":"b"}"#);
    assert_eq!(said["error"]["code"], -32600, "{said}");
    assert_eq!(said["id"], "x");
    // Two ids: which one is meant is unknown, so none is.
    let said = answer(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
    assert_eq!(said["error"]["code"], -32600, "{said}");
    assert_eq!(said["id"], Value::Null);
    let said = answer(r#"[{"a":1,"a":1}]"#);
    assert_eq!(said["error"]["code"], -32600, "{said}");
}

#[actix_rt::test]
async fn lines_go_to_rmcp_or_are_answered_and_an_overlong_one_is_not_kept() {
    let long = format!("{{\"a\":\"{}\"}}\n", "x".repeat(MAX_LINE));
    let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\nnot json\n\n{long}{{\"b\":2}}\n{{\"cut\""
        );
    let (to_rmcp, mut rmcp_reads) = tokio::io::duplex(1 << 20);
    let (answers, mut answered) = mpsc::unbounded_channel();
    read_in(input.as_bytes(), to_rmcp, answers).await;
    let mut passed = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut rmcp_reads, &mut passed)
        .await
        .unwrap();
    assert_eq!(
        passed,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"b\":2}\n"
    );
    assert!(answered.recv().await.unwrap().contains("-32700"));
    assert!(answered
        .recv()
        .await
        .unwrap()
        .contains("longer than 16 MiB"));
    assert_eq!(answered.recv().await, None);
}
