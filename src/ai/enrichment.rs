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
//! title (a note too short to summarise) becomes the note's own first line. Then the
//! guards that hold for any model (`crate::tags::guards`): no schema word nor word of
//! the instructions as a tag, no number the note does not say, no tag copied from the
//! prompt that the note's own text does not support, and a title with no word of the
//! note gives way to the note's first line too. The optional `when`, the words of the
//! note that say a time to act, is kept only when the note says them
//! (`crate::reminders::suggestion::quoted`); the store reads the time from them. Only an
//! answer with no usable object (none, cut off, a field of the wrong type) is a
//! `schema` failure.

use serde_json::{json, Value};

use super::{ChatMessage, Prompt, RefusedAnswer, Role, Sampling};
use crate::domain::Enrichment;
use crate::reminders::suggestion::{quoted, MAX_PHRASE_CHARS};
use crate::tags::guards::{fitting, guard, title_told_by};

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
characters), and \"when\": the words of the note that say a day or time to act on it, \
copied exactly as the note writes them (for example \"friday 3pm\" or \"다음 주 화요일\"), \
or \"\" when the note says no time. Write in the note's language. Do not add any other \
field or any text outside the JSON.";

/// The system prompt's sentence about `when`, as it reads there. Its words are left out
/// of [`fixed_instructions`]: "time", "day", "friday" are everyday topics, and a tag
/// that is an instruction word goes even when the note says it; a tag copied from
/// these words for a note that does not say them is still dropped (`guard`'s rule for
/// tags copied from the prompt).
pub const WHEN_FIELD: &str = "and \"when\": the words of the note that say a day or time \
to act on it, copied exactly as the note writes them (for example \"friday 3pm\" or \
\"다음 주 화요일\"), or \"\" when the note says no time.";

/// The tags a note's prompt carries besides the note: the user's most used ones (at
/// most [`crate::tags::VOCABULARY_IN_PROMPT`]; [`prompt`] keeps only those the note's
/// text supports) and those of the notes really near this one (`crate::tags::neighbours`;
/// empty without embeddings, or when the embedding model does not tell notes apart).
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
            " {NEIGHBOURS_TAGGED} {}.",
            list(
                &tags.neighbours,
                crate::tags::neighbours::NEIGHBOUR_TAGS_IN_PROMPT
            )
        ));
    }
    if !tags.in_use.is_empty() {
        system.push_str(&format!(
            " {IN_USE} {}.",
            list(&tags.in_use, crate::tags::VOCABULARY_IN_PROMPT)
        ));
    }
    if !tags.neighbours.is_empty() || !tags.in_use.is_empty() {
        system.push(' ');
        system.push_str(USE_WHEN_FITS);
    }
    system
}

/// The sentences of the system prompt around the tags it offers.
const NEIGHBOURS_TAGGED: &str = "Notes like this one are tagged:";
const IN_USE: &str = "Tags already in use, most used first:";
const USE_WHEN_FITS: &str =
    "When one of them fits the note, use it exactly as written instead of a new word.";

/// The follow-up's sentences around the refused answer's problem.
const REFUSED: &str = "That answer could not be used:";
const CUT_OFF: &str =
    "It stopped before the JSON was complete: keep the summary to one short sentence.";
const ANSWER_AGAIN: &str = "Answer again with only one JSON object with the fields \"title\" \
    (text), \"tags\" (a list of text), \"summary\" (text) and \"when\" (text), and nothing \
    before or after it.";

/// Every fixed word the model is told, whatever the note and its tags: none of them is
/// ever a tag (`crate::tags::guards::guard`).
pub fn fixed_instructions() -> String {
    [
        SYSTEM_PROMPT.replacen(WHEN_FIELD, "", 1).as_str(),
        NEIGHBOURS_TAGGED,
        IN_USE,
        USE_WHEN_FITS,
        REFUSED,
        CUT_OFF,
        ANSWER_AGAIN,
    ]
    .join(" ")
}

