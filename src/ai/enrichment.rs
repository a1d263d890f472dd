//! The enrichment request and the strict check of its answer.
//!
//! The model is asked for JSON matching [`format_schema`] (Ollama's structured output),
//! at temperature 0. The schema constrains decoding but guarantees nothing (truncation,
//! model bugs: docs/PLATFORM.md, "Ollama: answers that are not what was asked
//! for"), so every answer is validated here:
//! anything that is not exactly a good enrichment is a `schema` failure.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::domain::Enrichment;

pub const MAX_TITLE_CHARS: usize = 80;
pub const MAX_TAGS: usize = 5;
pub const MAX_TAG_CHARS: usize = crate::tags::MAX_TAG_CHARS;
pub const MAX_SUMMARY_CHARS: usize = 240;

/// The system prompt. It says "JSON" explicitly: Ollama's docs ask for it, and it keeps
/// models from padding structured output with whitespace.
pub const SYSTEM_PROMPT: &str = "You file short personal notes. Read the note and answer \
with JSON only, matching the given schema: \"title\" (a few words, at most 80 characters), \
\"tags\" (0 to 5 short lowercase topic words), \"summary\" (one sentence, at most 240 \
characters). Write in the note's language. Do not add any other field or any text \
outside the JSON.";

/// The system prompt for one note: [`SYSTEM_PROMPT`], then the user's most used tags
/// (at most [`crate::tags::VOCABULARY_IN_PROMPT`]), to be reused when they fit, so the
/// same topic gets the same tag across notes. The store tidies what comes back anyway
/// (`crate::tags`); this makes the model pick the existing word in the first place.
pub fn system_prompt(tags_in_use: &[String]) -> String {
    if tags_in_use.is_empty() {
        return SYSTEM_PROMPT.to_string();
    }
    let tags: Vec<&str> = tags_in_use
        .iter()
        .take(crate::tags::VOCABULARY_IN_PROMPT)
        .map(String::as_str)
        .collect();
    format!(
        "{SYSTEM_PROMPT} Tags already in use, most used first: {}. When one of them fits \
         the note, use it exactly as written instead of a new word.",
        serde_json::to_string(&tags).unwrap_or_default()
    )
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

/// The answer as the model writes it, before validation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnrichment {
    title: String,
    tags: Vec<String>,
    summary: String,
}

/// Parses and validates the model's content. The error says what was wrong.
///
/// Accepted deliberately: surrounding whitespace, and a Markdown code fence around the
/// object (models without working structured output add one, F11). Tags are trimmed,
/// lower-cased and de-duplicated; empty tags are dropped.
pub fn parse_enrichment(content: &str) -> Result<Enrichment, String> {
    let text = strip_code_fence(content.trim());
    if text.is_empty() {
        return Err("the model's answer is empty".into());
    }
    let raw: RawEnrichment = serde_json::from_str(text)
        .map_err(|e| format!("the model's answer is not the expected JSON: {e}"))?;
    let title = raw.title.trim().to_string();
    if title.is_empty() {
        return Err("the title is empty".into());
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(format!(
            "the title is longer than {MAX_TITLE_CHARS} characters"
        ));
    }
    let summary = raw.summary.trim().to_string();
    if summary.chars().count() > MAX_SUMMARY_CHARS {
        return Err(format!(
            "the summary is longer than {MAX_SUMMARY_CHARS} characters"
        ));
    }
    let mut tags: Vec<String> = Vec::new();
    for tag in raw.tags {
        let tag = tag.trim().to_lowercase();
        if tag.is_empty() || tags.contains(&tag) {
            continue;
        }
        if tag.chars().count() > MAX_TAG_CHARS {
            return Err(format!(
                "the tag \"{tag}\" is longer than {MAX_TAG_CHARS} characters"
            ));
        }
        tags.push(tag);
    }
    if tags.len() > MAX_TAGS {
        return Err(format!("{} tags; at most {MAX_TAGS}", tags.len()));
    }
    Ok(Enrichment {
        title,
        tags,
        summary,
    })
}

/// "```json\n{...}\n```" → "{...}"; anything else unchanged.
fn strip_code_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_answer_is_accepted_with_tags_normalised() {
        let e = parse_enrichment(
            r#" {"title": " Plumber ", "tags": ["Home", "home", " repairs", ""], "summary": "Call the plumber."} "#,
        )
        .unwrap();
        assert_eq!(e.title, "Plumber");
        assert_eq!(e.tags, vec!["home", "repairs"]);
        assert_eq!(e.summary, "Call the plumber.");
    }

    #[test]
    fn a_fenced_answer_is_accepted() {
        let fenced = "```json\n{\"title\": \"T\", \"tags\": [], \"summary\": \"S\"}\n```";
        assert_eq!(parse_enrichment(fenced).unwrap().title, "T");
    }

    #[test]
    fn every_malformed_answer_is_refused_with_a_reason() {
        let long = "x".repeat(81);
        let cases = [
            ("", "empty"),
            ("not json", "not the expected JSON"),
            (
                r#"{"title": "T", "tags": ["a", "b"#,
                "not the expected JSON",
            ),
            (r#"{"title": "T", "tags": []}"#, "missing field"),
            (
                r#"{"title": "T", "tags": "a", "summary": "S"}"#,
                "invalid type",
            ),
            (
                r#"{"title": "T", "tags": [], "summary": "S", "mood": "ok"}"#,
                "unknown field",
            ),
            (
                r#"{"title": " ", "tags": [], "summary": "S"}"#,
                "title is empty",
            ),
            (
                &format!(r#"{{"title": "{long}", "tags": [], "summary": "S"}}"#),
                "longer than 80",
            ),
            (
                r#"{"title": "T", "tags": ["a","b","c","d","e","f"], "summary": "S"}"#,
                "at most 5",
            ),
        ];
        for (answer, expected) in cases {
            let err = parse_enrichment(answer).unwrap_err();
            assert!(err.contains(expected), "{answer:?}: {err}");
        }
    }
}
