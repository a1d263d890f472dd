//! Paired devices (the web clipper): a pairing code traded once for a token that can
//! save notes and nothing else, refused everywhere else with 403 and a plain message,
//! 401 once revoked; the browser extension's origin let in with that token alone; and
//! `POST /api/clip`; and `inkling pair` and `inkling sessions` from the real binary.

use serde_json::{json, Value};

use crate::helpers::{blocking_request, free_port, spawn_app, ServiceProcess, TestApp};

const EXTENSION: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

/// `inkling pair`'s code, over the API.
async fn pairing_code(app: &TestApp) -> String {
    let (status, code) = app.post_json("/api/devices/pairing-code", &json!({})).await;
    assert_eq!(status, 200, "{code}");
    assert_eq!(code["expires_in_s"], 300);
    code["code"].as_str().unwrap().to_owned()
}

/// A paired device: its id and token.
async fn pair(app: &TestApp, name: &str) -> (String, String) {
    let code = pairing_code(app).await;
    let (status, paired) = app
        .request_as(
            "POST",
            "/pair",
            None,
            &[("Origin", EXTENSION)],
            Some(&json!({ "code": code, "name": name })),
        )
        .await;
    assert_eq!(status, 201, "{paired}");
    assert_eq!(paired["scope"], "capture");
    assert_eq!(paired["name"], name);
    (
        paired["id"].as_str().unwrap().to_owned(),
        paired["token"].as_str().unwrap().to_owned(),
    )
}

async fn capture_as(app: &TestApp, token: &str, body: &str) -> (u16, Value) {
    app.request_as(
        "POST",
        "/api/notes",
        Some(token),
        &[],
        Some(&json!({ "body": body })),
    )
    .await
}

#[actix_rt::test]
async fn a_device_token_saves_notes_and_is_refused_everything_else() {
    let app = spawn_app().await;
    let note = app.capture("a note the device must not see").await;
    let id = note["id"].as_str().unwrap();
    let (device, token) = pair(&app, "Chromium clipper").await;

    let (status, saved) = capture_as(&app, &token, "from the clipper").await;
    assert_eq!(status, 201, "{saved}");
    assert_eq!(saved["ai_status"], "pending", "enriched like any note");

    let note_path = format!("/api/notes/{id}");
    let refused: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", "/api/notes".into(), None),
        ("GET", note_path.clone(), None),
        (
            "PATCH",
            note_path.clone(),
            Some(json!({ "body": "changed" })),
        ),
        ("DELETE", note_path.clone(), None),
        ("POST", format!("{note_path}/trash"), Some(json!({}))),
        ("GET", format!("{note_path}/related"), None),
        ("GET", "/api/search?q=note".into(), None),
        ("GET", "/api/notes?q=note".into(), None),
        ("GET", "/api/notes/export?format=json".into(), None),
        (
            "POST",
            "/api/notes/import".into(),
            Some(json!({ "notes": [] })),
        ),
        (
            "POST",
            "/api/ask".into(),
            Some(json!({ "question": "what?" })),
        ),
        ("GET", "/api/status".into(), None),
        ("GET", "/api/events".into(), None),
        ("GET", "/api/changes".into(), None),
        ("GET", "/api/tags".into(), None),
        ("GET", "/api/stats".into(), None),
        ("POST", "/api/usage-log/export".into(), Some(json!({}))),
        ("POST", "/api/trash/empty".into(), Some(json!({}))),
        ("POST", "/api/devices/pairing-code".into(), Some(json!({}))),
        ("GET", "/api/devices".into(), None),
        ("DELETE", format!("/api/devices/{device}"), None),
        ("POST", "/api/open-code".into(), Some(json!({}))),
        ("POST", "/api/sessions/end-all".into(), Some(json!({}))),
        ("POST", "/api/notes/".into(), Some(json!({ "body": "x" }))),
        ("POST", "/api/a-route-added-later".into(), Some(json!({}))),
    ];
    for (method, path, body) in &refused {
        let (status, answer) = app
            .request_as(method, path, Some(&token), &[], body.as_ref())
            .await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains("can only save notes"), "{error}");
    }
    // Nothing it asked for happened: one note of its own, the other untouched.
    assert_eq!(app.note_count_in_db(), 2);
    assert_eq!(app.note(id).await["body"], "a note the device must not see");
    assert_eq!(app.get("/api/devices").await.1.as_array().unwrap().len(), 1);

    // Nor is it the token: it opens no page session.
    let (status, _) = app
        .post_unauthenticated("/session", &json!({ "token": token }))
        .await;
    assert_eq!(status, 401);
}

