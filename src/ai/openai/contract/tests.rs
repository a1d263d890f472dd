//! The contract's readings, over answers the real servers gave (llama.cpp's
//! `llama-server` with Gemma 3 270M, measured; vLLM's and LM Studio's from their
//! trackers).

use super::*;

fn plan(body: &str) -> CallPlan {
    CallPlan::first_try(body, &[], std::time::Duration::from_secs(120), 2048)
}

#[test]
fn the_request_asks_for_the_schema_and_steps_down_to_json_then_plain() {
    let first = chat_request(
        "gemma-3-270m",
        &plan("call the plumber"),
        OutputFormat::JsonSchema,
    );
    assert_eq!(first["response_format"]["type"], "json_schema");
    assert_eq!(
        first["response_format"]["json_schema"]["schema"]["required"],
        json!(["title", "tags", "summary", "when"])
    );
    assert_eq!(
        (first["temperature"].clone(), first["max_tokens"].clone()),
        (json!(0), json!(512))
    );
    assert_eq!(first["messages"][1]["content"], "call the plumber");
    assert_eq!(
        OutputFormat::JsonSchema.fallback(),
        Some(OutputFormat::JsonObject)
    );
    let object = chat_request("m", &plan("x"), OutputFormat::JsonObject);
    assert_eq!(object["response_format"], json!({ "type": "json_object" }));
    let plain = chat_request("m", &plan("x"), OutputFormat::Plain);
    assert!(plain.get("response_format").is_none());
    assert_eq!(OutputFormat::Plain.fallback(), None);
    // LM Studio's refusal of json_object; llama.cpp's of an unknown type.
    let lm_studio = br#"{"error":"'response_format.type' must be 'json_schema' or 'text'"}"#;
    assert!(refuses_format(400, lm_studio));
    let llama = br#"{"error":{"code":400,"message":"response_format type must be one of \"text\" or \"json_object\", but got: nonsense","type":"invalid_request_error"}}"#;
    assert!(refuses_format(400, llama));
    assert!(!refuses_format(400, br#"{"error":{"message":"bad json"}}"#));
}

#[test]
fn an_answer_is_read_with_its_timings_and_a_cut_off_or_wrong_one_is_refused() {
    let answer = json!({
        "choices": [{"finish_reason": "stop", "index": 0, "message": {"role": "assistant",
            "content": "{\n  \"title\": \"The plumber\",\n  \"tags\": [\"kitchen\", \"tap\"],\n  \"summary\": \"Call him.\"\n  }"}}],
        "usage": {"completion_tokens": 118, "prompt_tokens": 124, "total_tokens": 242},
        "timings": {"cache_n": 0, "prompt_n": 124, "prompt_ms": 937.418, "predicted_n": 118, "predicted_ms": 3904.877}
    });
    let e = read_answer(&answer, &plan("call the plumber")).expect("usable");
    assert_eq!((e.title.as_str(), e.tags.len()), ("The plumber", 2));
    assert_eq!(
        usage_of(&answer),
        Some(Usage {
            prompt_tokens: 124,
            prompt_ns: 937_418_000,
            output_tokens: 118,
            output_ns: 3_904_877_000
        })
    );
    let cut = json!({"choices": [{"finish_reason": "length",
        "message": {"content": "{\n  \"title\": \"The plumber\",\n  "}}],
        "usage": {"prompt_tokens": 124, "completion_tokens": 512}});
    match read_answer(&cut, &plan("call the plumber")) {
        Err(ProviderError::Unusable(refused)) => assert!(refused.cut_off),
        other => panic!("{other:?}"),
    }
    let prose = json!({"choices": [{"finish_reason": "stop",
        "message": {"content": "Sure! Here is a title: Plumber."}}]});
    assert!(matches!(
        read_answer(&prose, &plan("x")),
        Err(ProviderError::Unusable(_))
    ));
    // A thinking model: the reasoning in content, before the JSON.
    let thinking = json!({"choices": [{"finish_reason": "stop", "message": {"content":
        "<think>{ maybe }</think>{\"title\":\"T\",\"tags\":[],\"summary\":\"S\"}"}}]});
    assert_eq!(
        read_answer(&thinking, &plan("x")).expect("usable").title,
        "T"
    );
    assert!(matches!(
        read_answer(&json!({"object": "list"}), &plan("x")),
        Err(ProviderError::Invalid(_))
    ));
}

#[test]
fn every_servers_context_overflow_is_read_with_its_numbers() {
    let llama = br#"{"error":{"code":400,"message":"request (5374 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5374,"n_ctx":2048}}"#;
    let vllm = br#"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 5612 tokens (5100 in the messages, 512 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","code":400}"#;
    let lm_studio = br#"{"error":"n_keep: 13055 >= n_ctx: 4096"}"#;
    let numbers = |bytes: &[u8]| match context_exceeded(400, bytes) {
        Some(ProviderError::ContextExceeded {
            prompt_tokens,
            context_tokens,
            ..
        }) => (prompt_tokens, context_tokens),
        other => panic!("{other:?}"),
    };
    assert_eq!(numbers(llama), (Some(5374), Some(2048)));
    assert_eq!(numbers(lm_studio), (Some(13055), Some(4096)));
    assert!(context_exceeded(400, br#"{"error":{"message":"bad json"}}"#).is_none());
    assert!(context_exceeded(200, llama).is_none());
    assert_eq!(numbers(vllm), (Some(5100), Some(2048)));
    // The prompt fit, the answer did not: stopped at the context's end.
    let at_the_end = json!({"choices": [{"finish_reason": "length",
        "message": {"content": "{\"title\": \"Quarterly"}}],
        "usage": {"prompt_tokens": 1982, "completion_tokens": 66, "total_tokens": 2048}});
    assert!(matches!(
        read_answer(&at_the_end, &plan("long")),
        Err(ProviderError::ContextExceeded {
            prompt_tokens: Some(1982),
            ..
        })
    ));
}

#[test]
fn health_finds_the_model_by_id_or_alias_and_says_what_else_it_found() {
    let url = "http://127.0.0.1:8080/v1";
    let models = br#"{"object":"list","data":[{"id":"gemma-3-270m","aliases":["gemma-3-270m","gemma"],"object":"model","meta":{"n_ctx":2048,"n_ctx_train":32768}}]}"#;
    assert_eq!(
        models_health(200, models, url, "gemma-3-270m"),
        ProviderHealth::Ready
    );
    assert_eq!(
        models_health(200, models, url, "Gemma"),
        ProviderHealth::Ready
    );
    assert_eq!(
        models_health(200, models, url, "qwen3"),
        ProviderHealth::ModelMissing {
            model: "qwen3".into(),
            server: ModelServer::OpenAiCompatible
        }
    );
    let not_found =
        br#"{"error":{"message":"File Not Found","type":"not_found_error","code":404}}"#;
    assert!(matches!(
        models_health(404, not_found, url, "m"),
        ProviderHealth::NotRunning { detail } if detail.contains("check openai.url")
    ));
    assert!(matches!(
        models_health(200, b"<html>hello</html>", url, "m"),
        ProviderHealth::NotRunning { .. }
    ));
    assert!(matches!(
        models_health(401, br#"{"error":{"message":"Invalid API Key"}}"#, url, "m"),
        ProviderHealth::KeyRefused { detail } if detail.contains("api_key_env")
    ));
    // llama.cpp's /props, guarded by --api-key when /models is not.
    assert!(matches!(
        key_refused(403, url),
        Some(ProviderHealth::KeyRefused { .. })
    ));
    assert_eq!(key_refused(200, url), None);
    assert_eq!(key_refused(404, url), None, "a server without /props");
    assert_eq!(context_in_models(models, "gemma-3-270m"), Some(2048));
    let vllm = br#"{"object":"list","data":[{"id":"Qwen/Qwen3-8B","max_model_len":32768}]}"#;
    assert_eq!(context_in_models(vllm, "Qwen/Qwen3-8B"), Some(32768));
    assert_eq!(
        context_in_models(br#"{"data":[{"id":"m"}]}"#, "m"),
        None,
        "a server that does not say"
    );
    let props = br#"{"total_slots":1,"default_generation_settings":{"n_ctx":2048}}"#;
    assert_eq!(context_in_props(props), Some(2048));
    let loading = br#"{"error":{"message":"Loading model","type":"unavailable_error","code":503}}"#;
    assert!(is_loading(503, loading));
    assert!(!is_loading(200, br#"{"status":"ok"}"#));
}

#[test]
fn a_streamed_answer_is_read_from_its_server_sent_events() {
    // As llama.cpp's server writes them.
    assert_eq!(
        stream_line(
            r#"data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"object":"chat.completion.chunk"}"#
        ),
        LineSays::Text(String::new())
    );
    assert_eq!(
        stream_line(
            r#"data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" Water [1]"}}],"object":"chat.completion.chunk"}"#
        ),
        LineSays::Text(" Water [1]".into())
    );
    assert_eq!(
        stream_line(
            r#"data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"object":"chat.completion.chunk"}"#
        ),
        LineSays::End
    );
    assert_eq!(stream_line("data: [DONE]"), LineSays::End);
    assert_eq!(stream_line(""), LineSays::Nothing);
    assert_eq!(stream_line(": keep-alive"), LineSays::Nothing);
    assert!(matches!(
        stream_line(
            r#"data: {"error":{"code":500,"message":"slot unavailable","type":"server_error"}}"#
        ),
        LineSays::Failed(ProviderError::Status { code: 500, .. })
    ));
}

/// The lines llama.cpp b11434 streams for an enrichment (`stream_options.include_usage`),
/// as seen on the wire: the role, the content in pieces, the end with `timings`, the
/// sizes, `[DONE]`.
const STREAMED: [&str; 7] = [
    r#"data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"object":"chat.completion.chunk"}"#,
    r#"data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"{\"title\": \"Call"}}],"object":"chat.completion.chunk"}"#,
    "",
    r#"data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" the plumber\", \"tags\": [\"home\"], \"summary\": \"The tap leaks.\"}"}}],"object":"chat.completion.chunk"}"#,
    r#"data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"object":"chat.completion.chunk","timings":{"prompt_n":120,"prompt_ms":600.0,"predicted_n":20,"predicted_ms":400.0}}"#,
    r#"data: {"choices":[],"usage":{"completion_tokens":20,"prompt_tokens":180,"total_tokens":200},"object":"chat.completion.chunk"}"#,
    "data: [DONE]",
];

#[test]
fn a_streamed_answer_is_put_together_and_read_as_the_unstreamed_one() {
    let mut streamed = StreamedCompletion::default();
    assert!(!streamed.begun());
    let ends: Vec<bool> = STREAMED
        .iter()
        .map(|line| streamed.line(line).unwrap())
        .collect();
    assert_eq!(ends, [false, false, false, false, false, false, true]);
    assert!(streamed.begun());
    let answer = streamed.whole();
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    let usage = usage_of(&answer).unwrap();
    assert_eq!(
        (usage.prompt_tokens, usage.prompt_ns, usage.output_ns),
        (120, 600_000_000, 400_000_000),
        "llama.cpp's timings, not the usage's sizes"
    );
    let enrichment = read_answer(&answer, &plan("call the plumber: the tap leaks")).unwrap();
    assert_eq!(enrichment.summary, "The tap leaks.");
}

#[test]
fn an_error_in_the_stream_is_the_refusal_it_says_and_a_cut_body_is_incomplete() {
    // Read as the refusal it is, with its own code: here a prompt over the context,
    // which the reader of refusals knows (asked again shorter).
    let mut streamed = StreamedCompletion::default();
    let over = r#"{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error","n_prompt_tokens":3000,"n_ctx":2048}"#;
    assert!(streamed.line(&format!("error: {over}")).unwrap());
    assert!(streamed.complete());
    assert_eq!(streamed.status(), 400);
    let body = streamed.whole().to_string();
    assert!(matches!(
        context_exceeded(400, body.as_bytes()),
        Some(ProviderError::ContextExceeded { .. })
    ));
    let mut streamed = StreamedCompletion::default();
    assert!(streamed
        .line(r#"data: {"error":{"code":500,"message":"the model crashed"}}"#)
        .unwrap());
    assert_eq!(streamed.status(), 500);
    assert!(matches!(
        StreamedCompletion::default().line("data: {not json"),
        Err(ProviderError::Invalid(_))
    ));
    // Pieces, then the body ends with no end: cut off, not complete.
    let mut streamed = StreamedCompletion::default();
    streamed.line(STREAMED[1]).unwrap();
    assert!(!streamed.complete());
}
