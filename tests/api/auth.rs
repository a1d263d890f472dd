//! Every `/api` route needs the per-install token or a page's session.

use crate::helpers::spawn_app;

#[actix_rt::test]
async fn api_calls_without_the_right_token_are_401_and_change_nothing() {
    let app = spawn_app().await;
    let wrong = format!("Bearer {}", "0".repeat(64));
    for authorization in [
        None,
        Some("Bearer "),
        Some(wrong.as_str()),
        Some("Basic abc"),
    ] {
        for path in ["/api/status", "/api/notes", "/api/notes/x", "/api/nothing"] {
            let (status, body) = app.get_with_auth(path, authorization).await;
            assert_eq!(status, 401, "{path} with {authorization:?}");
            assert!(body["error"].as_str().unwrap().contains("token"));
        }
    }
    assert_eq!(app.note_count_in_db(), 0);
}

#[cfg(unix)]
#[actix_rt::test]
async fn the_token_file_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let app = spawn_app().await;
    let mode = std::fs::metadata(app.data_dir.path().join("api-token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[actix_rt::test]
async fn a_foreign_host_header_is_refused_even_with_the_token() {
    let app = spawn_app().await;
    let port = app.address.rsplit(':').next().unwrap();
    for host in [
        "evil.example",
        "evil.example:80",
        "127.0.0.1:1",
        "192.168.1.10:7373",
    ] {
        let mut response = awc::Client::new()
            .get(format!("{}/api/status", app.address))
            .insert_header(("Host", host))
            .bearer_auth(&app.token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "Host {host}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(body["error"].as_str().unwrap().contains("127.0.0.1"));
    }
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let response = awc::Client::new()
            .get(format!("{}/api/status", app.address))
            .insert_header(("Host", host.as_str()))
            .bearer_auth(&app.token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "Host {host}");
    }
}

#[actix_rt::test]
async fn a_foreign_origin_is_refused_even_with_the_token_and_changes_nothing() {
    let app = spawn_app().await;
    for origin in ["https://evil.example", "http://localhost:1", "null"] {
        let response = awc::Client::new()
            .post(format!("{}/api/notes", app.address))
            .insert_header(("Origin", origin))
            .bearer_auth(&app.token)
            .send_json(&serde_json::json!({ "body": "from a web page" }))
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "Origin {origin}");
    }
    assert_eq!(app.note_count_in_db(), 0);
    let own = app.address.clone();
    let response = awc::Client::new()
        .post(format!("{}/api/notes", app.address))
        .insert_header(("Origin", own.as_str()))
        .bearer_auth(&app.token)
        .send_json(&serde_json::json!({ "body": "from inkling's own page" }))
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
}

#[actix_rt::test]
async fn the_server_listens_on_loopback_only() {
    let dir = tempfile::tempdir().unwrap();
    let settings = crate::service::test_settings(dir.path(), &[]);
    let app = inkling::startup::Application::build(
        settings,
        std::sync::Arc::new(inkling::clock::SystemClock),
    )
    .await
    .unwrap();
    assert!(app.local_addr().ip().is_loopback(), "{}", app.local_addr());
}

/// The page's credential (docs/SECURITY.md, "What is defended", the rows "another local
/// web server gets the page's credential" and "a program on the port while inkling is
/// stopped"): a random session per page, traded for a one-time code or the token; the
/// page proves its key for an access, sent as a header; the session ends after 30 days
/// unused or with `inkling logout --all`; a cookie opens nothing.
#[actix_rt::test]
async fn a_page_session_works_as_a_header_expires_when_unused_and_can_be_ended() {
    let app = spawn_app().await;
    let (status, opened) = app
        .post_unauthenticated("/session", &serde_json::json!({ "token": app.token }))
        .await;
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["idle_expiry_days"], 30);
    let session = opened["session"].as_str().unwrap().to_owned();
    let key = crate::helpers::unhex(opened["key"].as_str().unwrap());
    assert_ne!(session, app.token);
    let access = app.page_access(&session, &key).await.unwrap();
    let header = format!("Bearer {access}");
    assert_eq!(app.get_with_auth("/api/status", Some(&header)).await.0, 200);

    // Neither the old cookie nor the access as a cookie opens anything.
    let cookie = app
        .get_with_headers(
            "/api/status",
            &[("Cookie", &format!("inkling_session={access}"))],
        )
        .await;
    assert_eq!(cookie.0, 401);

    // Used within 30 days it lives on; unused for 30 days it ends, and no proof opens
    // it again.
    app.clock.advance(chrono::Duration::days(29));
    assert_eq!(app.get_with_auth("/api/status", Some(&header)).await.0, 200);
    app.clock.advance(chrono::Duration::days(30));
    assert_eq!(app.get_with_auth("/api/status", Some(&header)).await.0, 401);
    assert_eq!(app.page_access(&session, &key).await, Err(401));

    // Ending every session (what `inkling logout --all` asks) ends this one too.
    let (second, second_key) = app.open_page_session().await;
    let second = format!(
        "Bearer {}",
        app.page_access(&second, &second_key).await.unwrap()
    );
    assert_eq!(app.get_with_auth("/api/status", Some(&second)).await.0, 200);
    let (status, ended) = app
        .post_json("/api/sessions/end-all", &serde_json::json!({}))
        .await;
    assert_eq!((status, ended["count"].as_u64()), (200, Some(1)));
    assert_eq!(app.get_with_auth("/api/status", Some(&second)).await.0, 401);
    // The token is not a session: it still works.
    assert_eq!(app.get("/api/status").await.0, 200);

    // A wrong code or token opens no session.
    for body in [
        serde_json::json!({ "code": "0".repeat(48) }),
        serde_json::json!({ "token": "0".repeat(64) }),
        serde_json::json!({}),
    ] {
        assert_eq!(
            app.post_unauthenticated("/session", &body).await.0,
            401,
            "{body}"
        );
    }
}

