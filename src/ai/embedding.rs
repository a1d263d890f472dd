//! A note's embedding, none of it I/O: the text a model is given (the body cut to the
//! embedding model's context), what one batch call is ([`EmbedPlan`]), which vectors of
//! an answer are taken ([`accept_vectors`]), and what a failed call means for the
//! embedding work ([`EmbedFailure`], docs/DESIGN.md, "Related notes").
//!
//! The transports (`ollama.rs`, `openai/`) carry a plan out as it is; the worker's core
//! decides what to embed and when.

use std::time::Duration;

use super::enrichment::fit_note;
use super::{classify_reason, FailureReason, ProviderError};

/// One batch call: the texts, in order (one vector each comes back), what they are, and
/// how long the whole call may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedPlan {
    pub deadline: Duration,
    pub texts: Vec<String>,
    pub kind: TextKind,
}

/// What the texts of a call are (a search's words, a note). A model trained with
/// prefixes (the built-in embedder's multilingual-e5: `query: `, `passage: `) embeds the
/// two kinds differently; a server's model is given the text as it is.
pub use inkling_e5::TextKind;

/// The text a note is embedded from: its body, cut at a line or word break to what
/// fits `context_tokens` (counted high, as for the chat model: 3 bytes a token, room
/// kept for the model's own tokens). Ollama refuses an over-long input since 0.13.5
/// (it no longer honours `truncate`) and llama.cpp's server refuses one longer than
/// its batch, so inkling cuts, keeping the note's beginning.
pub fn embedding_text(body: &str, context_tokens: u32) -> &str {
    fit_note(body, context_tokens, 0, 0).0
}

/// Why some vectors of an answer were not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorProblem {
    /// The answer has another number of vectors than texts sent: none can be matched
    /// to its note.
    Count { asked: usize, got: usize },
}

/// Why one vector of an answer was refused: what the person is told (`status`), and
/// the log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VectorRefused {
    #[error("an empty vector")]
    Empty,
    #[error("a vector of {got} numbers where the model's have {want}")]
    WrongLength { got: usize, want: usize },
    #[error("a vector with values that are not numbers")]
    NotNumbers,
    #[error("a vector of zeros")]
    Zero,
}

/// The vectors of an answer, one per text sent, each taken or refused: a vector must
/// have `dims` values (the model's, once known; else the first vector's), all finite
/// and not all zero. Each taken vector is scaled to length 1, so a dot product is the
/// cosine (Ollama's already are; a server may not).
pub fn accept_vectors(
    asked: usize,
    vectors: Vec<Vec<f32>>,
    dims: Option<usize>,
) -> Result<Vec<Result<Vec<f32>, VectorRefused>>, VectorProblem> {
    if vectors.len() != asked {
        return Err(VectorProblem::Count {
            asked,
            got: vectors.len(),
        });
    }
    let dims = dims.or_else(|| vectors.first().map(Vec::len));
    Ok(vectors
        .into_iter()
        .map(|vector| {
            if vector.is_empty() {
                return Err(VectorRefused::Empty);
            }
            if let Some(want) = dims.filter(|want| *want != vector.len()) {
                return Err(VectorRefused::WrongLength {
                    got: vector.len(),
                    want,
                });
            }
            if !vector.iter().all(|v| v.is_finite()) {
                return Err(VectorRefused::NotNumbers);
            }
            let length = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
            if !length.is_finite() {
                return Err(VectorRefused::NotNumbers);
            }
            if length == 0.0 {
                return Err(VectorRefused::Zero);
            }
            Ok(vector.into_iter().map(|v| v / length).collect())
        })
        .collect())
}

/// What a failed embedding call means. Never a note's failure: the embedding work waits
/// or stops, the note's title, tags and summary go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedFailure {
    /// The server is down, busy or ran out of time: wait, and resume the moment it is
    /// seen ready.
    Outage(String),
    /// The embedding model is not installed (`ollama pull MODEL`).
    ModelMissing(String),
    /// The server makes no embeddings (no such route, started without `--embeddings`,
    /// a chat-only model): the provider's state until it is started with them.
    NotServed(String),
    /// A text did not fit the model's context: cut shorter and ask again.
    TooLong(String),
    /// Anything else (a crash, an answer that is not vectors): wait, then try again.
    Other(String),
}

