//! The `inkling` binary as a process of its own: started with its own data dir and port
//! (and a config file when a test gives one), waited for until it answers, killed on
//! drop; its CLI run the same way; and a minimal blocking HTTP client to reach it. For
//! what needs a real process (signals, kill -9, the CLI, a real model server behind
//! it); shared by the API tests (tests/api) and the real-model tests (tests/real_model).

// Each test binary uses part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn inkling_binary() -> &'static str {
    env!("CARGO_BIN_EXE_inkling")
}

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
        Self::spawn(data_dir, port, env, &[])
    }

    /// Starts on a configuration file (`inkling --config FILE run`), as a person whose
    /// settings are in a file runs it. The environment's keys still win over it: the
    /// data dir, the port, no tray, and the discard port as Ollama's URL.
    pub fn start_with_config(data_dir: &Path, port: u16, config: &Path) -> ServiceProcess {
        let config = config.to_str().expect("the config file's path is UTF-8");
        Self::spawn(data_dir, port, &[], &["--config", config])
    }

    /// [`ServiceProcess::start_with_config`] with more environment (the model server's
    /// key, say), which only the service is given.
    pub fn start_with_config_and_env(
        data_dir: &Path,
        port: u16,
        config: &Path,
        env: &[(&str, &str)],
    ) -> ServiceProcess {
        let config = config.to_str().expect("the config file's path is UTF-8");
        Self::spawn(data_dir, port, env, &["--config", config])
    }

    fn spawn(
        data_dir: &Path,
        port: u16,
        env: &[(&str, &str)],
        global_args: &[&str],
    ) -> ServiceProcess {
        let stderr = tempfile::NamedTempFile::new().expect("a file for the service's stderr");
        let child = inkling_command(data_dir, port)
            .envs(env.iter().copied())
            .args(global_args)
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

    /// What the service has written to stderr so far (its log), for a failing test's
    /// message.
    pub fn stderr_text(&self) -> String {
        std::fs::read_to_string(self.stderr.path()).unwrap_or_default()
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
        .env("INKLING_REMINDERS__NOTIFY", "false")
        .env("INKLING_OLLAMA__URL", "http://127.0.0.1:9")
        // Off unless a test turns it on (in its config file, which the environment
        // would override: such a test removes this variable).
        .env("INKLING_AI__BUILTIN_EMBEDDER", "false")
        // The fake Ollama's embedding model, as the tests were written for (the default
        // configuration names none since the built-in embedder, issue #37).
        .env("INKLING_OLLAMA__EMBEDDING_MODEL", "embeddinggemma");
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

/// What the page does with the session `POST /session` opened (`opened`, its JSON):
/// checks the service's proof, answers its challenge, and returns the access; None
/// when the service refuses.
pub fn blocking_page_access(port: u16, opened: &serde_json::Value) -> Option<String> {
    let id = opened["session"].as_str()?;
    let key_hex = opened["key"].as_str()?;
    let key: Vec<u8> = (0..key_hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&key_hex[i..i + 2], 16).unwrap())
        .collect();
    let nonce = inkling::identity::new_nonce().unwrap();
    let path = format!("/session/proof?session={id}&nonce={nonce}");
    let (status, proved) = blocking_request(port, "GET", &path, None, None).ok()?;
    if status != 200 {
        return None;
    }
    let proved: serde_json::Value = serde_json::from_str(&proved).unwrap();
    let proof = proved["proof"].as_str().unwrap();
    assert!(inkling::page_proof::is_service_proof(
        &key, port, &nonce, proof
    ));
    let challenge = proved["challenge"].as_str().unwrap();
    let answer = inkling::page_proof::page_answer(&key, port, challenge);
    let body = serde_json::json!({ "session": id, "challenge": challenge, "answer": answer });
    let (status, granted) = blocking_request(
        port,
        "POST",
        "/session/access",
        None,
        Some(&body.to_string()),
    )
    .ok()?;
    if status != 200 {
        return None;
    }
    let granted: serde_json::Value = serde_json::from_str(&granted).unwrap();
    Some(granted["access"].as_str()?.to_owned())
}
