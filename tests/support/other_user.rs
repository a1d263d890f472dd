//! Another real user of this machine, for the tests of what other users cannot do: the
//! system user `inkling-test-other`, made when absent (`useradd --system
//! --no-create-home`), and programs run as that user (a fake model server holding a
//! port, a client of the service).
//!
//! Making a user and switching to it need root, which the test command and CI have
//! (they run apt). Without root these tests fail saying so: a test of another user's
//! program that cannot make one passes nothing silently.

// Each test binary uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};

/// The other user's name.
pub const NAME: &str = "inkling-test-other";

/// The system's own Python: another user cannot run the one under root's home.
pub const PYTHON: &str = "/usr/bin/python3";

/// Another user: its uid and gid.
#[derive(Debug, Clone, Copy)]
pub struct OtherUser {
    pub uid: u32,
    pub gid: u32,
}

impl OtherUser {
    /// `inkling-test-other`, made if this machine has no such user yet. Panics, saying
    /// what is missing, when not root.
    pub fn get() -> OtherUser {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        assert!(
            root,
            "this test needs another real user and runs as root to make one and switch to \
             it (run the tests as root, as scripts/test.sh and CI do)"
        );
        if inkling::socket_owner::uid_of(NAME).is_none() {
            let made = Command::new("useradd")
                .args([
                    "--system",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    NAME,
                ])
                .output()
                .unwrap_or_else(|e| {
                    panic!("this test needs `useradd` (passwd) to make {NAME}: {e}")
                });
            // Another test binary may have made it meanwhile (exit 9: exists).
            assert!(
                made.status.success() || made.status.code() == Some(9),
                "useradd {NAME}: {}",
                String::from_utf8_lossy(&made.stderr)
            );
        }
        let uid = inkling::socket_owner::uid_of(NAME).expect("the other user exists now");
        let gid = group_of(NAME);
        assert!(
            std::path::Path::new(PYTHON).exists(),
            "this test runs its other user's programs with {PYTHON} (apt-get install python3)"
        );
        OtherUser { uid, gid }
    }

    /// `command`, to be run as this user (no supplementary groups: std drops them when
    /// root sets the uid).
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.uid(self.uid).gid(self.gid).current_dir("/");
        command
    }

    /// A Python program run as this user, to its end.
    pub fn run_python(&self, code: &str, args: &[&str]) -> Output {
        self.command(PYTHON)
            .arg("-c")
            .arg(code)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("python3 runs as the other user")
    }
}

fn group_of(name: &str) -> u32 {
    let output = Command::new("id")
        .args(["-g", name])
        .output()
        .expect("id runs");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("the other user's group")
}

/// An Ollama-like model server in Python, as a process of its own: `GET /api/tags`
/// lists llama3.2, `POST /api/chat` answers a valid enrichment, `/api/show` and
/// `/api/generate` as Ollama does. It prints one JSON line per request it receives
/// (method, path, body), which [`FakeModelServer::heard`] gives back.
const FAKE_OLLAMA: &str = r#"
import http.server, json, sys
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def reply(self, value, code=200):
        data = json.dumps(value).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def heard(self, body):
        print(json.dumps({"method": self.command, "path": self.path, "body": body}), flush=True)
    def do_GET(self):
        self.heard("")
        if self.path.startswith("/api/tags"):
            self.reply({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest"}]})
        else:
            self.reply({"error": "not found"}, 404)
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        self.heard(body)
        if self.path == "/api/chat":
            # The title names the note's first words: inkling keeps no title without
            # a word of its note.
            try:
                note = json.loads(body)["messages"][-1]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                note = ""
            title = " ".join(["Read by the fake:"] + note.split()[:3])
            content = json.dumps({"title": title, "tags": ["fake"], "summary": "S."})
            self.reply({"model": "llama3.2", "message": {"role": "assistant", "content": content},
                        "done": True, "done_reason": "stop", "eval_count": 5})
        elif self.path == "/api/show":
            self.reply({"model_info": {"general.architecture": "llama", "llama.context_length": 8192}})
        elif self.path == "/api/generate":
            self.reply({"model": "llama3.2", "response": "", "done": True, "done_reason": "load"})
        else:
            self.reply({"error": "not found"}, 404)
http.server.ThreadingHTTPServer.allow_reuse_address = True
server = http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
print("listening", flush=True)
server.serve_forever()
"#;

/// The fake model server as a process (of the other user, or of this one); killed on
/// drop.
pub struct FakeModelServer {
    child: Child,
    heard: Arc<Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl FakeModelServer {
    /// Listens on `address:port` as `user` (`None`: as this process's user), and
    /// returns once it listens.
    pub fn start(address: &str, port: u16, user: Option<OtherUser>) -> FakeModelServer {
        let mut command = match user {
            Some(user) => user.command(PYTHON),
            None => Command::new(PYTHON),
        };
        let mut child = command
            .arg("-c")
            .arg(FAKE_OLLAMA)
            .args([address, &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the fake model server starts");
        let mut lines = BufReader::new(child.stdout.take().expect("its stdout")).lines();
        match lines.next() {
            Some(Ok(line)) if line == "listening" => {}
            other => panic!("the fake model server did not start: {other:?}"),
        }
        let heard = Arc::new(Mutex::new(Vec::new()));
        let sink = heard.clone();
        let reader = std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        FakeModelServer {
            child,
            heard,
            reader: Some(reader),
        }
    }

    /// Every request it has received so far, a JSON line each.
    pub fn heard(&self) -> Vec<String> {
        self.heard.lock().unwrap().clone()
    }

    /// Stops it, and returns every request it received (all of them: its output is
    /// read to the end). Its port is free again when this returns.
    pub fn stop(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.heard()
    }
}

impl Drop for FakeModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