/// Every `/api` route in the route table (`src/http/routes/mod.rs`), as (method, path)
/// with its parameters filled in: read from the source, so a route added later is in
/// this test without anyone listing it.
fn every_api_route() -> Vec<(String, String)> {
    let table = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/http/routes/mod.rs"
    ))
    .unwrap();
    let start = table.find("web::scope(\"/api\")").expect("the /api scope");
    let end = start + table[start..].find(".default_service").unwrap();
    let mut routes = Vec::new();
    for piece in table[start..end].split("endpoint(\"").skip(1) {
        let path = &piece[..piece.find('"').unwrap()];
        let path = format!("/api{path}")
            .replace("{id}", "some-note")
            .replace("{index}", "0");
        for method in ["get", "post", "patch", "delete", "put"] {
            if piece.contains(&format!("web::{method}()")) {
                routes.push((method.to_uppercase(), path.clone()));
            }
        }
    }
    assert!(routes.len() > 30, "the table was read: {routes:?}");
    routes
}

#[actix_rt::test]
async fn every_route_of_the_table_but_capture_and_clip_refuses_a_device() {
    let app = spawn_app().await;
    let (_, token) = pair(&app, "Chromium clipper").await;
    for (method, path) in every_api_route() {
        if method == "POST" && (path == "/api/notes" || path == "/api/clip") {
            continue;
        }
        let (status, answer) = app
            .request_as(&method, &path, Some(&token), &[], Some(&json!({})))
            .await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
    }
    assert_eq!(app.note_count_in_db(), 0);
}

#[actix_rt::test]
async fn a_revoked_device_is_401_and_the_others_go_on() {
    let app = spawn_app().await;
    let (first, first_token) = pair(&app, "Chromium clipper").await;
    let (_, second_token) = pair(&app, "Firefox clipper").await;

    let (status, devices) = app.get("/api/devices").await;
    assert_eq!(status, 200);
    let listed = devices.to_string();
    assert!(listed.contains("Chromium clipper") && listed.contains("Firefox clipper"));
    assert!(!listed.contains(&first_token), "a token is never listed");

    let (status, _) = app.delete(&format!("/api/devices/{first}")).await;
    assert_eq!(status, 204);
    let (status, answer) = capture_as(&app, &first_token, "after revoke").await;
    assert_eq!(status, 401, "{answer}");
    assert_eq!(capture_as(&app, &second_token, "still paired").await.0, 201);
    assert_eq!(app.note_count_in_db(), 1);

    let (status, answer) = app.delete(&format!("/api/devices/{first}")).await;
    assert_eq!(status, 404);
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("inkling sessions"));
}

#[actix_rt::test]
async fn a_pairing_code_works_once_within_five_minutes_and_wrong_codes_are_bounded() {
    let app = spawn_app().await;
    let pair_with = |code: String| {
        let app = &app;
        async move {
            app.request_as(
                "POST",
                "/pair",
                None,
                &[],
                Some(&json!({ "code": code, "name": "clipper" })),
            )
            .await
        }
    };

    // No code waiting.
    let (status, answer) = pair_with("ABCD-EFGH".into()).await;
    assert_eq!(status, 401);
    assert!(answer["error"].as_str().unwrap().contains("inkling pair"));

    // Expired: on the service's clock, no waiting for real.
    let code = pairing_code(&app).await;
    app.clock.advance(chrono::Duration::seconds(301));
    let (status, answer) = pair_with(code).await;
    assert_eq!(status, 401);
    assert!(
        answer["error"].as_str().unwrap().contains("expired"),
        "{answer}"
    );

    // Wrong codes: counted, and the fifth voids the right one too.
    let code = pairing_code(&app).await;
    for left in (1..=4).rev() {
        let (status, answer) = pair_with("2222-2222".into()).await;
        assert_eq!(status, 401);
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains(&format!("{left} tries left")),
            "{answer}"
        );
    }
    let (status, answer) = pair_with("2222-2222".into()).await;
    assert_eq!(status, 401);
    assert!(
        answer["error"].as_str().unwrap().contains("too many"),
        "{answer}"
    );
    assert_eq!(pair_with(code).await.0, 401, "void after the fifth");

    // In time, once.
    let code = pairing_code(&app).await;
    app.clock.advance(chrono::Duration::seconds(299));
    let (status, paired) = pair_with(code.clone()).await;
    assert_eq!(status, 201, "{paired}");
    assert_eq!(pair_with(code).await.0, 401, "used");

    // A bad name changes nothing: the code still works.
    let code = pairing_code(&app).await;
    let (status, answer) = app
        .request_as(
            "POST",
            "/pair",
            None,
            &[],
            Some(&json!({ "code": code, "name": " " })),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(pair_with(code).await.0, 201);
    assert_eq!(app.get("/api/devices").await.1.as_array().unwrap().len(), 2);
}

