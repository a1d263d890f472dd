//! The enrichment request, and what of its answer is used.
//!
//! The model is asked for JSON matching [`format_schema`] (Ollama's structured output),
//! at temperature 0. The schema constrains decoding but guarantees nothing (truncation,
//! model bugs: docs/PLATFORM.md, "Ollama: answers that are not what was asked for"),
//! and a model at temperature 0 gives the same answer to the same request, so refusing
//! a usable answer only buys the same answer again. So the answer is normalised before
//! it is judged ([`parse_enrichment`]): the JSON object is taken out of prose or a code
//! fence, unknown fields are ignored, a title or summary too long is cut at a word
//! boundary, tags are normalised (`crate::tags`), merged and kept to five, and an empty
//! title (a note too short to summarise) becomes the note's own first line. Only an
//! answer with no usable object (none, cut off, a field of the wrong type) is a
//! `schema` failure.

use serde_json::{json, Value};

use super::{ChatMessage, Prompt, RefusedAnswer, Role, Sampling};
use crate::domain::Enrichment;

pub const MAX_TITLE_CHARS: usize = 80;
pub const MAX_TAGS: usize = 5;
pub const MAX_TAG_CHARS: usize = crate::tags::MAX_TAG_CHARS;
pub const MAX_SUMMARY_CHARS: usize = 240;

/// The generation cap of a first call: enough for the JSON, and it stops a model that
/// streams whitespace for ever (contract F8).
pub const OUTPUT_TOKENS: u32 = 512;
/// The cap after answers cut off at the limit: doubled per cut-off answer, up to this.
pub const MAX_OUTPUT_TOKENS: u32 = 2048;
/// The temperature of a retry. At temperature 0 decoding is greedy and the seed has no
/// effect, so a retry with only a new seed would be the same request again; a little
/// randomness with a new seed (the attempt number), together with the follow-up that
/// names the mistake, makes it a different one.
pub const RETRY_TEMPERATURE: f64 = 0.4;

/// UTF-8 bytes per token, counted low so an estimate is never short: English runs about
/// four bytes a token, a Hangul syllable (three bytes) is one token or more.
pub const BYTES_PER_TOKEN: usize = 3;
/// Room for the chat template around the messages (role markers, the schema's hint).
pub const TEMPLATE_TOKENS: usize = 64;

/// A high estimate of the tokens `text` takes.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(BYTES_PER_TOKEN)
}

/// The part of `body` that fits in a context of `num_ctx` tokens beside the rest of
/// the chat (`other_tokens`) and the answer (`output_tokens`): the whole note, or its
/// beginning, cut at a line break or a space near the limit, with how many characters
/// were kept. Ollama, left to it, would drop the *front* of an over-long prompt (the
/// system prompt and the note's beginning, where its subject is).
pub fn fit_note(
    body: &str,
    num_ctx: u32,
    other_tokens: usize,
    output_tokens: u32,
) -> (&str, Option<u32>) {
    let room_tokens = (num_ctx as usize)
        .saturating_sub(other_tokens)
        .saturating_sub(output_tokens as usize)
        .saturating_sub(TEMPLATE_TOKENS);
    let room = room_tokens.saturating_mul(BYTES_PER_TOKEN);
    if body.len() <= room {
        return (body, None);
    }
    let mut cut = room;
    while !body.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &body[..cut];
    // A clean break in the last fifth, if there is one.
    let floor = cut - cut / 5;
    let cut = head
        .rfind('\n')
        .filter(|&at| at >= floor)
        .or_else(|| head.rfind(char::is_whitespace).filter(|&at| at >= floor))
        .unwrap_or(cut);
    let head = body[..cut].trim_end();
    (head, Some(head.chars().count() as u32))
}