/// docs/DESIGN.md, "Related notes": a failed embedding call, read as the work's state.
pub fn embed_failure(error: &ProviderError) -> EmbedFailure {
    let text = error.to_string();
    match error {
        ProviderError::NoEmbeddings(_) => EmbedFailure::NotServed(text),
        ProviderError::ContextExceeded { .. } => EmbedFailure::TooLong(text),
        _ => match classify_reason(error) {
            FailureReason::Unreachable | FailureReason::Timeout => EmbedFailure::Outage(text),
            FailureReason::ModelMissing => EmbedFailure::ModelMissing(text),
            FailureReason::Schema | FailureReason::Other => EmbedFailure::Other(text),
        },
    }
}

/// Whether an error answer to an embedding request says the server makes no
/// embeddings: no such route (404 that names no model, 405), llama.cpp's and Ollama's
/// 501 "does not support embeddings", a 400 saying so or refusing the pooling
/// ("Pooling type 'none' is not OAI compatible").
pub fn says_no_embeddings(status: u16, message: &str) -> bool {
    let lower = message.to_lowercase();
    match status {
        404 => !(lower.contains("model") && lower.contains("not found")),
        405 | 501 => true,
        400 => {
            lower.contains("does not support embeddings")
                || lower.contains("pooling")
                || lower.contains("embedding") && lower.contains("not supported")
        }
        _ => false,
    }
}

/// Whether an error answer says an input was longer than the model takes: Ollama's 400
/// "the input length exceeds the context length", llama.cpp's 500 "input (596 tokens)
/// is too large to process. increase the physical batch size".
pub fn says_too_long(status: u16, message: &str) -> bool {
    let lower = message.to_lowercase();
    (400..600).contains(&status)
        && (lower.contains("exceeds the context length")
            || lower.contains("too large to process")
            || lower.contains("exceeds the available context size")
            || lower.contains("maximum context length"))
}

/// An embedding request's answer, whatever its status, as vectors or what went wrong:
/// Ollama's `{"embeddings": [[…], …]}` or the OpenAI API's `{"data": [{"index": i,
/// "embedding": […]}, …]}` (put in `index` order). `error_message` reads an error body.
pub fn read_embeddings(
    status: u16,
    bytes: &[u8],
    error_message: impl Fn(&[u8]) -> String,
) -> Result<Vec<Vec<f32>>, ProviderError> {
    if !(200..300).contains(&status) {
        let message = error_message(bytes);
        if says_too_long(status, &message) {
            return Err(ProviderError::ContextExceeded {
                prompt_tokens: None,
                context_tokens: None,
                message,
            });
        }
        if says_no_embeddings(status, &message) {
            return Err(ProviderError::NoEmbeddings(format!(
                "HTTP {status}: {message}"
            )));
        }
        return Err(ProviderError::Status {
            code: status,
            message,
        });
    }
    let answer: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ProviderError::Invalid(format!("the answer is not JSON: {e}")))?;
    let numbers = |value: &serde_json::Value| -> Option<Vec<f32>> {
        value
            .as_array()?
            .iter()
            .map(|n| n.as_f64().map(|n| n as f32))
            .collect()
    };
    let not_vectors = || {
        ProviderError::Invalid(
            "the answer has no list of vectors (\"embeddings\" or \"data\")".to_string(),
        )
    };
    if let Some(list) = answer.get("embeddings").and_then(|e| e.as_array()) {
        return list
            .iter()
            .map(|v| numbers(v).ok_or_else(not_vectors))
            .collect();
    }
    let data = answer
        .get("data")
        .and_then(|d| d.as_array())
        .ok_or_else(not_vectors)?;
    let mut indexed = data
        .iter()
        .enumerate()
        .map(|(at, item)| {
            let index = item
                .get("index")
                .and_then(|i| i.as_u64())
                .map_or(at, |i| i as usize);
            let vector = item
                .get("embedding")
                .and_then(numbers)
                .ok_or_else(not_vectors)?;
            Ok((index, vector))
        })
        .collect::<Result<Vec<_>, ProviderError>>()?;
    indexed.sort_by_key(|(index, _)| *index);
    Ok(indexed.into_iter().map(|(_, vector)| vector).collect())
}

#[cfg(test)]
mod tests;
