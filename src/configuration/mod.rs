//! Settings: the typed configuration tree and the layers it is loaded from.
//!
//! Layers, later wins, key by key (docs/DESIGN.md, "Configuration"):
//! 1. `config/default.toml`, embedded in the binary, so a fresh install needs no file;
//! 2. the user file: `--config PATH` (must exist), else the platform config dir's
//!    `inkling/config.toml` (used when present);
//! 3. the environment: `INKLING_<SECTION>__<KEY>` (`INKLING_HTTP__PORT`), top-level keys
//!    as `INKLING_<KEY>` (`INKLING_DATA_DIR`), for the keys the defaults list; other
//!    `INKLING_` variables are not settings (`environment.rs`).
//!
//! Every value is checked before anything starts; a bad one stops start-up with a
//! one-line message that names the key.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::logging::LogFilter;

mod ai;
mod environment;
mod locale;
mod ollama;
mod openai;
mod strict;
mod transcription;

pub use ai::{AiSettings, EmbeddingCalls, ProviderCalls, ProviderKind, MIN_EMBEDDING_CONTEXT};
pub use locale::{Locale, LocaleSetting};
pub use ollama::{parse_keep_alive, OllamaSettings, MIN_NUM_CTX};
pub use openai::{ApiKey, OpenAiSettings, UNSAID_CONTEXT_TOKENS};
pub use transcription::{TranscriptionSettings, MAX_AUDIO_BYTES};

/// The embedded defaults: every key, its default and a one-line comment.
pub const DEFAULT_CONFIG_TOML: &str = include_str!("../../config/default.toml");

/// The largest `http.max_body_bytes`: a request body (and a note) is read into memory
/// whole, and every request may be that large; 16 MiB is far beyond any thought typed
/// or pasted, and bounds what a client can make the service hold.
const MAX_BODY_BYTES: usize = 16 << 20;

/// Keys whose environment value is a comma-separated list (`INKLING_WORKER__RETRY_BACKOFFS_MS=0,5000`).
const LIST_KEYS: [&str; 3] = [
    "worker.unreachable_backoffs_ms",
    "worker.retry_backoffs_ms",
    "ai.trusted_listeners",
];

/// The keys the embedded defaults list: the only settings the environment can set.
fn default_keys() -> Result<std::collections::BTreeSet<String>, ConfigError> {
    let defaults = config::Config::builder()
        .add_source(config::File::from_str(
            DEFAULT_CONFIG_TOML,
            config::FileFormat::Toml,
        ))
        .build()
        .and_then(|c| config::Source::collect(&c))
        .map_err(|e| ConfigError::Invalid(one_line(&e.to_string())))?;
    Ok(environment::known_keys(&defaults))
}