#[actix_rt::test]
async fn an_extension_origin_is_let_in_with_a_device_token_only() {
    let app = spawn_app().await;
    let (_, token) = pair(&app, "Chromium clipper").await;
    let clip = json!({ "url": "https://example.com/", "title": "Example", "selection": "" });
    let extension = [("Origin", EXTENSION)];
    let firefox = [(
        "Origin",
        "moz-extension://0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    )];

    for origin in [&extension, &firefox] {
        let (status, answer) = app
            .request_as("POST", "/api/clip", Some(&token), origin, Some(&clip))
            .await;
        assert_eq!(status, 201, "{answer}");
    }
    // The API token, or anything it opens, from an extension's origin: refused.
    let api_token = app.token.clone();
    for (method, path, body) in [
        ("GET", "/api/status", None),
        ("GET", "/api/notes", None),
        ("POST", "/api/clip", Some(&clip)),
    ] {
        let (status, answer) = app
            .request_as(method, path, Some(&api_token), &extension, body)
            .await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains("inkling pair"));
    }
    // The page and its sessions are not the extension's to ask for.
    for (method, path) in [("GET", "/"), ("POST", "/session"), ("GET", "/identity")] {
        let (status, _) = app
            .request_as(method, path, None, &extension, Some(&json!({})))
            .await;
        assert_eq!(status, 403, "{method} {path}");
    }
    // A web page's origin gets nothing, device token or not.
    let (status, _) = app
        .request_as(
            "POST",
            "/api/clip",
            Some(&token),
            &[("Origin", "https://evil.example")],
            Some(&clip),
        )
        .await;
    assert_eq!(status, 403);
    assert_eq!(app.note_count_in_db(), 2);
}

#[actix_rt::test]
async fn a_clip_keeps_the_link_and_the_selection_and_bad_clips_change_nothing() {
    let app = spawn_app().await;
    let (_, token) = pair(&app, "Chromium clipper").await;
    let clip = |body: Value| {
        let app = &app;
        let token = token.clone();
        async move {
            app.request_as("POST", "/api/clip", Some(&token), &[], Some(&body))
                .await
        }
    };
    let (status, note) = clip(json!({
        "url": "https://example.com/post?id=1",
        "title": "A post",
        "selection": "the part worth keeping\nover two lines"
    }))
    .await;
    assert_eq!(status, 201, "{note}");
    assert_eq!(
        note["body"],
        "[A post](https://example.com/post?id=1)\n\n> the part worth keeping\n> over two lines"
    );
    let (_, detail) = app
        .get(&format!("/api/notes/{}", note["id"].as_str().unwrap()))
        .await;
    let html = detail["body_html"].as_str().unwrap();
    assert!(
        html.contains("href=\"https://example.com/post?id=1\""),
        "{html}"
    );
    assert!(html.contains("<blockquote>"), "{html}");

    for (bad, status, says) in [
        (
            json!({ "url": "javascript:alert(1)", "title": "x" }),
            400,
            "http",
        ),
        (json!({ "url": "file:///etc/passwd" }), 400, "http"),
        (json!({ "url": "" }), 400, "address"),
        (
            json!({ "url": format!("https://e.com/{}", "a".repeat(3000)) }),
            400,
            "longer",
        ),
        (
            json!({ "url": "https://e.com", "title": "t".repeat(600) }),
            400,
            "title",
        ),
        (
            json!({ "url": "https://e.com", "extra": 1 }),
            400,
            "unknown field",
        ),
        (
            json!({ "url": "https://e.com", "selection": "s".repeat(100_000) }),
            413,
            "",
        ),
    ] {
        let (got, answer) = clip(bad.clone()).await;
        assert_eq!(got, status, "{answer}");
        assert!(answer["error"].as_str().unwrap().contains(says), "{answer}");
    }
    assert_eq!(app.note_count_in_db(), 1);
}

#[test]
fn inkling_pair_shows_a_code_and_inkling_sessions_lists_and_revokes_the_device() {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);

    let none = service.cli(&["sessions"]);
    assert!(none.status.success());
    assert!(
        text(&none.stdout).contains("no paired devices"),
        "{}",
        text(&none.stdout)
    );

    let shown = service.cli(&["pair"]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let shown = text(&shown.stdout);
    let code = shown
        .lines()
        .find_map(|l| l.strip_prefix("pairing code: "))
        .unwrap_or_else(|| panic!("no code in {shown}"));
    assert!(shown.contains("within 5 minutes"), "{shown}");

    let request = json!({ "code": code, "name": "Chromium clipper" }).to_string();
    let (status, paired) = blocking_request(port, "POST", "/pair", None, Some(&request)).unwrap();
    assert_eq!(status, 201, "{paired}");
    let paired: Value = serde_json::from_str(&paired).unwrap();
    let (id, token) = (
        paired["id"].as_str().unwrap(),
        paired["token"].as_str().unwrap(),
    );

    let listed = text(&service.cli(&["sessions"]).stdout);
    assert!(
        listed.starts_with(id) && listed.contains("Chromium clipper"),
        "{listed}"
    );
    assert!(listed.contains("capture only"), "{listed}");
    assert!(!listed.contains(token));

    let revoked = service.cli(&["sessions", "revoke", id]);
    assert!(revoked.status.success(), "{}", text(&revoked.stderr));
    assert!(text(&revoked.stdout).contains("can no longer save notes"));
    let note = json!({ "body": "after revoke" }).to_string();
    let (status, _) =
        blocking_request(port, "POST", "/api/notes", Some(token), Some(&note)).unwrap();
    assert_eq!(status, 401);

    let again = service.cli(&["sessions", "revoke", id]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("inkling sessions"),
        "{}",
        text(&again.stderr)
    );
}

#[actix_rt::test]
async fn an_extensions_preflight_is_answered_and_its_answers_name_it_for_cors_alone() {
    // Firefox holds a Manifest V3 extension to CORS: without these headers it could
    // neither pair nor clip (tests/browser/clipper_firefox.rs).
    let app = spawn_app().await;
    let (_, token) = pair(&app, "Firefox clipper").await;
    let firefox = "moz-extension://0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    let header = |response: &awc::ClientResponse<_>, name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };

    for path in ["/api/clip", "/pair"] {
        let preflight = app
            .http
            .request(
                actix_web::http::Method::OPTIONS,
                format!("{}{path}", app.address),
            )
            .insert_header(("Origin", firefox))
            .insert_header(("Access-Control-Request-Method", "POST"))
            .insert_header((
                "Access-Control-Request-Headers",
                "authorization,content-type",
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(preflight.status(), 204, "{path}: no credential needed");
        assert_eq!(
            header(&preflight, "access-control-allow-origin").as_deref(),
            Some(firefox)
        );
        let methods = header(&preflight, "access-control-allow-methods").unwrap();
        assert!(methods.contains("POST"), "{methods}");
        let allowed = header(&preflight, "access-control-allow-headers").unwrap();
        assert!(
            allowed.contains("authorization") && allowed.contains("content-type"),
            "{allowed}"
        );
    }

    // A preflight for anything its token does not open is refused.
    for (method, path) in [
        ("GET", "/api/notes/export"),
        ("DELETE", "/api/clip"),
        ("POST", "/api/notes/import"),
    ] {
        let preflight = app
            .http
            .request(
                actix_web::http::Method::OPTIONS,
                format!("{}{path}", app.address),
            )
            .insert_header(("Origin", firefox))
            .insert_header(("Access-Control-Request-Method", method))
            .send()
            .await
            .unwrap();
        assert_eq!(preflight.status(), 403, "{method} {path}");
        assert_eq!(header(&preflight, "access-control-allow-origin"), None);
    }

    // Its answers name it, a refusal too (so it can read the words).
    let clip = json!({ "url": "https://example.com/", "title": "Example", "selection": "" });
    for bearer in [token.as_str(), "not-a-token"] {
        let answer = app
            .http
            .post(format!("{}/api/clip", app.address))
            .insert_header(("Origin", firefox))
            .bearer_auth(bearer)
            .send_json(&clip)
            .await
            .unwrap();
        assert_eq!(
            header(&answer, "access-control-allow-origin").as_deref(),
            Some(firefox),
            "status {}",
            answer.status()
        );
        assert_eq!(header(&answer, "vary").as_deref(), Some("origin"));
    }

    // A web page's preflight is refused, and the page's own answers carry no CORS.
    let page = app
        .http
        .request(
            actix_web::http::Method::OPTIONS,
            format!("{}/api/clip", app.address),
        )
        .insert_header(("Origin", "https://evil.example"))
        .insert_header(("Access-Control-Request-Method", "POST"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 403);
    assert_eq!(header(&page, "access-control-allow-origin"), None);
    let own = app
        .http
        .get(format!("{}/api/status", app.address))
        .bearer_auth(&app.token)
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), 200);
    assert_eq!(header(&own, "access-control-allow-origin"), None);
    assert_eq!(app.note_count_in_db(), 1, "one clip saved, none refused");
}
