//! Test harness: an in-process service per test, and the real binary as a process.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use inkling::clock::ManualClock;
use inkling::http::server::ServerHandle;
use serde_json::Value;

use crate::service::{start_service, test_settings};

pub const START: &str = "2026-03-01T12:00:00Z";

/// A service running inside the test's actix system.
pub struct TestApp {
    pub address: String,
    pub token: String,
    pub data_dir: tempfile::TempDir,
    pub clock: ManualClock,
    pub handle: ServerHandle,
    http: awc::Client,
}

pub fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(START)
        .unwrap()
        .with_timezone(&Utc)
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

pub async fn spawn_app_with(extra: &[(&str, &str)]) -> TestApp {
    spawn_app_in(tempfile::tempdir().unwrap(), extra).await
}

/// A service on a given data dir (e.g. one on a small disk).
pub async fn spawn_app_in(data_dir: tempfile::TempDir, extra: &[(&str, &str)]) -> TestApp {
    let settings = test_settings(data_dir.path(), extra);
    let clock = ManualClock::new(start_time());
    let service = start_service(&settings, Arc::new(clock.clone())).await;
    TestApp {
        address: service.address,
        token: service.token,
        data_dir,
        clock,
        handle: service.handle,
        http: awc::Client::builder()
            .timeout(Duration::from_secs(10))
            .finish(),
    }
}

/// Status code and parsed JSON body (Null when the body is not JSON).
pub type Reply = (u16, Value);

async fn reply<S>(response: Result<awc::ClientResponse<S>, awc::error::SendRequestError>) -> Reply
where
    S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin,
{
    let mut response = response.expect("the request is answered");
    let body = response.body().limit(64 << 20).await.unwrap();
    (
        response.status().as_u16(),
        serde_json::from_slice(&body).unwrap_or(Value::Null),
    )
}

impl TestApp {
    pub fn db_path(&self) -> PathBuf {
        self.data_dir.path().join("inkling.db")
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.get_with_auth(path, Some(&format!("Bearer {}", self.token)))
            .await
    }

