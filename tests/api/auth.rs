//! Every `/api` route needs the per-install token.

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
