//! llama.cpp's `llama-server` as a child process: the test's chat model on a port of
//! the test's choosing, started as the issue gives it (`-c 2048 --parallel 1`, `--jinja`,
//! Gemma's chat template file when it is Gemma, loopback only), its log kept in a file,
//! killed when dropped.
//!
//! The server ignores the model name a request carries and answers under the name given
//! by `--alias` (docs/PLATFORM.md, "OpenAI-compatible servers"): starting it under
//! another alias is how a test makes the configured model missing.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::eventually::eventually_within;
use crate::service_process::blocking_request;
use crate::tools::Tools;

/// The name the tests configure inkling with for Gemma 3 270M, and the server answers
/// under (SmolLM2's: `ChatModel::alias`).
pub const MODEL: &str = "gemma-3-270m";
/// The context the server is started with: smaller than the long article.
pub const CONTEXT_TOKENS: u32 = 2048;
/// Loading the 253 MB model took ~2 s here; a loaded machine is far slower.
const LOAD_LIMIT: Duration = Duration::from_secs(120);
/// How many of the log's last lines a failing test shows.
const LOG_LINES_SHOWN: usize = 60;

/// A running `llama-server`.
pub struct LlamaServer {
    child: Child,
    port: u16,
}

impl LlamaServer {
    /// Starts the server on `port` under the name `alias`, its output appended to `log`,
    /// and waits until `GET /health` answers 200 (it answers 503 "Loading model" while
    /// the model loads).
    pub async fn start(tools: &Tools, port: u16, alias: &str, log: &Path) -> LlamaServer {
        Self::start_with(tools, port, alias, log, &[]).await
    }

    /// [`LlamaServer::start`] with more arguments: `--embeddings --pooling mean` makes
    /// the server answer `/v1/embeddings` too (Gemma 3 270M's file names no pooling, and
    /// without one the server refuses: "Pooling type 'none' is not OAI compatible").
    pub async fn start_with(
        tools: &Tools,
        port: u16,
        alias: &str,
        log: &Path,
        extra: &[&str],
    ) -> LlamaServer {
        let output = File::options()
            .create(true)
            .append(true)
            .open(log)
            .expect("the llama-server log file opens");
        let errors = output.try_clone().expect("the log file is cloned");
        let child = Command::new(&tools.llama_server)
            .arg("-m")
            .arg(&tools.model)
            .args([
                "-c",
                &CONTEXT_TOKENS.to_string(),
                "--parallel",
                "1",
                "--jinja",
            ])
            .args(tools.chat_template.iter().flat_map(|template| {
                [
                    std::ffi::OsStr::new("--chat-template-file"),
                    template.as_os_str(),
                ]
            }))
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--alias", alias])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(output)
            .stderr(errors)
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "{} does not start: {error} (scripts/real-model-tools.sh builds it)",
                    tools.llama_server.display()
                )
            });
        let mut server = LlamaServer { child, port };
        server.wait_until_healthy(log).await;
        server
    }

    async fn wait_until_healthy(&mut self, log: &Path) {
        let what = format!("llama-server on port {} answering /health 200", self.port);
        let port = self.port;
        let child = &mut self.child;
        eventually_within(LOAD_LIMIT, &what, || {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "llama-server exited while starting ({status}); its log:\n{}",
                    log_tail(log)
                );
            }
            let healthy = blocking_request(port, "GET", "/health", None, None)
                .is_ok_and(|(status, _)| status == 200);
            async move { healthy.then_some(()) }
        })
        .await;
    }

    /// `GET /slots` says the one slot is working on a request: a call is under way.
    pub fn is_processing(&self) -> bool {
        blocking_request(self.port, "GET", "/slots", None, None)
            .is_ok_and(|(status, body)| status == 200 && body.contains("\"is_processing\":true"))
    }

    /// The tokens the slot's call has written so far (`GET /slots`' `n_decoded`);
    /// `None` while no call is under way.
    pub fn tokens_written(&self) -> Option<u64> {
        let (status, body) = blocking_request(self.port, "GET", "/slots", None, None).ok()?;
        let slots: serde_json::Value = serde_json::from_str(&body).ok()?;
        let slot = &slots[0];
        if status != 200 || slot["is_processing"] != serde_json::json!(true) {
            return None;
        }
        slot.pointer("/next_token/0/n_decoded")?.as_u64()
    }

    /// SIGKILL, and waits for it to be gone: the port refuses connections afterwards.
    pub fn kill(mut self) {
        self.kill_now();
    }

    fn kill_now(&mut self) {
        // `Child::kill` is SIGKILL on Unix: no goodbye to the client in the middle of
        // its call, as when the server crashes or is killed by the OOM killer.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// How many requests the server began to process (one log line each), counted in its log.
pub fn calls_in_log(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| line.contains("launch_slot_") && line.contains("processing task"))
        .count()
}

/// The log's last lines, for a failing test's message.
pub fn log_tail(log: &Path) -> String {
    tail(
        &std::fs::read_to_string(log).unwrap_or_default(),
        LOG_LINES_SHOWN,
    )
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
