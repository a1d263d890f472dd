//! Hardening against the other people and processes on the same desktop
//! (docs/SECURITY.md): each test is one way in that is closed.

use serde_json::json;

use crate::helpers::spawn_app_in;

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Another user could read every note: an existing data dir kept its mode (even 0777)
/// and the database, `-wal` and `-shm` files were created 0644.
#[cfg(unix)]
#[actix_rt::test]
async fn the_data_dir_and_every_file_in_it_are_made_the_owners_only() {
    use std::os::unix::fs::PermissionsExt;
    let data_dir = tempfile::tempdir().unwrap();
    let path = data_dir.path().to_path_buf();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();

    let app = spawn_app_in(data_dir, &[]).await;
    app.capture("a private thought").await;
    let (status, _) = app.get("/api/stats").await; // the usage log is written
    assert_eq!(status, 200);
    let (status, _) = app
        .post_unauthenticated("/session", &json!({ "token": app.token }))
        .await; // a page's session is kept
    assert_eq!(status, 200);

    assert_eq!(mode(&path), 0o700, "the data dir");
    for file in [
        "inkling.db",
        "inkling.db-wal",
        "inkling.db-shm",
        "api-token",
        "sessions",
        "telemetry/events-2026-03-01.jsonl",
    ] {
        assert_eq!(mode(&path.join(file)), 0o600, "{file}");
    }
}

/// A database an older release made world-readable is made private at the next start.
#[cfg(unix)]
#[actix_rt::test]
async fn a_database_left_readable_by_others_is_made_private_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let data_dir = tempfile::tempdir().unwrap();
    let db = data_dir.path().join("inkling.db");
    std::fs::write(&db, b"").unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();

    let app = spawn_app_in(data_dir, &[]).await;
    let (status, _) = app.post_json("/api/notes", &json!({ "body": "x" })).await;

    assert_eq!(status, 201);
    assert_eq!(mode(&db), 0o600);
}

