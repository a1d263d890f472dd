//! What another real user of the machine cannot get (docs/SECURITY.md, "Other users of
//! the machine"): the notes, by listening on the model server's port while it is
//! stopped. Every program here that is "another user" runs as `inkling-test-other`
//! (tests/support/other_user.rs), which needs root: without it these tests fail saying
//! so.

use serde_json::Value;

use crate::eventually::eventually;
use crate::other_user::{FakeModelServer, OtherUser, NAME};
use crate::ports::free_port;
use crate::service_process::{blocking_request, ServiceProcess};

fn service_status(service: &ServiceProcess) -> Value {
    let token = service.token().expect("the token");
    let (code, body) = blocking_request(service.port, "GET", "/api/status", Some(&token), None)
        .expect("the status answers");
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).expect("the status is JSON")
}

fn stdout(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// While Ollama was stopped, another user's program on its port received the text of
/// every pending note (3/3) and wrote their titles. Now nothing at all goes to it (not
/// even a health check), the status says whose program it is and what to do, no note
/// fails meanwhile, and the same server run by the user itself gets the note at once.
#[tokio::test]
async fn a_model_server_port_held_by_another_user_gets_no_note_and_the_status_names_its_owner() {
    let other = OtherUser::get();
    let model_port = free_port();
    let squatter = FakeModelServer::start("127.0.0.1", model_port, Some(other));
    let data_dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{model_port}");
    let service = ServiceProcess::start_with(
        data_dir.path(),
        free_port(),
        &[
            ("INKLING_OLLAMA__URL", &url),
            ("INKLING_OLLAMA__HEALTH_INTERVAL_MS", "50"),
        ],
    );
    stdout(&service.cli(&["capture", "my bank PIN is 4711"]));

    let said = eventually("the status naming the other user", || async {
        let text = stdout(&service.cli(&["status"]));
        text.contains("Another user").then_some(text)
    })
    .await;
    let owner = format!("Another user (uid {}, {NAME}) is listening on Ollama's port {model_port}; inkling sends it no notes", other.uid);
    assert!(said.contains(&owner), "{said}");
    assert!(
        said.contains(&format!("add \"{NAME}\" to [ai] trusted_listeners")),
        "{said}"
    );
    let status = service_status(&service);
    assert_eq!(
        status["provider"]["state"], "untrusted_listener",
        "{status}"
    );
    assert_eq!(status["provider"]["uid"], other.uid, "{status}");
    assert_eq!(status["provider"]["user"], NAME, "{status}");
    assert_eq!(status["worker"]["state"], "withheld", "{status}");
    // A recheck by hand is a round trip through the monitor, which looks again.
    let rechecked = stdout(&service.cli(&["recheck"]));
    assert!(rechecked.contains(&owner), "{rechecked}");
    let counts = &service_status(&service)["counts"];
    assert_eq!(
        (&counts["pending"], &counts["failed"]),
        (&1.into(), &0.into()),
        "{counts}"
    );

    let heard = squatter.stop();
    assert!(
        heard.is_empty(),
        "another user's program was sent: {heard:?}"
    );

    // The real server (the user's own) back on the port: the note goes to it now.
    let real = FakeModelServer::start("127.0.0.1", model_port, None);
    eventually(
        "the note enriched once the user's own server is back",
        || async {
            let counts = service_status(&service)["counts"].clone();
            (counts["pending"] == 0).then_some(())
        },
    )
    .await;
    let listed = stdout(&service.cli(&["list"]));
    assert!(listed.contains("Read by the fake"), "{listed}");
    let heard = real.stop();
    assert!(
        heard
            .iter()
            .any(|request| request.contains("/api/chat") && request.contains("4711")),
        "{heard:?}"
    );
}

/// A client of the service in Python, run as the other user: `POST /session` with the
/// code. Prints `answered STATUS BODY`, or `refused ERROR` when the connection was
/// closed without an answer.
const SESSION_CLIENT: &str = r#"
import json, sys, urllib.error, urllib.request
port, code = sys.argv[1], sys.argv[2]
request = urllib.request.Request(
    "http://127.0.0.1:%s/session" % port, data=json.dumps({"code": code}).encode(),
    headers={"Content-Type": "application/json"}, method="POST")
try:
    with urllib.request.urlopen(request, timeout=10) as answer:
        print("answered", answer.status, answer.read().decode())
except urllib.error.HTTPError as error:
    print("answered", error.code, error.read().decode())
except Exception as error:
    print("refused", repr(error))
"#;

/// `inkling open` and the tray hand the browser `/?code=…`, which every user can read
/// in `ps`; another user polling `/proc` traded it for a session before the browser in
/// 8 of 8 tries. Now a connection from another user's program is closed before a byte
/// of it is read, and the code is left for the user's own browser.
#[tokio::test]
async fn another_users_program_cannot_trade_the_open_code_for_a_session() {
    let other = OtherUser::get();
    let data_dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(data_dir.path(), free_port());
    let token = service.token().unwrap();
    let (status, body) = blocking_request(
        service.port,
        "POST",
        "/api/open-code",
        Some(&token),
        Some("{}"),
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    let code: Value = serde_json::from_str(&body).unwrap();
    let code = code["code"].as_str().unwrap().to_string();

    let raced = other.run_python(SESSION_CLIENT, &[&service.port.to_string(), &code]);
    let raced = String::from_utf8_lossy(&raced.stdout).into_owned();
    assert!(
        raced.starts_with("refused"),
        "another user's client: {raced}"
    );

    // The user's own browser, a moment later: the code is still good.
    let (status, body) = blocking_request(
        service.port,
        "POST",
        "/session",
        None,
        Some(&format!(r#"{{"code":"{code}"}}"#)),
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"session\""), "{body}");
    assert!(
        service
            .stderr_text()
            .contains("a connection from another user's program closed"),
        "{}",
        service.stderr_text()
    );
}

/// Another user's listener on `[::1]:PORT`, in Python: prints `bound` when it could
/// take the address, or `refused ERROR`. It asks for SO_REUSEADDR and SO_REUSEPORT,
/// as a determined squatter would.
const IPV6_SQUATTER: &str = r#"
import socket, sys
listener = socket.socket(socket.AF_INET6)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    listener.bind(("::1", int(sys.argv[1])))
    listener.listen()
    print("bound")
except OSError as error:
    print("refused", error)
"#;

/// Chromium tries `[::1]` first for `localhost`, and inkling listened on 127.0.0.1
/// alone: another user listening on `[::1]:PORT` got the page opened at
/// `http://localhost:PORT`, with its code. Now inkling holds `[::1]:PORT` too, and
/// answers there as on 127.0.0.1.
#[tokio::test]
async fn with_inkling_running_another_user_cannot_listen_on_its_port_on_the_ipv6_loopback() {
    use std::io::{Read, Write};
    let other = OtherUser::get();
    let data_dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(data_dir.path(), free_port());
    let port = service.port;

    let squatted = other.run_python(IPV6_SQUATTER, &[&port.to_string()]);
    let squatted = String::from_utf8_lossy(&squatted.stdout).into_owned();
    assert!(
        squatted.starts_with("refused"),
        "another user on [::1]:{port}: {squatted}"
    );

    // What a browser opening http://localhost:PORT reaches first is inkling's page.
    let mut browser = std::net::TcpStream::connect(("::1", port))
        .expect("this test needs the IPv6 loopback ([::1]) that a browser tries first");
    write!(
        browser,
        "GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    browser.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("<title>inkling"), "{answer}");
    // And its API, by the address itself.
    let mut client = std::net::TcpStream::connect(("::1", port)).unwrap();
    write!(
        client,
        "GET /api/status HTTP/1.1\r\nHost: [::1]:{port}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        service.token().unwrap()
    )
    .unwrap();
    let mut answer = String::new();
    client.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// The same for an OpenAI-compatible server, configured as `localhost` (which reaches
/// both loopbacks): another user's program on its port gets nothing, and the status
/// names it as the model server's.
#[tokio::test]
async fn an_openai_compatible_servers_port_held_by_another_user_gets_nothing() {
    let other = OtherUser::get();
    let model_port = free_port();
    let squatter = FakeModelServer::start("127.0.0.1", model_port, Some(other));
    let data_dir = tempfile::tempdir().unwrap();
    let url = format!("http://localhost:{model_port}/v1");
    let service = ServiceProcess::start_with(
        data_dir.path(),
        free_port(),
        &[
            ("INKLING_AI__PROVIDER", "openai"),
            ("INKLING_OPENAI__URL", &url),
            ("INKLING_OPENAI__MODEL", "gemma-3-270m"),
            ("INKLING_OPENAI__HEALTH_INTERVAL_MS", "50"),
        ],
    );
    stdout(&service.cli(&["capture", "my bank PIN is 4711"]));
    let said = eventually("the status naming the other user", || async {
        let text = stdout(&service.cli(&["status"]));
        text.contains("Another user").then_some(text)
    })
    .await;
    assert!(
        said.contains(&format!(
            "Another user (uid {}, {NAME}) is listening on the model server's port {model_port}",
            other.uid
        )),
        "{said}"
    );
    let rechecked = stdout(&service.cli(&["recheck"]));
    assert!(rechecked.contains("Another user"), "{rechecked}");
    let heard = squatter.stop();
    assert!(
        heard.is_empty(),
        "another user's program was sent: {heard:?}"
    );
}

/// A model server that redirects, in Python, as a process of this user: every request
/// answered `307` to the same path at `argv[3]` (mode `all`), or all but its health
/// check, `GET /api/tags`, which it answers itself (mode `calls`).
const REDIRECTOR: &str = r#"
import http.server, json, sys
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if sys.argv[4] == "calls" and self.path.startswith("/api/tags"):
            data = json.dumps({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        else:
            data = b""
            self.send_response(307)
            self.send_header("Location", sys.argv[3] + self.path)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = answer
    do_POST = answer
http.server.ThreadingHTTPServer.allow_reuse_address = True
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
print("listening", flush=True)
server.serve_forever()
"#;

/// The redirecting server, killed on drop.
struct Redirector(std::process::Child);

impl Redirector {
    fn start(port: u16, to: &str, mode: &str) -> Redirector {
        use std::io::BufRead;
        let mut child = std::process::Command::new(crate::other_user::PYTHON)
            .args(["-c", REDIRECTOR, "", &port.to_string(), to, mode])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the redirecting server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "listening");
        Redirector(child)
    }
}

impl Drop for Redirector {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Before (issue #43 point 2): the user's own model server answering 307 to another
/// port was followed, and the listener-owner check did not look where it led: a note's
/// text reached another user's server. Now no redirect is followed, from the health
/// check or a call: the status says where the server pointed, no note fails, and the
/// other user's server hears nothing.
#[tokio::test]
async fn a_model_servers_redirect_is_not_followed_to_another_users_server() {
    let other = OtherUser::get();
    let target_port = free_port();
    let target = FakeModelServer::start("127.0.0.1", target_port, Some(other));
    let to = format!("http://127.0.0.1:{target_port}");
    for mode in ["all", "calls"] {
        let model_port = free_port();
        let _redirector = Redirector::start(model_port, &to, mode);
        let data_dir = tempfile::tempdir().unwrap();
        let url = format!("http://127.0.0.1:{model_port}");
        let service = ServiceProcess::start_with(
            data_dir.path(),
            free_port(),
            &[
                ("INKLING_OLLAMA__URL", &url),
                ("INKLING_OLLAMA__HEALTH_INTERVAL_MS", "50"),
            ],
        );
        stdout(&service.cli(&["capture", "my bank PIN is 4711"]));
        if mode == "all" {
            let status = eventually("the status saying where it pointed", || async {
                let status = service_status(&service);
                (status["provider"]["state"] == "not_running").then_some(status)
            })
            .await;
            let detail = status["provider"]["detail"].as_str().unwrap_or_default();
            assert!(
                detail.contains(&format!("HTTP 307 redirecting to {to}/api/tags"))
                    && detail.contains("follows no redirect"),
                "{status}"
            );
            let said = stdout(&service.cli(&["status"]));
            assert!(said.contains(&format!("redirecting to {to}")), "{said}");
        } else {
            // Its health check is answered: the note's call is what is redirected.
            eventually("the call's redirect refused", || async {
                service
                    .stderr_text()
                    .contains(&format!("redirecting to {to}/api/"))
                    .then_some(())
            })
            .await;
        }
        let counts = &service_status(&service)["counts"];
        assert_eq!(
            (&counts["pending"], &counts["failed"]),
            (&1.into(), &0.into()),
            "{mode}: {counts}"
        );
    }
    let heard = target.stop();
    assert!(
        heard.is_empty(),
        "another user's server was sent: {heard:?}"
    );
}
