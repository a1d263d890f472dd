//! whisper.cpp's `whisper-server` as a child process: Whisper base on a port of the
//! test's choosing, serving OpenAI's transcription path (`--inference-path
//! /v1/audio/transcriptions`: its own default is `/inference`), loopback only, two
//! threads, its log kept in a file, killed when dropped. And the one request the tests
//! send it: a multipart `POST` as an OpenAI client sends it.
//!
//! The server loads the model before it binds its port: while it loads, connections
//! are refused, so `GET /health` answering 200 is the sign it is ready.

use std::fs::File;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::eventually::eventually_within;
use crate::llama::log_tail;
use crate::service_process::blocking_request;
use crate::tools::SpeechTools;

/// The path the server is told to serve: OpenAI's.
pub const TRANSCRIPTIONS: &str = "/v1/audio/transcriptions";
/// Loading the 148 MB model took ~1 s here; a loaded machine is far slower.
const LOAD_LIMIT: Duration = Duration::from_secs(120);
/// One short recording took 10-20 s on two shared cores; the limit leaves room for a
/// machine under load.
const ANSWER_LIMIT: Duration = Duration::from_secs(300);

/// A running `whisper-server`.
pub struct WhisperServer {
    child: Child,
    pub port: u16,
}

impl WhisperServer {
    /// Starts the server on `port` with `extra` arguments (`-l ko`, say), its output
    /// appended to `log`, and waits until it answers `GET /health` with 200.
    pub async fn start(tools: &SpeechTools, port: u16, log: &Path, extra: &[&str]) -> Self {
        let output = File::options()
            .create(true)
            .append(true)
            .open(log)
            .expect("the whisper-server log file opens");
        let errors = output.try_clone().expect("the log file is cloned");
        let child = Command::new(&tools.whisper_server)
            .arg("-m")
            .arg(&tools.model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", "2", "--inference-path", TRANSCRIPTIONS])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(output)
            .stderr(errors)
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "{} does not start: {error} (scripts/whisper-test-tools.sh builds it)",
                    tools.whisper_server.display()
                )
            });
        let mut server = WhisperServer { child, port };
        let what = format!("whisper-server on port {port} answering /health 200");
        let child = &mut server.child;
        eventually_within(LOAD_LIMIT, &what, || {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "whisper-server exited while starting ({status}); its log:\n{}",
                    log_tail(log)
                );
            }
            let healthy = blocking_request(port, "GET", "/health", None, None)
                .is_ok_and(|(status, _)| status == 200);
            async move { healthy.then_some(()) }
        })
        .await;
        server
    }
}

impl Drop for WhisperServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reply: status, `Content-Type`, body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

impl Reply {
    /// The `text` of a JSON reply.
    pub fn text(&self) -> String {
        let json: serde_json::Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {self:?}"));
        json["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {self:?}"))
            .to_string()
    }
}

/// `POST {TRANSCRIPTIONS}` as multipart form data: `audio` as the part `file` (named
/// `file_name`), then each of `fields` as a part of its own.
pub fn transcribe(port: u16, file_name: &str, audio: &[u8], fields: &[(&str, &str)]) -> Reply {
    let boundary = "inkling-test-boundary-7c1f0e";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(audio);
    body.extend_from_slice(b"\r\n");
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    post(
        port,
        TRANSCRIPTIONS,
        None,
        &format!("multipart/form-data; boundary={boundary}"),
        &body,
    )
}

/// One `POST` of a body of any type (multipart form data, a recording) on a connection
/// of its own, with `token` as a bearer token when given; the whole reply read.
pub fn post(port: u16, path: &str, token: Option<&str>, content_type: &str, body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the server accepts");
    stream
        .set_read_timeout(Some(ANSWER_LIMIT))
        .expect("a read timeout is set");
    let auth = token
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Content-Type: {content_type}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .expect("the request head is sent");
    stream.write_all(body).expect("the request body is sent");
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .expect("the server answers within the limit");
    let raw = String::from_utf8(raw).expect("the reply is UTF-8");
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP reply");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not HTTP: {head}"));
    let content_type = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    Reply {
        status,
        content_type,
        body: body.to_string(),
    }
}
