//! What went wrong with a provider call ([`ProviderError`], plain data), and which
//! retry rule it falls under ([`classify_reason`], docs/DESIGN.md, "Failure reasons").
//!
//! awc's errors are first turned into `ProviderError` (awc's types hold non-`Send`
//! boxes and are not `Clone`; actors pass errors around as messages). The mapping
//! follows awc's measured behaviour and Ollama's error catalogue (docs/PLATFORM.md,
//! "awc" and "Ollama: errors").

use std::io;

use awc::error::{ConnectError, JsonPayloadError, PayloadError, SendRequestError};

/// The failure reasons (docs/DESIGN.md, "Failure reasons").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureReason {
    /// No answer at all: refused, DNS failure, reset before the response, no route.
    Unreachable,
    /// Sent, but no complete answer in time; also 503 "busy" and a server-side load timeout.
    Timeout,
    /// A 200 answer whose content is not a valid enrichment.
    Schema,
    /// Everything else: 500 runner crash, 4xx, unexpected answers.
    Other,
    /// Ollama answers, but the configured model is not installed (404 "model not
    /// found"): the provider's state, like an outage, never the note's failure.
    ModelMissing,
}

impl FailureReason {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureReason::Unreachable => "unreachable",
            FailureReason::Timeout => "timeout",
            FailureReason::Schema => "schema",
            FailureReason::Other => "other",
            FailureReason::ModelMissing => "model_missing",
        }
    }

    /// Unreachable, timeout and a missing model mean "the provider cannot work now",
    /// not "this note is bad": no attempt is counted, no note is failed.
    pub fn is_provider_outage(self) -> bool {
        matches!(
            self,
            FailureReason::Unreachable | FailureReason::Timeout | FailureReason::ModelMissing
        )
    }
}

/// A failed provider call, as data. The message is what the user sees after the
/// reason (`ai_error` = "schema: the model's answer is not the expected JSON: …").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("{0}")]
    Unreachable(String),
    #[error("{0}")]
    TimedOut(String),
    /// A non-2xx status with the server's `error` message (or raw body).
    #[error("HTTP {code}: {message}")]
    Status { code: u16, message: String },
    /// A 200 answer that is not a valid enrichment.
    #[error("{0}")]
    Invalid(String),
    /// A 200 answer from the model with nothing usable in it: what was wrong, and the
    /// answer itself, so a retry can show the model its mistake instead of replaying
    /// the same request.
    #[error("{}", .0.problem)]
    Unusable(RefusedAnswer),
    #[error("{0}")]
    Unexpected(String),
    /// Something answers at the configured URL, but will not serve inkling as
    /// configured: not the configured kind of server (llama.cpp's server where Ollama
    /// was expected: 404 "File Not Found"), or the API key refused. The provider's
    /// state, like one not running: no attempt is counted, the fix is in the settings.
    #[error("{0}")]
    Misconfigured(String),
    /// The prompt did not fit the model's context: the server's numbers when it gave
    /// them (llama.cpp's `exceed_context_size_error`). Never an attempt: the core cuts
    /// the note to what fits and asks again at once.
    #[error("{message}")]
    ContextExceeded {
        prompt_tokens: Option<u32>,
        context_tokens: Option<u32>,
        message: String,
    },
    /// The server makes no embeddings (no such route, started without them, a
    /// chat-only model): the embedding work's state, never a note's failure.
    #[error("{0}")]
    NoEmbeddings(String),
    /// The model is not where it is loaded from (the built-in embedder's, before
    /// `inkling pull-model --embedder`): the words say how to get it.
    #[error("{0}")]
    ModelMissing(String),
}

/// A model's answer that was refused, and why: what a retry tells the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedAnswer {
    /// What was wrong with it, in words the model can act on.
    pub problem: String,
    /// The answer as the model wrote it, cut to [`RefusedAnswer::MAX_QUOTED_CHARS`].
    pub answer: String,
    /// It stopped at the token limit (`done_reason: "length"`): it needs more room.
    pub cut_off: bool,
}

impl RefusedAnswer {
    /// Enough of a wrong answer to show the model what it did; a longer one is cut.
    pub const MAX_QUOTED_CHARS: usize = 2000;

    pub fn new(problem: impl Into<String>, answer: &str, cut_off: bool) -> Self {
        RefusedAnswer {
            problem: problem.into(),
            answer: answer.chars().take(Self::MAX_QUOTED_CHARS).collect(),
            cut_off,
        }
    }
}

