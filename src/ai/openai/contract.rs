//! What an OpenAI-compatible server says and how inkling reads it, as plain functions
//! over bytes and JSON: the chat request for a plan, the answer read into an
//! enrichment or a [`ProviderError`], the health from `/health` and `/models`, the
//! model's context. Learned from the real servers (llama.cpp's `llama-server`, LM
//! Studio, vLLM; docs/PLATFORM.md, "OpenAI-compatible servers"):
//!
//! - structured output is asked as `json_schema`; a server that refuses it (LM Studio
//!   refuses `json_object`, some refuse `json_schema`) is asked with the next
//!   [`OutputFormat`]; whatever comes back is normalised the same way, reasoning
//!   (`<think>…</think>`) included, because a server may accept a schema and not
//!   enforce it;
//! - a prompt over the context is llama.cpp's 400 `exceed_context_size_error` with
//!   `n_prompt_tokens` and `n_ctx`, vLLM's 400 "maximum context length is N tokens …
//!   (A in the messages, …)", LM Studio's "n_keep: A >= n_ctx: N", or an answer stopped
//!   at the context's end: all [`ProviderError::ContextExceeded`], keyed on the type and
//!   the numbers, never on the wording alone;
//! - llama.cpp's `timings` (the tokens actually evaluated, and how long) give the speed;
//!   `usage` counts cached prompt tokens that cost nothing, so it only gives the sizes.

use serde_json::{json, Value};

use super::super::enrichment::{format_schema, messages_json, parse_enrichment};
use super::super::streaming::{Assemble, LineSays};
use super::super::transport::error_message;
use super::super::{
    CallPlan, ChatPlan, ModelServer, ProviderError, ProviderHealth, RefusedAnswer, Sampling, Usage,
};
use crate::domain::Enrichment;

/// How the answer's shape is asked for, most constrained first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// `response_format: {type: json_schema}`: the server constrains decoding.
    JsonSchema,
    /// `response_format: {type: json_object}`: any JSON object.
    JsonObject,
    /// No `response_format`: the prompt alone asks for JSON.
    Plain,
}

impl OutputFormat {
    /// The next format to ask with after this one was refused.
    pub fn fallback(self) -> Option<Self> {
        match self {
            OutputFormat::JsonSchema => Some(OutputFormat::JsonObject),
            OutputFormat::JsonObject => Some(OutputFormat::Plain),
            OutputFormat::Plain => None,
        }
    }
}

