//! The `[ollama]` section: where Ollama is, which model, and how long a call, a load
//! and the model's stay in memory may take. `keep_alive` is read as Ollama reads it.

use std::time::Duration;

use serde::Deserialize;

use super::strict;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OllamaSettings {
    #[serde(deserialize_with = "strict::text")]
    pub url: String,
    #[serde(deserialize_with = "strict::text")]
    pub model: String,
    #[serde(deserialize_with = "strict::whole")]
    pub request_timeout_ms: u64,
    /// The longest deadline a note that keeps timing out while Ollama is up gets.
    #[serde(deserialize_with = "strict::whole")]
    pub max_request_timeout_ms: u64,
    #[serde(deserialize_with = "strict::whole")]
    pub health_interval_ms: u64,
    /// How long Ollama keeps the model loaded after a call, as Ollama reads it (a Go
    /// duration: "30m", "1h30m"; "-1" for ever; "0" unloads at once).
    #[serde(deserialize_with = "strict::text")]
    pub keep_alive: String,
    /// How long loading the model may take.
    #[serde(deserialize_with = "strict::whole")]
    pub load_timeout_ms: u64,
    /// The context every call asks for, in tokens (never above the model's own).
    #[serde(deserialize_with = "strict::whole")]
    pub num_ctx: u32,
    /// The model that makes the notes' vectors (related notes), pulled like the chat
    /// model; empty: no vectors.
    #[serde(deserialize_with = "strict::text")]
    pub embedding_model: String,
    /// The embedding model's context in tokens: a longer note is cut to it.
    #[serde(deserialize_with = "strict::whole")]
    pub embedding_context_tokens: u32,
}

impl OllamaSettings {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    pub fn max_request_timeout(&self) -> Duration {
        Duration::from_millis(self.max_request_timeout_ms)
    }

    pub fn load_timeout(&self) -> Duration {
        Duration::from_millis(self.load_timeout_ms)
    }

    /// How long the model stays loaded after a call; `None`: for ever. (Validated at
    /// load, so a bad value reads as the default's 30 minutes here.)
    pub fn keep_alive(&self) -> Option<Duration> {
        parse_keep_alive(&self.keep_alive).unwrap_or(Some(Duration::from_secs(1800)))
    }

    pub fn health_interval(&self) -> Duration {
        Duration::from_millis(self.health_interval_ms)
    }
}

/// The smallest `ollama.num_ctx`: the system prompt, the tags in use and a 2,048-token
/// answer take most of it.
pub const MIN_NUM_CTX: u32 = 4096;

/// `ollama.keep_alive` as Ollama reads it: Go's duration syntax (`30m`, `1h30m`,
/// `90s`, `500ms`, `0`), a negative one meaning "for ever". Written here rather than
/// taken from a crate because the rule is Ollama's (Go's `time.ParseDuration`), and a
/// value it refuses would fail every call.
pub fn parse_keep_alive(text: &str) -> Result<Option<Duration>, String> {
    let text = text.trim();
    let bad = || format!("\"{text}\" is not a duration like \"30m\", \"1h30m\" or \"-1\"");
    if let Some(rest) = text.strip_prefix('-') {
        return if rest.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            Ok(None)
        } else {
            Err(bad())
        };
    }
    if text == "0" {
        return Ok(Some(Duration::ZERO));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        let number: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let millis = match &rest[..unit] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return Err(bad()),
        };
        total += Duration::from_millis(number.saturating_mul(millis));
        rest = &rest[unit..];
    }
    Ok(Some(total))
}

#[cfg(test)]
mod tests {
    #[test]
    fn keep_alive_reads_as_ollama_reads_it() {
        use std::time::Duration;
        let read = |text| super::parse_keep_alive(text);
        assert_eq!(read("30m"), Ok(Some(Duration::from_secs(1800))));
        assert_eq!(read("1h30m"), Ok(Some(Duration::from_secs(5400))));
        assert_eq!(read("500ms"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(read("0"), Ok(Some(Duration::ZERO)));
        assert_eq!(read("-1"), Ok(None));
        assert_eq!(read("-5m"), Ok(None));
        for bad in ["", "30", "m", "30 minutes", "1.5h", "-", "30x"] {
            assert!(read(bad).is_err(), "{bad:?}");
        }
    }
}