    pub async fn get_with_auth(&self, path: &str, authorization: Option<&str>) -> Reply {
        let mut request = self.http.get(format!("{}{path}", self.address));
        if let Some(value) = authorization {
            request = request.insert_header(("Authorization", value));
        }
        reply(request.send().await).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        reply(
            self.http
                .delete(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .send()
                .await,
        )
        .await
    }

    /// A GET with these headers and no credential of its own.
    pub async fn get_with_headers(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self.http.get(format!("{}{path}", self.address));
        for &(name, value) in headers {
            request = request.insert_header((name, value));
        }
        reply(request.send().await).await
    }

    /// A POST with no credential (`/session`).
    pub async fn post_unauthenticated(&self, path: &str, body: &Value) -> Reply {
        reply(
            self.http
                .post(format!("{}{path}", self.address))
                .send_json(body)
                .await,
        )
        .await
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Reply {
        reply(
            self.http
                .post(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .send_json(body)
                .await,
        )
        .await
    }

    pub async fn patch_json(&self, path: &str, body: &Value) -> Reply {
        reply(
            self.http
                .patch(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .send_json(body)
                .await,
        )
        .await
    }

    /// Posts raw bytes with a content type (for malformed input).
    pub async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> Reply {
        reply(
            self.http
                .post(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .insert_header(("Content-Type", content_type))
                .send_body(body)
                .await,
        )
        .await
    }

    pub async fn capture(&self, body: &str) -> Value {
        let (status, note) = self
            .post_json("/api/notes", &serde_json::json!({ "body": body }))
            .await;
        assert_eq!(status, 201, "capture failed: {note}");
        note
    }

    /// `GET /api/notes/{id}` as the note alone: without what only the detail carries
    /// (the rendered body, the AI's progress), so it compares with a list's or an
    /// edit's note.
    pub async fn note(&self, id: &str) -> Value {
        let (status, mut detail) = self.get(&format!("/api/notes/{id}")).await;
        assert_eq!(status, 200, "no note {id}: {detail}");
        let object = detail.as_object_mut().expect("a note is an object");
        assert!(
            object.remove("body_html").is_some(),
            "the detail renders the body"
        );
        assert!(
            object.remove("ai").is_some(),
            "the detail has the AI's progress"
        );
        detail
    }

    pub fn note_count_in_db(&self) -> i64 {
        rusqlite::Connection::open(self.db_path())
            .unwrap()
            .query_row("SELECT COUNT(*) FROM notes", [], |r| r.get(0))
            .unwrap()
    }
}

// ----- the real binary ---------------------------------------------------------------

pub fn inkling_binary() -> &'static str {
    env!("CARGO_BIN_EXE_inkling")
}

pub use crate::ports::free_port;

/// The `inkling` binary running as a service with its own data dir and port.
pub struct ServiceProcess {
    pub child: Child,
    pub port: u16,
    pub data_dir: PathBuf,
    /// What the service wrote to stderr, shown if it fails to start.
    stderr: tempfile::NamedTempFile,
}

impl ServiceProcess {
    pub fn start(data_dir: &Path, port: u16) -> ServiceProcess {
        Self::start_with(data_dir, port, &[])
    }

    /// Starts with extra environment (e.g. `INKLING_OLLAMA__URL`).
    pub fn start_with(data_dir: &Path, port: u16, env: &[(&str, &str)]) -> ServiceProcess {
        let stderr = tempfile::NamedTempFile::new().expect("a file for the service's stderr");
        let child = inkling_command(data_dir, port)
            .envs(env.iter().copied())
            .arg("run")
            .stdout(Stdio::null())
            .stderr(stderr.reopen().expect("the stderr file reopens"))
            .spawn()
            .expect("inkling starts");
        let mut service = ServiceProcess {
            child,
            port,
            data_dir: data_dir.to_path_buf(),
            stderr,
        };
        service.wait_until_ready();
        service
    }

    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                let said = std::fs::read_to_string(self.stderr.path()).unwrap_or_default();
                panic!("inkling exited during start-up: {status}; stderr:\n{said}");
            }
            if self.token().is_some()
                && blocking_request(
                    self.port,
                    "GET",
                    "/api/status",
                    self.token().as_deref(),
                    None,
                )
                .is_ok_and(|(status, _)| status == 200)
            {
                return;
            }
            // Waiting for another process to come up, not testing a timed rule.
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("inkling did not answer within 30 s");
    }

    pub fn token(&self) -> Option<String> {
        std::fs::read_to_string(self.data_dir.join("api-token")).ok()
    }

    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit; `None` if it is still running after `limit`.
    pub fn wait_for_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn cli(&self, args: &[&str]) -> Output {
        run_cli(&self.data_dir, self.port, args, None)
    }
}

impl Drop for ServiceProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn inkling_command(data_dir: &Path, port: u16) -> Command {
    let mut command = Command::new(inkling_binary());
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", data_dir)
        .env("XDG_CONFIG_HOME", data_dir.join("config-home"))
        .env("INKLING_DATA_DIR", data_dir)
        .env("INKLING_HTTP__PORT", port.to_string())
        .env("INKLING_TRAY__ENABLED", "false")
        .env("INKLING_OLLAMA__URL", "http://127.0.0.1:9");
    command
}

/// Runs a CLI subcommand with the same data dir and port as a service would use.
pub fn run_cli(data_dir: &Path, port: u16, args: &[&str], stdin: Option<&str>) -> Output {
    run_cli_with(data_dir, port, args, stdin, &[])
}

/// [`run_cli`] with more environment (`EDITOR`, say).
pub fn run_cli_with(
    data_dir: &Path,
    port: u16,
    args: &[&str],
    stdin: Option<&str>,
    env: &[(&str, &str)],
) -> Output {
    let mut child = inkling_command(data_dir, port)
        .envs(env.iter().copied())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().unwrap()
}

/// A minimal blocking HTTP/1.1 request (for threads hammering a service process).
pub fn blocking_request(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    json_body: Option<&str>,
) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let body = json_body.unwrap_or("");
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not HTTP: {response:?}")))?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}