/// The context length in a `POST /api/show` answer: `model_info.<arch>.context_length`
/// (the architecture from `general.architecture`), else any `*.context_length`.
pub fn context_length(show: &Value) -> Option<u32> {
    let info = show.get("model_info")?.as_object()?;
    let by_arch = info
        .get("general.architecture")
        .and_then(Value::as_str)
        .and_then(|arch| info.get(&format!("{arch}.context_length")));
    by_arch
        .or_else(|| {
            info.iter()
                .find(|(key, _)| key.ends_with(".context_length"))
                .map(|(_, value)| value)
        })
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// The system prompt. It says "JSON" explicitly: Ollama's docs ask for it, and it keeps
/// models from padding structured output with whitespace.
pub const SYSTEM_PROMPT: &str = "You file short personal notes. Read the note and answer \
with JSON only, matching the given schema: \"title\" (a few words, at most 80 characters), \
\"tags\" (0 to 5 short lowercase topic words), \"summary\" (one sentence, at most 240 \
characters). Write in the note's language. Do not add any other field or any text \
outside the JSON.";

/// The tags a note's prompt carries besides the note: the user's most used ones (at
/// most [`crate::tags::VOCABULARY_IN_PROMPT`]) and those of the notes most like this
/// one (`crate::tags::neighbours`; empty without embeddings).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptTags {
    pub in_use: Vec<String>,
    pub neighbours: Vec<String>,
}

/// The system prompt for one note: [`SYSTEM_PROMPT`], then the tags of the notes most
/// like this one, then the user's most used tags, to be reused when they fit, so the
/// same topic gets the same tag across notes. The neighbours' tags come first: they
/// are the words this person chose for this very topic, where the most used ones are
/// any topic's. The store tidies what comes back anyway (`crate::tags`); this makes
/// the model pick the existing word in the first place.
pub fn system_prompt(tags: &PromptTags) -> String {
    let list = |tags: &[String], most: usize| {
        let tags: Vec<&str> = tags.iter().take(most).map(String::as_str).collect();
        serde_json::to_string(&tags).unwrap_or_default()
    };
    let mut system = SYSTEM_PROMPT.to_string();
    if !tags.neighbours.is_empty() {
        system.push_str(&format!(
            " Notes like this one are tagged: {}.",
            list(
                &tags.neighbours,
                crate::tags::neighbours::NEIGHBOUR_TAGS_IN_PROMPT
            )
        ));
    }
    if !tags.in_use.is_empty() {
        system.push_str(&format!(
            " Tags already in use, most used first: {}.",
            list(&tags.in_use, crate::tags::VOCABULARY_IN_PROMPT)
        ));
    }
    if !tags.neighbours.is_empty() || !tags.in_use.is_empty() {
        system.push_str(
            " When one of them fits the note, use it exactly as written instead of a new word.",
        );
    }
    system
}

/// The prompt of one call, built once: the system prompt with the tags it carries, the
/// note (cut to fit a context of `context_tokens` beside the rest and the answer's
/// `output_tokens`), and after a refused answer that answer and a follow-up saying what
/// was wrong with it.
pub fn prompt(
    body: &str,
    tags: &PromptTags,
    refused: Option<&RefusedAnswer>,
    context_tokens: u32,
    output_tokens: u32,
) -> Prompt {
    let system = system_prompt(tags);
    let retry = refused.map(|refused| (refused.answer.clone(), follow_up(refused)));
    let around = estimate_tokens(&system)
        + retry.as_ref().map_or(0, |(answer, follow_up)| {
            estimate_tokens(answer) + estimate_tokens(follow_up)
        });
    let (note, read_chars) = fit_note(body, context_tokens, around, output_tokens);
    let mut messages = vec![
        ChatMessage {
            role: Role::System,
            content: system,
        },
        ChatMessage {
            role: Role::User,
            content: note.to_string(),
        },
    ];
    if let Some((answer, follow_up)) = retry {
        messages.push(ChatMessage {
            role: Role::Assistant,
            content: answer,
        });
        messages.push(ChatMessage {
            role: Role::User,
            content: follow_up,
        });
    }
    Prompt {
        messages,
        note: note.to_string(),
        read_chars,
        estimated_tokens: around + estimate_tokens(note),
    }
}