/// An empty or `~/x` export folder landed relative to wherever the service started,
/// and the answer was relative too; an unusable one was a 500.
#[actix_rt::test]
async fn an_export_folder_must_be_an_absolute_path_that_can_be_made() {
    let app = crate::helpers::spawn_app().await;
    for out in ["", "~/x", "exports/here"] {
        let (status, body) = app
            .post_json("/api/usage-log/export", &json!({ "out": out }))
            .await;
        assert_eq!(status, 400, "{out:?}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("absolute path"),
            "{body}"
        );
    }
    let blocked = tempfile::tempdir().unwrap();
    std::fs::write(blocked.path().join("a-file"), b"not a folder").unwrap();
    let (status, body) = app
        .post_json(
            "/api/usage-log/export",
            &json!({ "out": blocked.path().join("a-file") }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("cannot export"),
        "{body}"
    );
}

/// Bad input that is easy to accept or quietly change: a body of only invisible
/// characters, `limit=0`; and a repeated `keep` must not rewrite its times.
#[actix_rt::test]
async fn invisible_notes_and_out_of_range_limits_are_refused_and_keep_is_idempotent() {
    let app = crate::helpers::spawn_app().await;
    let (status, body) = app
        .post_json(
            "/api/notes",
            &json!({ "body": "\u{200B}\u{FEFF} \u{2060}" }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    for limit in ["0", "501"] {
        let (status, body) = app.get(&format!("/api/notes?limit={limit}")).await;
        assert_eq!(status, 400, "limit={limit}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("1 to 500"),
            "{body}"
        );
    }
    let (_, listed) = app.get("/api/notes").await;
    assert_eq!(listed, json!([]), "nothing was written");

    let note = app.capture("keep me").await;
    let id = note["id"].as_str().unwrap();
    let (_, first) = app
        .post_json(&format!("/api/notes/{id}/keep"), &json!({}))
        .await;
    app.clock.advance(chrono::Duration::minutes(5));
    let (_, again) = app
        .post_json(&format!("/api/notes/{id}/keep"), &json!({}))
        .await;
    assert!(first["kept_at"].is_string());
    assert_eq!(again["kept_at"], first["kept_at"]);
    assert_eq!(
        again["updated_at"], first["updated_at"],
        "a repeat changes nothing"
    );
}

/// The data dir deleted under a running service: captures answered 201 and were lost
/// at the next start (SQLite went on writing into the unlinked file).
#[actix_rt::test]
async fn a_capture_after_the_database_file_was_deleted_is_refused_not_lost() {
    let data_dir = tempfile::tempdir().unwrap();
    let path = data_dir.path().to_path_buf();
    let app = spawn_app_in(data_dir, &[]).await;
    assert_eq!(
        app.post_json("/api/notes", &json!({ "body": "before" }))
            .await
            .0,
        201
    );
    // A barrier: the usage log has written the capture's event (no thread is writing
    // into the dir while it is removed).
    assert_eq!(app.get("/api/stats").await.0, 200);

    std::fs::remove_dir_all(&path).unwrap();
    let (status, body) = app
        .post_json("/api/notes", &json!({ "body": "after" }))
        .await;

    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("deleted or replaced"),
        "{body}"
    );
}

/// Some 404 answers were empty, not JSON: a client reading `error` found nothing.
#[actix_rt::test]
async fn an_unknown_path_anywhere_is_a_json_404() {
    let app = crate::helpers::spawn_app().await;
    for path in ["/nope", "/api/nope", "/assets/nope.js", "/session/x"] {
        let (status, body) = app.get(path).await;
        assert_eq!(status, 404, "{path}");
        assert!(body["error"].is_string(), "{path}: {body}");
    }
}

/// actix-http answers an oversized request head (431) and one that is not HTTP (400)
/// itself, before any route, and did so with an empty body.
#[actix_rt::test]
async fn answers_made_before_any_route_are_json_too() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = crate::helpers::spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    // More headers than actix-http takes (96): too large, in a few bytes.
    let many: String = (0..100).map(|i| format!("X-{i}: y\r\n")).collect();
    for (request, status) in [
        (
            format!("GET / HTTP/1.1\r\nHost: {address}\r\n{many}\r\n"),
            431,
        ),
        ("NOT HTTP AT ALL\r\n\r\n".to_owned(), 400),
    ] {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await; // a reset after it is fine
        let answer = String::from_utf8_lossy(&answer);
        let (head, body) = answer.split_once("\r\n\r\n").expect(&answer);
        assert!(head.starts_with(&format!("HTTP/1.1 {status} ")), "{head}");
        assert!(head.contains("content-type: application/json"), "{head}");
        let body: serde_json::Value = serde_json::from_str(body).expect(body);
        assert!(body["error"].is_string(), "{body}");
    }
}

/// A squatter: holds `listener`, answers every request like a service would, and hands
/// each request it received to `heard`.
fn squat(listener: std::net::TcpListener, mut heard: impl FnMut(&[u8])) {
    use std::io::{Read, Write};
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut buffer = [0u8; 65536];
        let n = stream.read(&mut buffer).unwrap_or(0);
        heard(&buffer[..n]);
        let body = r#"{"proof":"00","id":"x","ai_status":"pending","counts":{}}"#;
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    }
}

const SQUAT_PORT: &str = "INKLING_TEST_SQUAT_PORT";