/// Ollama's text for a model load that stalled past `OLLAMA_LOAD_TIMEOUT` (old and new
/// runner names): a cold-start timeout reported by the server.
const LOAD_TIMEOUT_MARKERS: [&str; 2] = [
    "timed out waiting for llama runner to start",
    "timed out waiting for llama-server to start",
];

/// docs/DESIGN.md, "Failure reasons". Deliberate readings where the rule's words meet
/// real failures:
/// - 503 ("server busy") is `timeout`: up, but cannot take work now;
/// - a 500 whose message is Ollama's model-load timeout is `timeout`: it is a cold
///   model load, reported by the server instead of seen by our clock;
/// - a 404 naming a model ("model 'x' not found") is `model_missing`: the provider's
///   state, shown with its fix (`ollama pull MODEL`); any other 404 is `other`.
pub fn classify_reason(error: &ProviderError) -> FailureReason {
    match error {
        ProviderError::Unreachable(_) => FailureReason::Unreachable,
        ProviderError::TimedOut(_) => FailureReason::Timeout,
        ProviderError::Status { code: 503, .. } => FailureReason::Timeout,
        ProviderError::Status { code: 500, message }
            if LOAD_TIMEOUT_MARKERS.iter().any(|m| message.contains(m)) =>
        {
            FailureReason::Timeout
        }
        ProviderError::Status { code: 404, message }
            if message.contains("model") && message.contains("not found") =>
        {
            FailureReason::ModelMissing
        }
        ProviderError::Status { .. } => FailureReason::Other,
        ProviderError::Invalid(_) | ProviderError::Unusable(_) => FailureReason::Schema,
        ProviderError::Unexpected(_) => FailureReason::Other,
        ProviderError::Misconfigured(_) => FailureReason::Unreachable,
        // Only when cutting the note could not make it fit (the core cuts first).
        ProviderError::ContextExceeded { .. } => FailureReason::Other,
        // Only an embedding call says it; the embedding work reads it on its own.
        ProviderError::NoEmbeddings(_) => FailureReason::Other,
        ProviderError::ModelMissing(_) => FailureReason::ModelMissing,
    }
}

/// The connection went away under us (before a complete response).
fn is_connection_drop(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
            | io::ErrorKind::NotConnected
    )
}

impl ProviderError {
    /// Sending the request or waiting for the response head failed.
    pub fn from_send_error(error: &SendRequestError) -> Self {
        use actix_web::error::ParseError;
        let text = error.to_string();
        match error {
            SendRequestError::Connect(ConnectError::Timeout) => ProviderError::TimedOut(text),
            // Refused, DNS (Resolver/NoRecords/Unresolved), Disconnected (accepted,
            // then closed before answering), no route: no answer at all.
            SendRequestError::Connect(_) => ProviderError::Unreachable(text),
            SendRequestError::Timeout => ProviderError::TimedOut(text),
            SendRequestError::Send(e) if is_connection_drop(e) => ProviderError::Unreachable(text),
            SendRequestError::Response(ParseError::Incomplete) => ProviderError::Unreachable(text),
            SendRequestError::Response(ParseError::Io(e)) if is_connection_drop(e) => {
                ProviderError::Unreachable(text)
            }
            // Garbage instead of HTTP, a bad URL, …: not something waiting will fix.
            _ => ProviderError::Unexpected(text),
        }
    }

    /// Reading the response body failed.
    pub fn from_payload_error(error: &PayloadError) -> Self {
        let text = error.to_string();
        match error {
            PayloadError::Io(e) if e.kind() == io::ErrorKind::TimedOut => {
                ProviderError::TimedOut(text)
            }
            PayloadError::Incomplete(_) => ProviderError::Unreachable(text),
            PayloadError::Io(e) if is_connection_drop(e) => ProviderError::Unreachable(text),
            PayloadError::Overflow => {
                ProviderError::Invalid(format!("the answer is too large ({text})"))
            }
            _ => ProviderError::Unexpected(text),
        }
    }