/// Why the configuration cannot be used. The message always names the key or file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {path}: {reason}")]
    File { path: PathBuf, reason: String },
    #[error("{0}")]
    Invalid(String),
    #[error("{key}: {reason}")]
    Key { key: &'static str, reason: String },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Empty means the platform data dir; see [`Settings::data_dir`].
    #[serde(deserialize_with = "strict::text")]
    data_dir: String,
    /// `en`, `ko`, or empty for "from LANG"; see [`Settings::locale`].
    locale: LocaleSetting,
    /// `locale` resolved once, at load time, against `LANG`.
    #[serde(skip, default)]
    resolved_locale: Locale,
    pub http: HttpSettings,
    pub ai: AiSettings,
    pub ollama: OllamaSettings,
    pub openai: OpenAiSettings,
    /// `openai.api_key_env`'s key, read once at load time.
    #[serde(skip, default)]
    openai_api_key: ApiKey,
    /// Why that key could not be read: only the service needs it, and says so at
    /// start (`check_model_key`); a client command never sends it.
    #[serde(skip, default)]
    openai_api_key_missing: Option<String>,
    pub transcription: TranscriptionSettings,
    /// `transcription.api_key_env`'s key, read once at load time.
    #[serde(skip, default)]
    transcription_api_key: ApiKey,
    /// Why that key could not be read (said at start, as the model server's is).
    #[serde(skip, default)]
    transcription_api_key_missing: Option<String>,
    pub worker: WorkerSettings,
    pub telemetry: TelemetrySettings,
    pub expiry: ExpirySettings,
    pub trash: TrashSettings,
    pub tray: TraySettings,
    pub reminders: ReminderSettings,
    pub quick: QuickSettings,
    pub log: LogSettings,
    pub mcp: McpSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSettings {
    /// 1–65535.
    #[serde(deserialize_with = "strict::whole")]
    pub port: u16,
    #[serde(deserialize_with = "ip_address")]
    pub bind: IpAddr,
    #[serde(deserialize_with = "strict::boolean")]
    pub allow_non_loopback: bool,
    #[serde(deserialize_with = "strict::whole")]
    pub max_body_bytes: usize,
}

impl HttpSettings {
    /// The URL a program on this machine (the CLI, the tray, the browser) reaches the
    /// service at: loopback when it listens there or everywhere, else the one address
    /// it listens on (a LAN address does not answer on 127.0.0.1).
    pub fn local_url(&self, port: u16) -> String {
        match self.bind {
            ip if ip.is_loopback() || ip.is_unspecified() => format!("http://127.0.0.1:{port}"),
            IpAddr::V4(ip) => format!("http://{ip}:{port}"),
            IpAddr::V6(ip) => format!("http://[{ip}]:{port}"),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerSettings {
    #[serde(deserialize_with = "strict::whole_list")]
    pub unreachable_backoffs_ms: Vec<u64>,
    #[serde(deserialize_with = "strict::whole_list")]
    pub retry_backoffs_ms: Vec<u64>,
    #[serde(deserialize_with = "strict::whole")]
    pub max_attempts: u32,
    /// The longest a note's reading may take at the model's measured speed, in ms; a
    /// longer note is cut to what is read in that time. 0: no cap but the context.
    #[serde(deserialize_with = "strict::whole")]
    pub longest_read_ms: u64,
}

impl WorkerSettings {
    /// `longest_read_ms` as a duration; `None`: no cap.
    pub fn longest_read(&self) -> Option<std::time::Duration> {
        (self.longest_read_ms > 0).then(|| std::time::Duration::from_millis(self.longest_read_ms))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySettings {
    #[serde(deserialize_with = "strict::boolean")]
    pub enabled: bool,
    #[serde(deserialize_with = "strict::whole")]
    pub max_file_bytes: u64,
    #[serde(deserialize_with = "strict::whole")]
    pub retention_days: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpirySettings {
    #[serde(deserialize_with = "strict::whole")]
    pub days: u32,
    /// Whether notes expire: `ask` (the page asks once, after a month of use; off until
    /// then), `on` or `off` (decided here; nothing is asked).
    #[serde(default, deserialize_with = "expiry_choice")]
    pub choice: crate::expiry::ExpiryChoice,
}

/// `expiry.choice`, with a message that says what to write instead.
fn expiry_choice<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<crate::expiry::ExpiryChoice, D::Error> {
    let text = strict::text(deserializer)?;
    crate::expiry::ExpiryChoice::parse(text.trim()).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "\"{}\" is not one of ask (the page asks once, after a month), on, off",
            text.trim()
        ))
    })
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrashSettings {
    #[serde(deserialize_with = "strict::whole")]
    pub retention_days: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraySettings {
    #[serde(deserialize_with = "strict::boolean")]
    pub enabled: bool,
}

/// Reminders (docs/DESIGN.md, "Reminders").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReminderSettings {
    /// A desktop notification when a reminder is due (`org.freedesktop.Notifications`
    /// on the session bus); off, reminders are listed only by `inkling today` and
    /// the API.
    #[serde(deserialize_with = "strict::boolean")]
    pub notify: bool,
    /// The daily review's time, `HH:MM` on the person's wall clock; `""`: none
    /// (`crate::reminders::review::parse_time`).
    pub daily_review: String,
}

/// The quick-capture window (`inkling quick`) and its desktop shortcut
/// (`inkling shortcut on`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickSettings {
    /// A Chromium-family browser to open the window with (`--app=URL`); empty: the
    /// first one found on PATH, else the default browser (a tab).
    pub browser: String,
    /// The shortcut in the desktop's notation, `<Control><Alt>n` (GNOME's, which
    /// `inkling shortcut` translates for the others).
    pub shortcut: String,
    /// Whether the running service binds `shortcut` through the desktop portal's
    /// GlobalShortcuts (the desktop asks the person once).
    #[serde(deserialize_with = "strict::boolean")]
    pub portal: bool,
}

/// `inkling mcp`, the Model Context Protocol server for the person's AI tools
/// (docs/MCP.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSettings {
    /// Whether an AI tool may add notes (`capture_note`); off, the tool is not offered.
    #[serde(deserialize_with = "strict::boolean")]
    pub allow_capture: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    /// Checked when the settings load; `RUST_LOG` wins over it when set.
    pub level: LogFilter,
    #[serde(deserialize_with = "strict::boolean")]
    pub file: bool,
}

/// `http.bind` as an IP address, with a message that says what to write instead.
fn ip_address<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<IpAddr, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(|_| {
        serde::de::Error::custom(format!(
            "\"{text}\" is not an IP address (write 127.0.0.1, not a host name)"
        ))
    })
}

/// A URL with a scheme and a host, or an error naming `key`.
fn check_http_url(key: &'static str, value: &str) -> Result<(), ConfigError> {
    strict::http_url(value).map_err(|reason| ConfigError::Key { key, reason })
}

impl Settings {
    /// The configured provider's call settings.
    pub fn provider_calls(&self) -> ProviderCalls {
        match self.ai.provider {
            ProviderKind::Ollama => ProviderCalls {
                request_timeout: self.ollama.request_timeout(),
                max_request_timeout: self.ollama.max_request_timeout(),
                keep_alive: self.ollama.keep_alive(),
                load_timeout: self.ollama.load_timeout(),
                context_cap: Some(self.ollama.num_ctx),
                health_interval: self.ollama.health_interval(),
                model: self.ollama.model.clone(),
            },
            ProviderKind::OpenAi => ProviderCalls {
                request_timeout: self.openai.request_timeout(),
                max_request_timeout: self.openai.max_request_timeout(),
                keep_alive: None,
                load_timeout: self.openai.request_timeout(),
                context_cap: self.openai.context_cap(),
                health_interval: self.openai.health_interval(),
                model: self.openai.model.clone(),
            },
        }
    }

    /// How the notes' vectors are made: the configured provider's embedding model when
    /// one is named, else the built-in embedder unless it is turned off; `None`: no
    /// vectors.
    pub fn embedding_calls(&self) -> Option<EmbeddingCalls> {
        let (model, context_tokens) = match self.ai.provider {
            ProviderKind::Ollama => (
                &self.ollama.embedding_model,
                self.ollama.embedding_context_tokens,
            ),
            ProviderKind::OpenAi => (
                &self.openai.embedding_model,
                self.openai.embedding_context_tokens,
            ),
        };
        let model = model.trim();
        if !model.is_empty() {
            return Some(EmbeddingCalls {
                model: model.to_string(),
                context_tokens,
                in_process: false,
            });
        }
        self.ai.builtin_embedder.then(|| EmbeddingCalls {
            model: crate::api::worker::BUILTIN_EMBEDDER.to_string(),
            context_tokens: ai::BUILTIN_EMBEDDER_CONTEXT,
            in_process: true,
        })
    }

    /// The folder set for the built-in embedder's model (`ai.builtin_embedder_dir`), or
    /// `None` for the default under the data dir.
    pub fn builtin_embedder_dir(&self) -> Option<PathBuf> {
        let dir = self.ai.builtin_embedder_dir.trim();
        (!dir.is_empty()).then(|| expand_home(dir))
    }

    /// The OpenAI-compatible server's key (`openai.api_key_env`), when one is named.
    pub fn openai_api_key(&self) -> &ApiKey {
        &self.openai_api_key
    }

    /// For the service only: the model server's key is there when one is named. The
    /// client commands and `inkling mcp` never talk to the model server, so they run
    /// without it in their environment.
    pub fn check_model_key(&self) -> Result<(), ConfigError> {
        if let Some(reason) = &self.openai_api_key_missing {
            return Err(ConfigError::Key {
                key: "openai.api_key_env",
                reason: reason.clone(),
            });
        }
        match &self.transcription_api_key_missing {
            None => Ok(()),
            Some(reason) => Err(ConfigError::Key {
                key: "transcription.api_key_env",
                reason: reason.clone(),
            }),
        }
    }

    /// The speech-to-text server's key (`transcription.api_key_env`), when one is named.
    pub fn transcription_api_key(&self) -> &ApiKey {
        &self.transcription_api_key
    }
}

/// Where the user file comes from.
#[derive(Debug, Clone, Default)]
pub enum UserFile {
    /// `--config PATH`: the file must exist.
    Explicit(PathBuf),
    /// The platform config dir's `inkling/config.toml`, used when present.
    #[default]
    PlatformDefault,
    /// No user file at all (tests).
    None,
}

impl Settings {
    /// Loads the three layers from the real environment.
    pub fn load(user_file: &UserFile) -> Result<Self, ConfigError> {
        Self::load_with_env(user_file, std::env::vars().collect())
    }

    /// Loads the layers with an explicit environment, so tests need not touch the process's.
    pub fn load_with_env(
        user_file: &UserFile,
        env: HashMap<String, String>,
    ) -> Result<Self, ConfigError> {
        let mut builder = config::Config::builder().add_source(config::File::from_str(
            DEFAULT_CONFIG_TOML,
            config::FileFormat::Toml,
        ));
        match user_file {
            UserFile::Explicit(path) => {
                if !path.is_file() {
                    return Err(ConfigError::File {
                        path: path.clone(),
                        reason: "no such file".into(),
                    });
                }
                builder = builder.add_source(config::File::from(path.as_path()).required(true));
            }
            UserFile::PlatformDefault => {
                if let Some(path) = platform_config_file() {
                    builder =
                        builder.add_source(config::File::from(path.as_path()).required(false));
                }
            }
            UserFile::None => {}
        }
        let known = default_keys()?;
        let variables = environment::settings_variables(&env, &known);
        let mut environment = config::Environment::with_prefix("INKLING")
            .prefix_separator("_")
            .separator("__")
            .try_parsing(true)
            .list_separator(",");
        for key in LIST_KEYS {
            environment = environment.with_list_parse_key(key);
        }
        let lang = env.get("LANG").cloned();
        let mut settings: Settings = builder
            .add_source(environment.source(Some(variables.taken.into_iter().collect())))
            .build()
            .and_then(|c| c.try_deserialize())
            .map_err(|e| ConfigError::Invalid(one_line(&e.to_string())))?;
        // The key's variable may have any name, `INKLING_OPENAI__KEY` included.
        let key_variable = settings.openai.api_key_env.trim();
        let voice_key_variable = settings.transcription.api_key_env.trim();
        if let Some(typo) = variables
            .unknown
            .iter()
            .find(|v| v.as_str() != key_variable && v.as_str() != voice_key_variable)
        {
            return Err(ConfigError::Invalid(environment::unknown_variable(typo)));
        }
        settings.validate()?;
        if settings.ai.provider == ProviderKind::OpenAi {
            match ApiKey::from_env(&settings.openai.api_key_env, &env) {
                Ok(key) => settings.openai_api_key = key,
                Err(reason) => settings.openai_api_key_missing = Some(reason),
            }
        }
        if settings.transcription.enabled() {
            match ApiKey::from_env_for(
                "transcription.api_key_env",
                &settings.transcription.api_key_env,
                &env,
            ) {
                Ok(key) => settings.transcription_api_key = key,
                Err(reason) => settings.transcription_api_key_missing = Some(reason),
            }
        }
        settings.resolved_locale = Locale::resolve(settings.locale, lang.as_deref());
        Ok(settings)
    }

    /// Checks what types alone cannot: ranges, non-empty lists, a usable URL.
    fn validate(&self) -> Result<(), ConfigError> {
        fn bad(key: &'static str, reason: impl Into<String>) -> Result<(), ConfigError> {
            Err(ConfigError::Key {
                key,
                reason: reason.into(),
            })
        }
        let ip = self.http.bind;
        if !ip.is_loopback() && !self.http.allow_non_loopback {
            return bad(
                "http.bind",
                format!(
                    "{ip} is not a loopback address; the API would be reachable from the \
                     network. Set http.allow_non_loopback = true to do it anyway"
                ),
            );
        }
        if self.http.port == 0 {
            return bad("http.port", "must be a port from 1 to 65535");
        }
        if !(1..=MAX_BODY_BYTES).contains(&self.http.max_body_bytes) {
            return bad(
                "http.max_body_bytes",
                format!("must be from 1 to {MAX_BODY_BYTES} (16 MiB)"),
            );
        }
        if let Err(reason) = crate::reminders::review::parse_time(&self.reminders.daily_review) {
            return bad("reminders.daily_review", reason);
        }
        check_http_url("ollama.url", &self.ollama.url)?;
        if self.ollama.model.trim().is_empty() {
            return bad("ollama.model", "must not be empty");
        }
        if self.ollama.request_timeout_ms == 0 {
            return bad("ollama.request_timeout_ms", "must be at least 1");
        }
        if self.ollama.max_request_timeout_ms < self.ollama.request_timeout_ms {
            return bad(
                "ollama.max_request_timeout_ms",
                "must be at least ollama.request_timeout_ms",
            );
        }
        if self.ollama.health_interval_ms == 0 {
            return bad("ollama.health_interval_ms", "must be at least 1");
        }
        if let Err(reason) = parse_keep_alive(&self.ollama.keep_alive) {
            return bad("ollama.keep_alive", reason);
        }
        if self.ollama.load_timeout_ms == 0 {
            return bad("ollama.load_timeout_ms", "must be at least 1");
        }
        if self.ollama.num_ctx < MIN_NUM_CTX {
            return bad(
                "ollama.num_ctx",
                format!("must be at least {MIN_NUM_CTX} (the prompt and the answer need room)"),
            );
        }
        if self.ollama.embedding_context_tokens < MIN_EMBEDDING_CONTEXT {
            return bad(
                "ollama.embedding_context_tokens",
                format!("must be at least {MIN_EMBEDDING_CONTEXT}"),
            );
        }
        if self.ai.provider == ProviderKind::OpenAi {
            self.openai
                .validate()
                .map_err(|(key, reason)| ConfigError::Key { key, reason })?;
        }
        self.transcription
            .validate()
            .map_err(|(key, reason)| ConfigError::Key { key, reason })?;
        if let Err(reason) = self.ai.trusted_listener_uids() {
            return bad("ai.trusted_listeners", reason);
        }
        if self.worker.unreachable_backoffs_ms.is_empty() {
            return bad("worker.unreachable_backoffs_ms", "needs at least one wait");
        }
        if self.worker.retry_backoffs_ms.is_empty() {
            return bad("worker.retry_backoffs_ms", "needs at least one wait");
        }
        if self.worker.max_attempts == 0 {
            return bad("worker.max_attempts", "must be at least 1");
        }
        if self.telemetry.max_file_bytes < 1024 {
            return bad("telemetry.max_file_bytes", "must be at least 1024");
        }
        if self.telemetry.retention_days == 0 {
            return bad("telemetry.retention_days", "must be at least 1");
        }
        Ok(())
    }

    /// The data directory: `data_dir` when set, else the platform data dir's `inkling/`.
    pub fn data_dir(&self) -> PathBuf {
        if !self.data_dir.trim().is_empty() {
            return expand_home(self.data_dir.trim());
        }
        dirs::data_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("inkling")
    }

    /// Points the data directory somewhere else (tests, `--data-dir`-like overrides).
    pub fn set_data_dir(&mut self, dir: &Path) {
        self.data_dir = dir.to_string_lossy().into_owned();
    }

    /// The SQLite database file.
    pub fn database_path(&self) -> PathBuf {
        self.data_dir().join("inkling.db")
    }

    /// The per-install API token file.
    pub fn api_token_path(&self) -> PathBuf {
        self.data_dir().join("api-token")
    }

    /// The service log directory.
    pub fn logs_dir(&self) -> PathBuf {
        self.data_dir().join("logs")
    }

    /// The usage log directory.
    pub fn telemetry_dir(&self) -> PathBuf {
        self.data_dir().join("telemetry")
    }

    /// `locale`, or when empty the environment's `LANG` (`ko_KR.UTF-8` → Korean), as
    /// resolved when the settings were loaded.
    pub fn locale(&self) -> Locale {
        self.resolved_locale
    }
}

/// `~/.config/inkling/config.toml` on Linux.
pub fn platform_config_file() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("inkling").join("config.toml"))
}

/// `~/notes` → `$HOME/notes`; other paths are taken as they are.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

/// The config crate's messages can span lines (TOML parse errors quote the source);
/// start-up errors are one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
