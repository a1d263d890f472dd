//! One test's world: a `llama-server` with the real model on a port of its own, and the
//! `inkling` binary configured for it through a config file (`[ai] provider = "openai"`),
//! in a temporary directory that holds the service's data, the config and the server's
//! log. Reached over the HTTP API only, as a person's client would.
//!
//! When a test fails, the scene prints what happened (the service's status, the server's
//! and the service's last log lines) and keeps its directory, so the failure can be read
//! without running the slow test again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::eventually::eventually_within_every;
use crate::llama::{self, LlamaServer};
use crate::ports::free_port;
use crate::service_process::{blocking_request, ServiceProcess};
use crate::tools::{ChatModel, Tools};

/// How long one call may take on this CPU: measured 4-5 s for a note, ~16 s for one that
/// fills the context, on 2 shared cores; a loaded machine takes several times that.
pub const ONE_CALL: Duration = Duration::from_secs(180);
/// How long the health check may take to see a change of the server (it runs every
/// 250 ms here; a loaded machine is slow).
pub const HEALTH_CHANGE: Duration = Duration::from_secs(30);
/// How often a wait looks at the service: often enough to see a state that lasts one
/// health interval (250 ms), seldom enough to leave the CPU to the model.
pub const LOOK_EVERY: Duration = Duration::from_millis(100);
/// How often a wait for answers looks: they take seconds each.
const LOOK_FOR_ANSWERS_EVERY: Duration = Duration::from_secs(1);

// Fields drop in this order: the processes stop before their directory goes.
pub struct Scene {
    inkling: Option<ServiceProcess>,
    llama: Option<LlamaServer>,
    llama_port: u16,
    tools: Tools,
    /// The name the service is configured with.
    model_name: &'static str,
    /// Taken when a failing test keeps it.
    dir: Option<tempfile::TempDir>,
}

impl Scene {
    /// The tools for Gemma 3 270M (or a failure naming what is missing), a free port for
    /// the server and the directory; nothing started yet.
    pub fn new() -> Scene {
        Scene::with_model(ChatModel::Gemma)
    }

    /// [`Scene::new`] with `model` as the chat model; the service is configured with its
    /// name ([`ChatModel::alias`], which [`Scene::start_llama`] is to be given).
    pub fn with_model(model: ChatModel) -> Scene {
        Scene {
            inkling: None,
            llama: None,
            llama_port: free_port(),
            tools: Tools::for_model(model),
            model_name: model.alias(),
            dir: Some(tempfile::tempdir().expect("a temporary directory")),
        }
    }

    /// The scene's directory: the service's data, the config, the servers' logs.
    pub fn dir(&self) -> &Path {
        self.dir.as_ref().expect("the scene's directory").path()
    }

    /// The server's log: every start of the scene's server appends to it.
    pub fn llama_log(&self) -> PathBuf {
        self.dir().join("llama-server.log")
    }

    /// Starts `llama-server` on the scene's port (the same port every time) under the
    /// name `alias`, and waits until it has loaded the model.
    pub async fn start_llama(&mut self, alias: &str) {
        assert!(self.llama.is_none(), "llama-server is already running");
        let log = self.llama_log();
        self.llama = Some(LlamaServer::start(&self.tools, self.llama_port, alias, &log).await);
    }

    /// Starts `llama-server` as [`Scene::start_llama`] does, making embeddings too
    /// (`--embeddings --pooling mean`): one server for the chat and the vectors.
    pub async fn start_llama_with_embeddings(&mut self, alias: &str) {
        assert!(self.llama.is_none(), "llama-server is already running");
        let log = self.llama_log();
        let extra = ["--embeddings", "--pooling", "mean"];
        let server =
            LlamaServer::start_with(&self.tools, self.llama_port, alias, &log, &extra).await;
        self.llama = Some(server);
    }

    /// The running server.
    pub fn llama(&self) -> &LlamaServer {
        self.llama.as_ref().expect("llama-server is running")
    }

    /// Kills the server with SIGKILL.
    pub fn kill_llama(&mut self) {
        self.llama.take().expect("llama-server is running").kill();
    }

    /// Starts the service on a config file that points it at the scene's server.
    pub fn start_inkling(&mut self) {
        self.start_inkling_with("");
    }

    /// [`Scene::start_inkling`] with more lines of the `[openai]` section.
    pub fn start_inkling_with(&mut self, openai_lines: &str) {
        let config = self.dir().join("config.toml");
        let text = format!(
            "{}{openai_lines}\n",
            openai_config(self.llama_port, self.model_name)
        );
        std::fs::write(&config, text).expect("the config file");
        let data = self.dir().join("data");
        std::fs::create_dir_all(&data).expect("the data dir");
        self.inkling = Some(ServiceProcess::start_with_config(
            &data,
            free_port(),
            &config,
        ));
    }

