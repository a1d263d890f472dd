use super::*;

fn message(bytes: &[u8]) -> String {
    crate::ai::transport::error_message(bytes)
}

#[test]
fn both_servers_answers_are_read_in_the_order_sent_and_their_refusals_told_apart() {
    let ollama = br#"{"model":"embeddinggemma","embeddings":[[0.1,0.2],[0.3,0.4]]}"#;
    assert_eq!(
        read_embeddings(200, ollama, message).unwrap(),
        vec![vec![0.1, 0.2], vec![0.3, 0.4]]
    );
    let openai = br#"{"object":"list","data":[{"index":1,"embedding":[2.0]},{"index":0,"embedding":[1.0]}]}"#;
    assert_eq!(
        read_embeddings(200, openai, message).unwrap(),
        vec![vec![1.0], vec![2.0]]
    );
    assert!(matches!(
        read_embeddings(200, br#"{"data":[{"embedding":"AAAA"}]}"#, message),
        Err(ProviderError::Invalid(_))
    ));
    let no = br#"{"error":{"code":501,"message":"This server does not support embeddings. Start it with `--embeddings`","type":"not_supported_error"}}"#;
    assert!(matches!(
        read_embeddings(501, no, message),
        Err(ProviderError::NoEmbeddings(_))
    ));
    let missing = br#"{"error":"model \"embeddinggemma\" not found, try pulling it first"}"#;
    assert!(matches!(
        embed_failure(&read_embeddings(404, missing, message).unwrap_err()),
        EmbedFailure::ModelMissing(_)
    ));
    let long = br#"{"error":"the input length exceeds the context length"}"#;
    assert!(matches!(
        read_embeddings(400, long, message),
        Err(ProviderError::ContextExceeded { .. })
    ));
}

#[test]
fn a_long_body_is_cut_at_a_break_to_the_embedding_models_context() {
    assert_eq!(embedding_text("short note", 512), "short note");
    let long = "word ".repeat(2_000);
    let cut = embedding_text(&long, 512);
    assert!(cut.len() <= (512 - 64) * 3, "{}", cut.len());
    assert!(cut.ends_with("word"), "cut at a word break: {cut:?}");
    // Korean: never inside a character.
    let korean = "사과를 먹었다 ".repeat(1_000);
    let cut = embedding_text(&korean, 256);
    assert!(korean.starts_with(cut) && !cut.is_empty());
}

#[test]
fn vectors_of_the_wrong_length_or_not_numbers_are_refused_and_the_rest_normalised() {
    let taken = accept_vectors(
        4,
        vec![
            vec![3.0, 4.0],
            vec![1.0, 0.0, 0.0],
            vec![f32::NAN, 1.0],
            vec![0.0, 0.0],
        ],
        Some(2),
    )
    .unwrap();
    assert_eq!(
        taken,
        vec![
            Ok(vec![0.6, 0.8]),
            Err(VectorRefused::WrongLength { got: 3, want: 2 }),
            Err(VectorRefused::NotNumbers),
            Err(VectorRefused::Zero),
        ]
    );
    assert_eq!(
        VectorRefused::WrongLength { got: 3, want: 2 }.to_string(),
        "a vector of 3 numbers where the model's have 2"
    );
    // The model's length not yet known: the first vector's is the rule.
    let taken = accept_vectors(2, vec![vec![1.0; 4], vec![1.0; 3]], None).unwrap();
    assert_eq!(taken[0].as_ref().map(Vec::len), Ok(4));
    assert!(taken[1].is_err());
    assert_eq!(
        accept_vectors(1, vec![vec![]], None).unwrap(),
        vec![Err(VectorRefused::Empty)]
    );
    assert_eq!(
        accept_vectors(2, vec![vec![1.0]], None),
        Err(VectorProblem::Count { asked: 2, got: 1 })
    );
}

#[test]
fn a_server_without_embeddings_is_told_from_a_missing_model_and_a_long_input() {
    assert!(says_no_embeddings(404, "File Not Found"));
    assert!(says_no_embeddings(
        501,
        "This server does not support embeddings. Start it with `--embeddings`"
    ));
    assert!(says_no_embeddings(
        400,
        "Pooling type 'none' is not OAI compatible. Please use a different pooling type"
    ));
    assert!(says_no_embeddings(
        400,
        "this model does not support embeddings"
    ));
    assert!(!says_no_embeddings(
        404,
        "model \"embeddinggemma\" not found, try pulling it first"
    ));
    assert!(!says_no_embeddings(500, "boom"));
    assert!(says_too_long(
        400,
        "the input length exceeds the context length"
    ));
    assert!(says_too_long(
        500,
        "input (596 tokens) is too large to process. increase the physical batch size"
    ));
    assert!(!says_too_long(500, "runner crashed"));
}

#[test]
fn a_failed_call_is_an_outage_a_missing_model_a_server_without_them_or_another_error() {
    let read = |e: ProviderError| embed_failure(&e);
    assert!(matches!(
        read(ProviderError::Unreachable("refused".into())),
        EmbedFailure::Outage(_)
    ));
    assert!(matches!(
        read(ProviderError::TimedOut("slow".into())),
        EmbedFailure::Outage(_)
    ));
    assert!(matches!(
        read(ProviderError::Status {
            code: 404,
            message: "model \"embeddinggemma\" not found, try pulling it first".into()
        }),
        EmbedFailure::ModelMissing(_)
    ));
    assert!(matches!(
        read(ProviderError::NoEmbeddings("no".into())),
        EmbedFailure::NotServed(_)
    ));
    assert!(matches!(
        read(ProviderError::ContextExceeded {
            prompt_tokens: None,
            context_tokens: None,
            message: "long".into()
        }),
        EmbedFailure::TooLong(_)
    ));
    assert!(matches!(
        read(ProviderError::Status {
            code: 500,
            message: "crash".into()
        }),
        EmbedFailure::Other(_)
    ));
}