/// The `POST /chat/completions` body that carries out `plan`.
pub fn chat_request(model: &str, plan: &CallPlan, format: OutputFormat) -> Value {
    let mut request = json!({
        "model": model,
        "messages": messages_json(&plan.prompt.messages),
        "max_tokens": plan.output_tokens,
        // Streamed so that a call given up is given up by the server too
        // (`super::super::streaming`); the sizes come in the last chunk.
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    match plan.sampling {
        Sampling::Greedy => request["temperature"] = json!(0),
        Sampling::Reseeded { temperature, seed } => {
            request["temperature"] = json!(temperature);
            request["seed"] = json!(seed);
        }
    }
    match format {
        OutputFormat::JsonSchema => {
            request["response_format"] = json!({
                "type": "json_schema",
                "json_schema": { "name": "enrichment", "strict": true, "schema": format_schema() },
            });
        }
        OutputFormat::JsonObject => request["response_format"] = json!({ "type": "json_object" }),
        OutputFormat::Plain => {}
    }
    request
}

/// The streamed chat request for an answer to a question: plain text, greedy.
pub fn stream_request(model: &str, plan: &ChatPlan) -> Value {
    json!({
        "model": model,
        "messages": messages_json(&plan.messages),
        "max_tokens": plan.output_tokens,
        "temperature": 0,
        "stream": true,
    })
}

/// One line of a streamed chat completion (server-sent events): `data: {…}` with the
/// piece in `choices[0].delta.content`, a `finish_reason` or `data: [DONE]` the end,
/// `data: {"error": …}` a failure mid-answer; comments and other fields are nothing.
pub fn stream_line(line: &str) -> LineSays {
    let Some(data) = line.strip_prefix("data:").map(str::trim) else {
        return LineSays::Nothing;
    };
    if data == "[DONE]" {
        return LineSays::End;
    }
    let chunk: Value = match serde_json::from_str(data) {
        Ok(chunk) => chunk,
        Err(e) => {
            return LineSays::Failed(ProviderError::Invalid(format!(
                "a piece of the answer that is not a chat completion chunk: {e}"
            )))
        }
    };
    if let Some(error) = chunk.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str())
            .unwrap_or("an error in the answer's stream");
        return LineSays::Failed(ProviderError::Status {
            code: 500,
            message: message.to_string(),
        });
    }
    let choice = &chunk["choices"][0];
    if choice["finish_reason"].is_string() {
        return LineSays::End;
    }
    LineSays::Text(
        choice["delta"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

/// An enrichment streamed as server-sent events, put together into the chat completion
/// the same call unstreamed answers: the pieces of `choices[0].delta.content` in order,
/// the `finish_reason`, and the `usage` (with `stream_options.include_usage`) and
/// llama.cpp's `timings`, which come in the last chunks; `data: [DONE]` is the end.
///
/// An error in the stream (`data: {"error": …}`, or llama.cpp's `error: {…}` line) ends
/// it as the refusal it is, with the error's own code, so that the reader of refusals
/// judges it as if it had come as the answer's status (a prompt over the context, a
/// format refused). A body that ends before `[DONE]` or a `finish_reason` was cut off.
#[derive(Debug, Default)]
pub struct StreamedCompletion {
    content: String,
    finish_reason: Option<Value>,
    usage: Option<Value>,
    timings: Option<Value>,
    /// The error the server reported in the stream, as `{"error": …}`.
    error: Option<Value>,
    /// `[DONE]` came.
    done: bool,
}

impl Assemble for StreamedCompletion {
    fn line(&mut self, line: &str) -> Result<bool, ProviderError> {
        let (data, is_error_line) = match (line.strip_prefix("data:"), line.strip_prefix("error:"))
        {
            (Some(data), _) => (data.trim(), false),
            (_, Some(error)) => (error.trim(), true),
            _ => return Ok(false),
        };
        if data == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            ProviderError::Invalid(format!(
                "a piece of the answer that is not a chat completion chunk: {e}"
            ))
        })?;
        let error = match chunk.get("error").filter(|e| !e.is_null()) {
            Some(error) => Some(error.clone()),
            None if is_error_line => Some(chunk.clone()),
            None => None,
        };
        if let Some(error) = error {
            self.error = Some(json!({ "error": error }));
            return Ok(true);
        }
        let choice = &chunk["choices"][0];
        if let Some(piece) = choice.pointer("/delta/content").and_then(Value::as_str) {
            self.content.push_str(piece);
        }
        if choice["finish_reason"].is_string() {
            self.finish_reason = Some(choice["finish_reason"].clone());
        }
        for (key, kept) in [("usage", &mut self.usage), ("timings", &mut self.timings)] {
            if let Some(value) = chunk.get(key).filter(|v| v.is_object()) {
                *kept = Some(value.clone());
            }
        }
        Ok(false)
    }

    fn begun(&self) -> bool {
        !self.content.is_empty()
    }

    fn complete(&self) -> bool {
        self.done || self.finish_reason.is_some() || self.error.is_some()
    }

    fn status(&self) -> u16 {
        self.error.as_ref().map_or(200, |error| {
            error["error"]["code"]
                .as_u64()
                .and_then(|code| u16::try_from(code).ok())
                .filter(|code| (400..600).contains(code))
                .unwrap_or(500)
        })
    }

    fn whole(self) -> Value {
        if let Some(error) = self.error {
            return error;
        }
        let mut answer = json!({
            "choices": [{
                "index": 0,
                "message": { "role": "assistant", "content": self.content },
                "finish_reason": self.finish_reason,
            }],
        });
        if let Some(usage) = self.usage {
            answer["usage"] = usage;
        }
        if let Some(timings) = self.timings {
            answer["timings"] = timings;
        }
        answer
    }
}

/// Whether a refusal is about `response_format`: the server does not take this
/// format, and the next one may do.
pub fn refuses_format(status: u16, bytes: &[u8]) -> bool {
    if !matches!(status, 400 | 422 | 501) {
        return false;
    }
    let message = error_message(bytes).to_lowercase();
    [
        "response_format",
        "json_schema",
        "json_object",
        "response format",
    ]
    .iter()
    .any(|word| message.contains(word))
}

/// A refused request that says the prompt did not fit, with the server's numbers
/// when it gave them (llama.cpp, vLLM, LM Studio).
pub fn context_exceeded(status: u16, bytes: &[u8]) -> Option<ProviderError> {
    if !(400..600).contains(&status) {
        return None;
    }
    let body: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let error = body.get("error").unwrap_or(&Value::Null);
    let message = error_message(bytes);
    let whole = |v: Option<&Value>| {
        v.and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
    };
    if error.get("type").and_then(Value::as_str) == Some("exceed_context_size_error") {
        return Some(ProviderError::ContextExceeded {
            prompt_tokens: whole(error.get("n_prompt_tokens")),
            context_tokens: whole(error.get("n_ctx")),
            message,
        });
    }
    let lower = message.to_lowercase();
    // vLLM: "This model's maximum context length is 2048 tokens. However, you requested
    // 5612 tokens (5100 in the messages, 512 in the completion)."
    if lower.contains("maximum context length") {
        return Some(ProviderError::ContextExceeded {
            prompt_tokens: number_before(&lower, " in the messages"),
            context_tokens: number_after(&lower, "maximum context length is "),
            message,
        });
    }
    // LM Studio: "n_keep: 13055 >= n_ctx: 4096".
    if lower.contains("n_keep") && lower.contains("n_ctx") {
        return Some(ProviderError::ContextExceeded {
            prompt_tokens: number_after(&lower, "n_keep: "),
            context_tokens: number_after(&lower, "n_ctx: "),
            message,
        });
    }
    let about_context = ["context length", "context size", "context window"]
        .iter()
        .any(|words| lower.contains(words));
    (about_context && (lower.contains("exceed") || lower.contains("too long"))).then_some(
        ProviderError::ContextExceeded {
            prompt_tokens: None,
            context_tokens: None,
            message,
        },
    )
}

/// The whole number right after `marker` in `text`.
fn number_after(text: &str, marker: &str) -> Option<u32> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The whole number right before `marker` in `text`.
fn number_before(text: &str, marker: &str) -> Option<u32> {
    let head = &text[..text.find(marker)?];
    let digits: String = head
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

/// What a call cost, from the answer: llama.cpp's `timings` (tokens evaluated and the
/// milliseconds they took), else `usage`'s sizes alone (no speed without durations).
pub fn usage_of(answer: &Value) -> Option<Usage> {
    let figure = |v: &Value, key: &str| v.get(key).and_then(Value::as_f64).filter(|n| *n >= 0.0);
    if let Some(timings) = answer.get("timings") {
        let ns = |key| figure(timings, key).map_or(0, |ms| (ms * 1e6) as u64);
        return Some(Usage {
            prompt_tokens: figure(timings, "prompt_n").unwrap_or(0.0) as u64,
            prompt_ns: ns("prompt_ms"),
            output_tokens: figure(timings, "predicted_n").unwrap_or(0.0) as u64,
            output_ns: ns("predicted_ms"),
        });
    }
    let usage = answer.get("usage")?;
    Some(Usage {
        prompt_tokens: figure(usage, "prompt_tokens").unwrap_or(0.0) as u64,
        prompt_ns: 0,
        output_tokens: figure(usage, "completion_tokens").unwrap_or(0.0) as u64,
        output_ns: 0,
    })
}

/// A `200` chat answer read into an enrichment about `plan`'s note, or why not.
pub fn read_answer(answer: &Value, plan: &CallPlan) -> Result<Enrichment, ProviderError> {
    if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), String::from);
        return Err(ProviderError::Status { code: 500, message });
    }
    let choice = answer
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| {
            ProviderError::Invalid("the answer has no \"choices\": not a chat completion".into())
        })?;
    let content = choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    if finish == Some("length") {
        if let Ok(enrichment) = parse_enrichment(content, &plan.prompt) {
            return Ok(enrichment);
        }
        // Stopped at the context's end rather than the token cap: the prompt left too
        // little room (llama.cpp answers so when the prompt fits and the answer not).
        let usage = answer.get("usage");
        let count = |key| {
            usage
                .and_then(|u| u.get(key))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let (prompt, written) = (count("prompt_tokens"), count("completion_tokens"));
        // Stopped before the cap: the context ended it, whatever inkling believed the
        // context to be.
        if prompt > 0 && written < u64::from(plan.output_tokens) {
            return Err(ProviderError::ContextExceeded {
                prompt_tokens: u32::try_from(prompt).ok(),
                context_tokens: None,
                message: format!(
                    "the answer stopped at the end of the context ({prompt} prompt tokens, \
                     {written} written)"
                ),
            });
        }
        return Err(ProviderError::Unusable(RefusedAnswer::new(
            "the answer was cut off at the token limit",
            content,
            true,
        )));
    }
    parse_enrichment(content, &plan.prompt)
        .map_err(|problem| ProviderError::Unusable(RefusedAnswer::new(problem, content, false)))
}