/// The messages of a chat request as JSON (Ollama's `/api/chat` and the OpenAI API's
/// `/chat/completions` take the same shape).
pub fn messages_json(messages: &[ChatMessage]) -> Value {
    Value::Array(
        messages
            .iter()
            .map(|m| json!({ "role": m.role.as_str(), "content": m.content }))
            .collect(),
    )
}

/// What the model is told after an answer that could not be used.
pub fn follow_up(refused: &RefusedAnswer) -> String {
    let cut = if refused.cut_off {
        " It stopped before the JSON was complete: keep the summary to one short sentence."
    } else {
        ""
    };
    format!(
        "That answer could not be used: {}.{cut} Answer again with only one JSON object \
         with the fields \"title\" (text), \"tags\" (a list of text) and \"summary\" \
         (text), and nothing before or after it.",
        refused.problem
    )
}

/// How a call samples: temperature 0 the first time; after a refused answer a
/// retry's temperature, its seed the attempt.
pub fn sampling(refused: bool, attempt: u32) -> Sampling {
    if refused {
        Sampling::Reseeded {
            temperature: RETRY_TEMPERATURE,
            seed: attempt,
        }
    } else {
        Sampling::Greedy
    }
}

/// The generation cap after `cut_offs` answers cut off at the limit.
pub fn output_tokens(cut_offs: u32) -> u32 {
    OUTPUT_TOKENS
        .saturating_mul(1 << cut_offs.min(8))
        .min(MAX_OUTPUT_TOKENS)
}

/// The JSON schema sent as `format`.
pub fn format_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": { "type": "string", "maxLength": MAX_TITLE_CHARS },
            "tags": {
                "type": "array",
                "items": { "type": "string", "maxLength": MAX_TAG_CHARS },
                "maxItems": MAX_TAGS
            },
            "summary": { "type": "string", "maxLength": MAX_SUMMARY_CHARS }
        },
        "required": ["title", "tags", "summary"],
        "additionalProperties": false
    })
}

/// The enrichment in the model's content for a note with `body`, normalised; the error
/// says why nothing usable was found.
pub fn parse_enrichment(content: &str, body: &str) -> Result<Enrichment, String> {
    let content = without_reasoning(content).trim();
    if content.is_empty() {
        return Err("the model's answer is empty".into());
    }
    let object = json_object(content)
        .ok_or_else(|| "the model's answer holds no complete JSON object".to_string())?;
    let answer: Value = serde_json::from_str(object)
        .map_err(|e| format!("the model's answer is not the expected JSON: {e}"))?;
    let text = |field: &str| -> Result<String, String> {
        match answer.get(field) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(text)) => Ok(text.trim().to_string()),
            Some(other) => Err(format!("\"{field}\" is {other}, not text")),
        }
    };
    let title = text("title")?;
    let title = if title.is_empty() {
        // Too short to title: the note is its own title.
        body.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string()
    } else {
        title
    };
    let title = cut_at_word(&title, MAX_TITLE_CHARS);
    if title.is_empty() {
        return Err("the answer has no title, and the note no line to take one from".into());
    }
    let summary = cut_at_word(&text("summary")?, MAX_SUMMARY_CHARS);
    let tags = match answer.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        Some(other) => return Err(format!("\"tags\" is {other}, not a list")),
    };
    let mut tidy: Vec<String> = Vec::new();
    for tag in tags {
        // A tag that is no tag (empty, too long, a line break) is dropped, not fatal.
        if let Ok(tag) = crate::tags::normalize(&tag) {
            if !tidy.contains(&tag) && tidy.len() < MAX_TAGS {
                tidy.push(tag);
            }
        }
    }
    Ok(Enrichment {
        title,
        tags: tidy,
        summary,
        read_chars: None,
    })
}

