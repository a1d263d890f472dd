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