    /// `.json()` on a 200 answer failed.
    pub fn from_json_error(error: &JsonPayloadError) -> Self {
        match error {
            JsonPayloadError::Payload(e) => Self::from_payload_error(e),
            other => ProviderError::Invalid(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::error::ParseError;

    fn reason_of_send(error: SendRequestError) -> FailureReason {
        classify_reason(&ProviderError::from_send_error(&error))
    }

    fn io_error(kind: io::ErrorKind) -> io::Error {
        io::Error::new(kind, "test")
    }

    #[test]
    fn connection_refused_is_unreachable() {
        let refused =
            SendRequestError::Connect(ConnectError::Io(io_error(io::ErrorKind::ConnectionRefused)));
        assert_eq!(reason_of_send(refused), FailureReason::Unreachable);
    }

    #[test]
    fn a_dns_failure_is_unreachable() {
        let dns = SendRequestError::Connect(ConnectError::Resolver(Box::new(io_error(
            io::ErrorKind::NotFound,
        ))));
        assert_eq!(reason_of_send(dns), FailureReason::Unreachable);
        assert_eq!(
            reason_of_send(SendRequestError::Connect(ConnectError::NoRecords)),
            FailureReason::Unreachable
        );
    }

    #[test]
    fn a_reset_before_the_response_is_unreachable() {
        // awc reports "accepted, read the request, closed" as Disconnected.
        assert_eq!(
            reason_of_send(SendRequestError::Connect(ConnectError::Disconnected)),
            FailureReason::Unreachable
        );
        assert_eq!(
            reason_of_send(SendRequestError::Send(io_error(
                io::ErrorKind::ConnectionReset
            ))),
            FailureReason::Unreachable
        );
        assert_eq!(
            reason_of_send(SendRequestError::Response(ParseError::Incomplete)),
            FailureReason::Unreachable
        );
        let body_cut = PayloadError::Incomplete(Some(io_error(io::ErrorKind::ConnectionReset)));
        assert_eq!(
            classify_reason(&ProviderError::from_payload_error(&body_cut)),
            FailureReason::Unreachable
        );
    }

    #[test]
    fn our_timeout_is_timeout() {
        assert_eq!(
            reason_of_send(SendRequestError::Timeout),
            FailureReason::Timeout
        );
        assert_eq!(
            reason_of_send(SendRequestError::Connect(ConnectError::Timeout)),
            FailureReason::Timeout
        );
        let body_stalled = PayloadError::Io(io_error(io::ErrorKind::TimedOut));
        assert_eq!(
            classify_reason(&ProviderError::from_payload_error(&body_stalled)),
            FailureReason::Timeout
        );
    }

    #[test]
    fn busy_503_is_timeout() {
        let busy = ProviderError::Status {
            code: 503,
            message: "server busy, please try again.  maximum pending requests exceeded".into(),
        };
        assert_eq!(classify_reason(&busy), FailureReason::Timeout);
    }

    #[test]
    fn a_server_side_model_load_timeout_is_timeout() {
        let load = ProviderError::Status {
            code: 500,
            message: "timed out waiting for llama runner to start - progress 0.00 - ".into(),
        };
        assert_eq!(classify_reason(&load), FailureReason::Timeout);
    }

    #[test]
    fn invalid_json_and_wrong_fields_are_schema() {
        let syntax = serde_json::from_str::<serde_json::Value>("{oops").unwrap_err();
        assert_eq!(
            classify_reason(&ProviderError::from_json_error(
                &JsonPayloadError::Deserialize(syntax)
            )),
            FailureReason::Schema
        );
        assert_eq!(
            classify_reason(&ProviderError::from_json_error(
                &JsonPayloadError::ContentType
            )),
            FailureReason::Schema
        );
        let wrong_fields = ProviderError::Invalid("missing field `summary`".into());
        assert_eq!(classify_reason(&wrong_fields), FailureReason::Schema);
    }

    #[test]
    fn a_model_not_found_404_is_model_missing_and_another_404_is_other() {
        let missing = ProviderError::Status {
            code: 404,
            message: "model 'llama3.2' not found".into(),
        };
        assert_eq!(classify_reason(&missing), FailureReason::ModelMissing);
        assert!(FailureReason::ModelMissing.is_provider_outage());
        let no_route = ProviderError::Status {
            code: 404,
            message: "404 page not found".into(),
        };
        assert_eq!(classify_reason(&no_route), FailureReason::Other);
    }

    #[test]
    fn a_500_runner_crash_is_other() {
        let crash = ProviderError::Status {
            code: 500,
            message:
                "model runner has unexpectedly stopped, this may be due to resource limitations"
                    .into(),
        };
        assert_eq!(classify_reason(&crash), FailureReason::Other);
    }

    #[test]
    fn garbage_instead_of_http_is_other() {
        assert_eq!(
            reason_of_send(SendRequestError::Response(ParseError::Version)),
            FailureReason::Other
        );
    }
}