    /// Starts the service with the built-in embedder making the notes' vectors (its
    /// model in `model_dir`), pointed at the scene's server for the chat, which the test
    /// may leave unstarted: no model server at all.
    pub fn start_inkling_with_builtin_embedder(&mut self, model_dir: &Path) {
        let config = self.dir().join("config.toml");
        let text = openai_config(self.llama_port, self.model_name);
        std::fs::write(&config, text).expect("the config file");
        let data = self.dir().join("data");
        std::fs::create_dir_all(&data).expect("the data dir");
        let model_dir = model_dir
            .to_str()
            .expect("the model folder's path is UTF-8");
        self.inkling = Some(ServiceProcess::start_with_config_and_env(
            &data,
            free_port(),
            &config,
            &[
                ("INKLING_AI__BUILTIN_EMBEDDER", "true"),
                ("INKLING_AI__BUILTIN_EMBEDDER_DIR", model_dir),
            ],
        ));
    }

    fn inkling(&self) -> &ServiceProcess {
        self.inkling.as_ref().expect("inkling is running")
    }

    /// A request to the service's API with its token: the status and the body as JSON
    /// (`Null` when the body is not JSON).
    /// The related notes of `id` (`GET /api/notes/{id}/related`), once it has its
    /// vector: a few notes' vectors take ~1 s a call from a server, ~50 ms in process;
    /// a loaded machine and the model's load at the first call take longer.
    pub async fn related_once_embedded(&self, id: &str) -> Value {
        let path = format!("/api/notes/{id}/related");
        eventually_within_every(
            Duration::from_secs(120),
            Duration::from_millis(250),
            "the note's vector",
            || {
                let (status, body) = self.request("GET", &path, None);
                assert_eq!(status, 200, "{body}");
                async move { (body["embedded"] == true).then_some(body) }
            },
        )
        .await
    }

    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let inkling = self.inkling();
        let token = inkling.token().expect("the service wrote its API token");
        let body = body.map(Value::to_string);
        let (status, text) =
            blocking_request(inkling.port, method, path, Some(&token), body.as_deref())
                .unwrap_or_else(|error| panic!("{method} {path}: no answer: {error}"));
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// `POST /api/ask`: the status, and the answer's events as the service streamed
    /// them (read to its end, within [`ONE_CALL`]).
    pub fn ask(&self, question: &str) -> (u16, Vec<inkling::api::ask::AskEvent>) {
        use std::io::{Read, Write};
        let inkling = self.inkling();
        let token = inkling.token().expect("the service wrote its API token");
        let body = json!({ "question": question }).to_string();
        let mut stream =
            std::net::TcpStream::connect(("127.0.0.1", inkling.port)).expect("the service listens");
        stream.set_read_timeout(Some(ONE_CALL)).unwrap();
        write!(
            stream,
            "POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            inkling.port,
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .expect("the answer, to its end");
        let status = response
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        // The body is chunked: the events are its lines that are JSON (one an event,
        // each in a chunk of its own or several to a chunk); the chunks' sizes are not.
        let events = response
            .split("\r\n\r\n")
            .skip(1)
            .flat_map(|part| part.lines())
            .filter_map(|line| inkling::api::ask::AskEvent::from_line(line)?.ok())
            .collect();
        (status, events)
    }

    /// `inkling ARGS` against the running service, as a person's terminal runs it.
    pub fn cli(&self, args: &[&str]) -> std::process::Output {
        self.inkling().cli(args)
    }

    /// `POST /api/notes/voice` with `recording` as a `content_type` body: the status and
    /// the body as JSON.
    pub fn capture_voice(&self, content_type: &str, recording: &[u8]) -> (u16, Value) {
        let inkling = self.inkling();
        let token = inkling.token().expect("the service wrote its API token");
        let reply = crate::whisper::post(
            inkling.port,
            "/api/notes/voice",
            Some(&token),
            content_type,
            recording,
        );
        (
            reply.status,
            serde_json::from_str(&reply.body).unwrap_or(Value::Null),
        )
    }

    /// `POST /api/notes`: the new note's id.
    pub fn capture(&self, body: &str) -> String {
        let (status, note) = self.request("POST", "/api/notes", Some(&json!({ "body": body })));
        assert_eq!(status, 201, "capture: {note}");
        note["id"].as_str().expect("a note has an id").to_string()
    }

    /// `GET /api/notes/{id}`: the note with its AI progress (`ai.attempts`).
    pub fn note(&self, id: &str) -> Value {
        let (status, note) = self.request("GET", &format!("/api/notes/{id}"), None);
        assert_eq!(status, 200, "GET /api/notes/{id}: {note}");
        note
    }

    /// `GET /api/status`.
    pub fn status(&self) -> Value {
        let (status, body) = self.request("GET", "/api/status", None);
        assert_eq!(status, 200, "GET /api/status: {body}");
        body
    }

    /// Waits until `GET /api/status` says the provider is in `state` (`ready`,
    /// `model_missing`, `not_running`…), and returns the provider's part of it.
    pub async fn provider_becomes(&self, state: &str) -> Value {
        let what = format!("GET /api/status with provider.state \"{state}\"");
        eventually_within_every(HEALTH_CHANGE, LOOK_EVERY, &what, || {
            let provider = self.status()["provider"].clone();
            async move { (provider["state"] == state).then_some(provider) }
        })
        .await
    }

    /// Waits until the worker's state (`GET /api/status`, `worker.state`) is `state`.
    pub async fn worker_becomes(&self, state: &str) -> Value {
        let what = format!("GET /api/status with worker.state \"{state}\"");
        eventually_within_every(HEALTH_CHANGE, LOOK_EVERY, &what, || {
            let worker = self.status()["worker"].clone();
            async move { (worker["state"] == state).then_some(worker) }
        })
        .await
    }

    /// Waits until the worker's state is no longer `state` (`running`: the call ended).
    pub async fn worker_leaves(&self, state: &str) -> Value {
        let what = format!("GET /api/status with worker.state other than \"{state}\"");
        eventually_within_every(HEALTH_CHANGE, LOOK_EVERY, &what, || {
            let worker = self.status()["worker"].clone();
            async move { (worker["state"] != state).then_some(worker) }
        })
        .await
    }

    /// Waits until every note in `ids` is no longer pending (done or failed), `limit` at
    /// most, and returns them in that order.
    pub async fn settled(&self, ids: &[String], limit: Duration) -> Vec<Value> {
        let what = format!("the {} notes done or failed", ids.len());
        eventually_within_every(limit, LOOK_FOR_ANSWERS_EVERY, &what, || {
            self.assert_llama_not_stopped_by_others();
            let notes: Vec<Value> = ids.iter().map(|id| self.note(id)).collect();
            let settled = notes.iter().all(|note| note["ai_status"] != "pending");
            async move { settled.then_some(notes) }
        })
        .await
    }

    /// The tests stop the server with SIGKILL only, which leaves no word in its log; this
    /// line is its answer to SIGTERM or SIGINT, i.e. someone else on the machine stopping
    /// it (seen once: the server then hung, answering nothing, and the wait ran out).
    fn assert_llama_not_stopped_by_others(&self) {
        let log = std::fs::read_to_string(self.llama_log()).unwrap_or_default();
        assert!(
            !log.contains("cleaning up before exit"),
            "llama-server was stopped by a signal this test never sends (SIGTERM or SIGINT from \
             another process on the machine): not a finding about inkling; run again"
        );
    }

    /// What a failing test shows: the status, then the last lines of both logs.
    fn evidence(&self) -> String {
        let status = match &self.inkling {
            Some(inkling) => inkling
                .token()
                .and_then(|token| {
                    blocking_request(inkling.port, "GET", "/api/status", Some(&token), None).ok()
                })
                .map_or_else(
                    || "no answer".to_string(),
                    |(code, body)| format!("{code} {body}"),
                ),
            None => "not started".to_string(),
        };
        let service_log = self
            .inkling
            .as_ref()
            .map(|inkling| llama::tail(&inkling.stderr_text(), 60))
            .unwrap_or_default();
        format!(
            "GET /api/status: {status}\n--- llama-server's log (last lines) ---\n{}\n--- inkling's stderr (last lines) ---\n{service_log}",
            llama::log_tail(&self.llama_log())
        )
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("{}", self.evidence());
            // The service and the server stop before their files are read again.
            self.inkling.take();
            self.llama.take();
            if let Some(dir) = self.dir.take() {
                eprintln!("kept for reading: {}", dir.keep().display());
            }
        }
    }
}

/// The service's configuration for a server on `port`: the keys a person writes to point
/// inkling at llama.cpp (the README's `[openai]` lines).
fn openai_config(port: u16, model: &str) -> String {
    format!(
        r#"[ai]
provider = "openai"

[openai]
url = "http://127.0.0.1:{port}/v1"
model = "{model}"
request_timeout_ms = 120000
max_request_timeout_ms = 600000
# The default checks every second; the tests wait for the server's changes.
health_interval_ms = 250
# 0: ask the server (llama.cpp's /v1/models gives its n_ctx).
context_tokens = 0
"#
    )
}