/// The health that `GET {url}/models` shows: the configured model listed (by `id` or
/// one of llama.cpp's `aliases`) → ready; listed others → the model missing; anything
/// else → not an OpenAI-compatible server there.
pub fn models_health(status: u16, bytes: &[u8], url: &str, model: &str) -> ProviderHealth {
    if let Some(refused) = key_refused(status, url) {
        return refused;
    }
    let listed = (status == 200)
        .then(|| serde_json::from_slice::<Value>(bytes).ok())
        .flatten()
        .and_then(|models| models.get("data").and_then(Value::as_array).cloned());
    let Some(listed) = listed else {
        return ProviderHealth::NotRunning {
            detail: format!(
                "{url}/models answered HTTP {status}, not as an OpenAI-compatible server \
                 does; check openai.url"
            ),
        };
    };
    if listed.iter().any(|entry| serves(entry, model)) {
        ProviderHealth::Ready
    } else {
        ProviderHealth::ModelMissing {
            model: model.to_string(),
            server: ModelServer::OpenAiCompatible,
        }
    }
}

/// The health when the server refuses inkling's API key (or wants one and got none):
/// 401 or 403 on a route that needs the key.
pub fn key_refused(status: u16, url: &str) -> Option<ProviderHealth> {
    matches!(status, 401 | 403).then(|| ProviderHealth::KeyRefused {
        detail: format!(
            "the model server at {url} refused inkling's API key (HTTP {status}): put the \
             server's key in the environment variable openai.api_key_env names, and restart \
             inkling"
        ),
    })
}

