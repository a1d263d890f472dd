//! `inkling mcp` spoken to line by line, as no SDK would: a line that is not JSON and
//! a request with a repeated key, written straight to its standard input. JSON-RPC 2.0
//! answers the first with a parse error (-32700) and refuses the second as an invalid
//! request (-32600); before, the first got no answer at all and the second was read
//! with its last key winning. The server keeps serving after both.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::Value;

use crate::ports::free_port;
use crate::service_process::inkling_binary;

/// How long one answer may take: the server answers each line at once; this is a
/// limit for a loaded machine, not a wait.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl RawServer {
    fn start(data_dir: &std::path::Path, env: &[(&str, &str)]) -> RawServer {
        let mut child = Command::new(inkling_binary())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", data_dir)
            .env("XDG_CONFIG_HOME", data_dir.join("config-home"))
            .env("INKLING_DATA_DIR", data_dir)
            .env("INKLING_HTTP__PORT", free_port().to_string())
            .envs(env.iter().copied())
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("inkling mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        RawServer {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn answer(&self, to: &str) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER_WITHIN)
            .unwrap_or_else(|e| panic!("no answer to {to} ({e})"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{to}: {line:?} is not JSON: {e}"))
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Also with the model server's key named in the settings and absent from this
/// environment: `inkling mcp` never talks to the model server, so it starts without it.
#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_a_repeated_key_an_invalid_request() {
    let data_dir = tempfile::tempdir().unwrap();
    let mut server = RawServer::start(
        data_dir.path(),
        &[
            ("INKLING_AI__PROVIDER", "openai"),
            ("INKLING_OPENAI__MODEL", "some-model"),
            ("INKLING_OPENAI__API_KEY_ENV", "INKLING_OPENAI_KEY"),
        ],
    );
    server.send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    );
    let hello = server.answer("initialize");
    assert_eq!(hello["id"], 1, "{hello}");
    assert!(hello["result"]["serverInfo"].is_object(), "{hello}");
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"#);
    let said = server.answer("a line cut short");
    assert_eq!(said["jsonrpc"], "2.0", "{said}");
    assert_eq!(said["id"], Value::Null, "{said}");
    assert_eq!(said["error"]["code"], -32700, "{said}");

    server.send(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_notes","name":"capture_note","arguments":{"text":"which one?"}}}"#,
    );
    let said = server.answer("a repeated key");
    assert_eq!(said["id"], 3, "{said}");
    assert_eq!(said["error"]["code"], -32600, "{said}");
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"name\""),
        "{said}"
    );

    server.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#);
    let listed = server.answer("tools/list after both");
    assert_eq!(listed["id"], 4, "{listed}");
    assert!(
        listed["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{listed}"
    );

    // The client hangs up: the server ends, cleanly.
    drop(server.stdin.take());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