/// `content` after any reasoning a thinking model wrote before its answer:
/// `<think>…</think>` (or `<thinking>`), also when only the closing tag came (some
/// models' templates open it themselves). Braces inside the reasoning would otherwise
/// be taken for the answer.
fn without_reasoning(content: &str) -> &str {
    let mut rest = content;
    for close in ["</think>", "</thinking>"] {
        if let Some(at) = rest.rfind(close) {
            rest = &rest[at + close.len()..];
        }
    }
    rest
}

/// The first complete JSON object in `text` (prose or a code fence around it), found
/// by matching braces outside strings.
fn json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (offset, c) in text[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => depth += 1,
            '}' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + offset + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` in at most `limit` characters: cut at the last space before the limit (or at
/// the limit, with none), with "…" to say so.
fn cut_at_word(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let head: String = text.chars().take(limit - 1).collect();
    let cut = match head.rfind(char::is_whitespace) {
        Some(space) if space > 0 => head[..space].trim_end(),
        _ => head.as_str(),
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_answer_is_accepted_with_tags_normalised() {
        let e = parse_enrichment(
            r#" {"title": " Plumber ", "tags": ["Home", "home", " repairs", ""], "summary": "Call the plumber."} "#,
            "call the plumber",
        )
        .unwrap();
        assert_eq!(e.title, "Plumber");
        assert_eq!(e.tags, vec!["home", "repairs"]);
        assert_eq!(e.summary, "Call the plumber.");
    }

    #[test]
    fn json_in_prose_or_a_fence_is_taken_out_and_extra_fields_ignored() {
        let fenced = "```json\n{\"title\": \"T\", \"tags\": [], \"summary\": \"S\"}\n```";
        assert_eq!(parse_enrichment(fenced, "x").unwrap().title, "T");
        let prose = r#"Sure! Here it is: {"title": "A {brace} \"quoted\"", "tags": ["a"], "summary": "S", "mood": "ok"} Hope that helps."#;
        let e = parse_enrichment(prose, "x").unwrap();
        assert_eq!(e.title, r#"A {brace} "quoted""#);
        assert_eq!(e.tags, ["a"]);
    }

    #[test]
    fn what_is_too_long_is_cut_and_what_is_missing_filled_in() {
        let long = format!("{} end", "word ".repeat(20));
        let e = parse_enrichment(
            &format!(r#"{{"title": "{long}", "tags": ["a","b","A","c","d","e","f", "", "x,y"], "summary": "{}"}}"#, "s ".repeat(200)),
            "x",
        )
        .unwrap();
        assert!(
            e.title.chars().count() <= MAX_TITLE_CHARS && e.title.ends_with("word…"),
            "{}",
            e.title
        );
        assert!(e.summary.chars().count() <= MAX_SUMMARY_CHARS && e.summary.ends_with('…'));
        assert_eq!(e.tags, ["a", "b", "c", "d", "e"]);
        // A one-word note: no title, no summary. Its own text is its title.
        let e = parse_enrichment(r#"{"title": "", "tags": ["groceries"]}"#, "\n  milk\n").unwrap();
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
            let e = parse_enrichment(&content, "call the plumber").expect(&content);
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
    fn a_retry_shows_the_model_its_answer_and_what_was_wrong_and_samples_anew() {
        let first =
            messages_json(&prompt("note", &PromptTags::default(), None, 2048, 512).messages);
        assert_eq!(first.as_array().map(Vec::len), Some(2));
        let refused = RefusedAnswer::new("\"tags\" is \"a\", not a list", r#"{"tags":"a"}"#, false);
        let retry = messages_json(
            &prompt("note", &PromptTags::default(), Some(&refused), 2048, 1024).messages,
        );
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
            let err = parse_enrichment(answer, "a note").unwrap_err();
            assert!(err.contains(expected), "{answer:?}: {err}");
        }
        assert!(
            parse_enrichment(r#"{"title": " "}"#, " \n ").is_err(),
            "nothing at all to title"
        );
    }
}