/// Whether a `/models` entry is `model`: its `id`, or one of its `aliases`.
fn serves(entry: &Value, model: &str) -> bool {
    let same = |name: &str| name.eq_ignore_ascii_case(model.trim());
    entry.get("id").and_then(Value::as_str).is_some_and(same)
        || entry
            .get("aliases")
            .and_then(Value::as_array)
            .is_some_and(|aliases| aliases.iter().filter_map(Value::as_str).any(same))
}

/// The model's context in a `/models` answer: llama.cpp's `meta.n_ctx` (the slot's
/// context), vLLM's `max_model_len`, LM Studio's `max_context_length`.
pub fn context_in_models(bytes: &[u8], model: &str) -> Option<u32> {
    let models: Value = serde_json::from_slice(bytes).ok()?;
    let listed = models.get("data")?.as_array()?;
    let entry = listed
        .iter()
        .find(|entry| serves(entry, model))
        .or_else(|| listed.first())?;
    [
        "/meta/n_ctx",
        "/max_model_len",
        "/max_context_length",
        "/context_length",
    ]
    .iter()
    .find_map(|pointer| entry.pointer(pointer).and_then(Value::as_u64))
    .and_then(|n| u32::try_from(n).ok())
}

/// The context in llama.cpp's `GET /props`: `default_generation_settings.n_ctx`.
pub fn context_in_props(bytes: &[u8]) -> Option<u32> {
    let props: Value = serde_json::from_slice(bytes).ok()?;
    props
        .pointer("/default_generation_settings/n_ctx")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// llama.cpp's `GET /health` while it loads its model: 503 "Loading model".
pub fn is_loading(status: u16, bytes: &[u8]) -> bool {
    status == 503 && error_message(bytes).to_lowercase().contains("loading")
}

#[cfg(test)]
mod tests;