/// Not a test of its own: the squatter as a process of another user, started by the
/// test below (this test binary, run as `nobody`). It says when it listens, then prints
/// what it is sent.
#[test]
#[ignore = "run by the_cli_sends_neither_the_token_nor_the_note_to_a_program_squatting_the_port"]
fn squatter_of_another_user() {
    use std::io::Write;
    let Some(port) = std::env::var(SQUAT_PORT)
        .ok()
        .and_then(|p| p.parse::<u16>().ok())
    else {
        return;
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    println!("squatting");
    squat(listener, |request| {
        let mut out = std::io::stdout();
        let _ = out.write_all(request);
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    });
}

/// With inkling stopped, another program listening on its port received the token and
/// the note from `inkling capture`, and `inkling status` printed its answer with exit
/// 0. Now the service must prove itself (`src/identity.rs`) before the token is sent.
/// Run as root (CI), the squatter is a process of another user, `nobody`, as in the
/// attack; otherwise a listener in this process.
#[test]
fn the_cli_sends_neither_the_token_nor_the_note_to_a_program_squatting_the_port() {
    use std::io::{BufRead, Read};
    let data_dir = tempfile::tempdir().unwrap();
    // A token as a real install has one: the CLI would send it.
    inkling::api_token::load_or_create(&data_dir.path().join("api-token")).unwrap();
    let port = crate::ports::free_port();
    let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    // SAFETY: geteuid has no preconditions.
    let as_root = unsafe { libc::geteuid() } == 0;
    let mut other_user = None;
    if as_root {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "security::squatter_of_another_user",
                "--nocapture",
            ])
            .env(SQUAT_PORT, port.to_string())
            .uid(65534)
            .gid(65534)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the squatter starts as nobody");
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("squatting") {
            line.clear();
            assert!(
                out.read_line(&mut line).unwrap() > 0,
                "the squatter did not start"
            );
        }
        other_user = Some((child, out));
    } else {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
        let heard = received.clone();
        std::thread::spawn(move || {
            squat(listener, |request| {
                heard.lock().unwrap().extend_from_slice(request)
            })
        });
    }

    for args in [&["capture", "my bank PIN is 4711"][..], &["status"][..]] {
        let output = crate::helpers::run_cli(data_dir.path(), port, args, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("the token was not sent"), "{stderr}");
    }
    if let Some((mut child, mut out)) = other_user {
        child.kill().unwrap();
        child.wait().unwrap();
        out.read_to_end(&mut received.lock().unwrap()).unwrap();
    }
    let received = String::from_utf8_lossy(&received.lock().unwrap()).to_lowercase();
    assert!(received.contains("get /identity?nonce="), "{received}");
    assert!(
        !received.contains("authorization"),
        "the token went out: {received}"
    );
    assert!(!received.contains("4711"), "the note went out: {received}");
}

/// A page served by a squatter while inkling was stopped could register a service
/// worker, which stayed after inkling was back (a 404 for its script did not remove
/// it) and saw every later code and session. Every fetch of a worker's script, at any
/// path (inside `/api` too, without a credential), now gets a worker that unregisters
/// itself; no answer grants a scope.
#[actix_rt::test]
async fn a_service_workers_script_is_answered_with_one_that_unregisters_itself() {
    let app = crate::helpers::spawn_app().await;
    let client = awc::Client::new();
    for path in ["/sw.js", "/api/sw.js", "/assets/sw.js", "/", "/api/notes"] {
        let mut response = client
            .get(format!("{}{path}", app.address))
            .insert_header(("Service-Worker", "script"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let headers = response.headers();
        assert!(
            headers
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("text/javascript"),
            "{path}"
        );
        assert!(headers.get("service-worker-allowed").is_none(), "{path}");
        assert_eq!(headers.get("cache-control").unwrap(), "no-store");
        let body = response.body().await.unwrap();
        let body = std::str::from_utf8(&body).unwrap();
        assert!(body.contains("self.registration.unregister()"), "{body}");
        assert!(!body.contains("addEventListener(\"fetch\""), "{body}");
    }
    // Without the header: the routes as ever.
    let response = client
        .get(format!("{}/api/notes", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let page = client
        .get(format!("{}/", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.headers().get("service-worker-allowed").is_none());
}

/// The page names its assets under a path of this run (a squatter could have had the
/// browser keep its own script at `/assets/app.js` for a year); both paths answer.
#[actix_rt::test]
async fn the_page_names_its_assets_under_a_path_of_this_run() {
    let app = crate::helpers::spawn_app().await;
    let client = awc::Client::new();
    let mut page = client
        .get(format!("{}/", app.address))
        .send()
        .await
        .unwrap();
    let html = String::from_utf8(page.body().await.unwrap().to_vec()).unwrap();
    let start = html.find("src=\"/assets/").expect("the entry module") + 13;
    let run = html[start..].split('/').next().unwrap().to_owned();
    assert_eq!(run.len(), 32, "{html}");
    assert!(!html.contains("\"/assets/app.js"), "{html}");
    for path in [format!("/assets/{run}/app.js"), "/assets/app.js".into()] {
        let mut answer = client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), 200, "{path}");
        let body = answer.body().await.unwrap();
        assert!(
            std::str::from_utf8(&body).unwrap().contains("import"),
            "{path}"
        );
    }
}