/// The prompt of one call, built once: the system prompt with the tags it carries, the
/// note (cut to fit a context of `context_tokens` beside the rest and the answer's
/// `output_tokens`), and after a refused answer that answer and a follow-up saying what
/// was wrong with it.
///
/// Of the tags in use, only those the note's text supports are offered
/// ([`fitting`]): they are there to keep the spelling of the note's own topic words
/// consistent, and a small model given the whole list answers it back for any note
/// (SmolLM2-135M-Instruct gave 7 of 8 unrelated notes the first note's tags).
pub fn prompt(
    body: &str,
    tags: &PromptTags,
    refused: Option<&RefusedAnswer>,
    context_tokens: u32,
    output_tokens: u32,
) -> Prompt {
    let tags = PromptTags {
        in_use: fitting(&tags.in_use, body),
        neighbours: tags.neighbours.clone(),
    };
    let system = system_prompt(&tags);
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
        format!(" {CUT_OFF}")
    } else {
        String::new()
    };
    format!("{REFUSED} {}.{cut} {ANSWER_AGAIN}", refused.problem)
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
            "summary": { "type": "string", "maxLength": MAX_SUMMARY_CHARS },
            // "" when the note says no time. Required all the same: a strict
            // `json_schema` (OpenAI's) takes only schemas with every property required,
            // and an answer without it is read as none anyway.
            "when": { "type": "string", "maxLength": MAX_PHRASE_CHARS }
        },
        "required": ["title", "tags", "summary", "when"],
        "additionalProperties": false
    })
}

/// The enrichment in the model's content for the note of `prompt`, normalised and its
/// tags guarded; the error says why nothing usable was found.
pub fn parse_enrichment(content: &str, prompt: &Prompt) -> Result<Enrichment, String> {
    let body = prompt.note.as_str();
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
    let title = one_line(&text("title")?);
    let title = if title.is_empty() || !title_told_by(&title, body) {
        // Too short to title, or a title of something else (`title_told_by`): the
        // note's first line is its title.
        body.lines()
            .map(one_line)
            .find(|l| !l.is_empty())
            .unwrap_or_default()
    } else {
        title
    };
    let title = cut_at_word(&title, MAX_TITLE_CHARS);
    if title.is_empty() {
        return Err("the answer has no title, and the note no line to take one from".into());
    }
    let summary = cut_at_word(&one_line(&text("summary")?), MAX_SUMMARY_CHARS);
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
            if !tidy.contains(&tag) {
                tidy.push(tag);
            }
        }
    }
    let guarded = guard(tidy, body, &prompt.instructions(), &fixed_instructions());
    if !guarded.dropped.is_empty() {
        tracing::info!(dropped = ?guarded.dropped,
            "tags of the answer dropped, each with why");
    }
    let mut tags = guarded.kept;
    tags.truncate(MAX_TAGS);
    Ok(Enrichment {
        title,
        tags,
        summary,
        read_chars: None,
        remind_phrase: remind_phrase(answer.get("when"), body),
    })
}

/// The answer's `when`, when the note says those words: an optional field, so one of
/// the wrong type, or words the note does not say (the model's invention, or its own
/// arithmetic), is dropped and logged, never a failure of the whole answer.
fn remind_phrase(when: Option<&Value>, body: &str) -> Option<String> {
    let phrase = match when? {
        Value::String(phrase) => phrase,
        Value::Null => return None,
        other => {
            tracing::info!(when = %other, "the answer's \"when\" is not text; dropped");
            return None;
        }
    };
    match quoted(phrase, body) {
        Ok(phrase) => phrase,
        Err(why) => {
            tracing::info!(when = %phrase, %why, "the answer's \"when\" dropped");
            None
        }
    }
}

/// Model text as one line, by the rule of a person's title (`domain::parse_title`: no
/// line break or control character): each run of control characters and white space
/// (a line break, NUL, ESC, BEL, a tab) is one space, the ends trimmed. The
/// bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are
/// dropped: a title or a summary has no use for them, and an override turns the text
/// after it around wherever the field is shown whole (a terminal, a notification).
fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_control() || c.is_whitespace())
        .map(|word| {
            word.chars()
                .filter(|c| !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
                .collect::<String>()
        })
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
mod tests;