/// What a program on the port while inkling was stopped could have been sent by the
/// page: the session's id, nonces, the page's answer to a challenge of its choosing.
/// None of them opens anything; only the key (which never crosses the wire after the
/// session opened) gets an access, once per challenge, and an access is the bearer of
/// this run only.
#[actix_rt::test]
async fn a_sessions_id_alone_is_worth_nothing_and_only_its_key_gets_an_access() {
    let app = spawn_app().await;
    let (id, key) = app.open_page_session().await;
    assert_eq!(
        app.get_with_auth("/api/status", Some(&format!("Bearer {id}")))
            .await
            .0,
        401,
        "the id is no bearer"
    );

    // The service proves the key, and asks the page to.
    let nonce = inkling::identity::new_nonce().unwrap();
    let proof_path = format!("/session/proof?session={id}&nonce={nonce}");
    let (status, proved) = app.get_with_auth(&proof_path, None).await;
    assert_eq!(status, 200, "{proved}");
    let challenge = proved["challenge"].as_str().unwrap().to_owned();
    let access = |answer: String, challenge: &str| serde_json::json!({ "session": id, "challenge": challenge, "answer": answer });
    // An answer made without the key, or with another session's key, or to another
    // port, or the service's own proof sent back: refused, and the challenge is spent.
    let (_, other_key) = app.open_page_session().await;
    let wrong = [
        inkling::page_proof::page_answer(&other_key, app.port(), &challenge),
        inkling::page_proof::page_answer(&key, app.port() + 1, &challenge),
        proved["proof"].as_str().unwrap().to_owned(),
        "00".repeat(32),
    ];
    for answer in wrong {
        let (_, fresh) = app.get_with_auth(&proof_path, None).await;
        let fresh = fresh["challenge"].as_str().unwrap().to_owned();
        let answer = answer.replace(&challenge, &fresh);
        let (status, _) = app
            .post_unauthenticated("/session/access", &access(answer, &fresh))
            .await;
        assert_eq!(status, 401);
    }
    let right = inkling::page_proof::page_answer(&key, app.port(), &challenge);
    let (status, granted) = app
        .post_unauthenticated("/session/access", &access(right.clone(), &challenge))
        .await;
    assert_eq!(status, 200, "{granted}");
    let (status, _) = app
        .post_unauthenticated("/session/access", &access(right, &challenge))
        .await;
    assert_eq!(status, 401, "a challenge answers once");

    // A session that is not open gets no proof; a nonce that is not hex is refused.
    let unknown = format!("/session/proof?session={}&nonce={nonce}", "0".repeat(64));
    assert_eq!(app.get_with_auth(&unknown, None).await.0, 401);
    let bad = format!("/session/proof?session={id}&nonce=not-hex");
    assert_eq!(app.get_with_auth(&bad, None).await.0, 400);
}

/// Opening the page again (`inkling open` twice) names the session it held: that one
/// ends, rather than being left to expire.
#[actix_rt::test]
async fn a_session_opened_in_place_of_another_ends_it() {
    let app = spawn_app().await;
    let (old, old_key) = app.open_page_session().await;
    let old_access = app.page_access(&old, &old_key).await.unwrap();
    let (status, _) = app
        .post_unauthenticated(
            "/session",
            &serde_json::json!({ "token": app.token, "replaces": old }),
        )
        .await;
    assert_eq!(status, 200);
    let header = format!("Bearer {old_access}");
    assert_eq!(app.get_with_auth("/api/status", Some(&header)).await.0, 401);
    assert_eq!(app.page_access(&old, &old_key).await, Err(401));
    // Naming a session without a code or the token ends nothing.
    let (new, new_key) = app.open_page_session().await;
    let (status, _) = app
        .post_unauthenticated("/session", &serde_json::json!({ "replaces": new }))
        .await;
    assert_eq!(status, 401);
    assert!(app.page_access(&new, &new_key).await.is_ok());
}

/// A live feed opened with a session ends when the session does: a signed-out page
/// hears no more notes.
#[actix_rt::test]
async fn a_live_feed_ends_with_its_session() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app().await;
    let (id, key) = app.open_page_session().await;
    let session = app.page_access(&id, &key).await.unwrap();
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut feed = tokio::net::TcpStream::connect(&address).await.unwrap();
    feed.write_all(
        format!("GET /api/events HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {session}\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut first = [0u8; 12];
    feed.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");

    let (status, _) = app
        .post_json("/api/sessions/end-all", &serde_json::json!({}))
        .await;
    assert_eq!(status, 200);
    // The stream's last chunk (the connection itself may stay for another request).
    let ended = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        let mut received = Vec::new();
        while !received.ends_with(b"0\r\n\r\n") {
            let mut buffer = [0u8; 4096];
            let n = feed.read(&mut buffer).await.unwrap();
            assert!(n > 0, "closed without ending the stream");
            received.extend_from_slice(&buffer[..n]);
        }
    });
    assert!(
        ended.await.is_ok(),
        "the feed goes on after its session ended"
    );
}
