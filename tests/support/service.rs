//! Test set-up written once: the settings every test starts from, and a service started
//! in this process on them (`zero2prod`'s `spawn_app`, shared by the API, browser and
//! tray tests and the benchmarks).

// Each test binary uses part of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use inkling::clock::SharedClock;
use inkling::configuration::{Settings, UserFile};
use inkling::http::server::ServerHandle;
use inkling::startup::Application;

use crate::ports::free_port;

/// Settings for a test: `data_dir`, a free port (`ports::free_port`), no log file, no tray, English,
/// and an Ollama URL where nothing listens (the discard port) so that no test talks to a
/// real Ollama; then `extra` (environment-style keys, `INKLING_OLLAMA__URL`) on top.
pub fn test_settings(data_dir: &Path, extra: &[(&str, &str)]) -> Settings {
    let mut env: HashMap<String, String> = HashMap::from([
        ("INKLING_HTTP__PORT".into(), free_port().to_string()),
        ("INKLING_LOG__FILE".into(), "false".into()),
        ("INKLING_TRAY__ENABLED".into(), "false".into()),
        // No test's reminder reaches the desktop of the person running the tests.
        ("INKLING_REMINDERS__NOTIFY".into(), "false".into()),
        ("INKLING_LOCALE".into(), "en".into()),
        ("INKLING_OLLAMA__URL".into(), "http://127.0.0.1:9".into()),
        // The tests of a server's embeddings (or of none) do not load the built-in
        // embedder; those of it turn it on (tests/real_model).
        ("INKLING_AI__BUILTIN_EMBEDDER".into(), "false".into()),
        // The fake Ollama's embedding model, as the tests were written for (the default
        // configuration names none since the built-in embedder, issue #37).
        (
            "INKLING_OLLAMA__EMBEDDING_MODEL".into(),
            "embeddinggemma".into(),
        ),
    ]);
    for (key, value) in extra {
        env.insert(key.to_string(), value.to_string());
    }
    let mut settings = Settings::load_with_env(&UserFile::None, env).expect("test settings");
    settings.set_data_dir(data_dir);
    settings
}

/// A service running in this process, as `inkling run` would start it.
pub struct RunningService {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// The API token it wrote.
    pub token: String,
    /// Stops it (gracefully or at once).
    pub handle: ServerHandle,
    /// Resolves when it has stopped.
    pub stopped: actix_rt::task::JoinHandle<anyhow::Result<()>>,
}

/// Builds the service on `settings` and runs it on this System.
pub async fn start_service(settings: &Settings, clock: SharedClock) -> RunningService {
    let app = Application::build(settings.clone(), clock)
        .await
        .expect("the service starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    let handle = app.handle();
    let stopped = actix_rt::spawn(app.run_until_stopped());
    let token = std::fs::read_to_string(settings.api_token_path()).expect("the API token");
    RunningService {
        address,
        token,
        handle,
        stopped,
    }
}
