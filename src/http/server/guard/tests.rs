use super::*;

#[test]
fn an_extensions_preflight_is_answered_for_a_post_that_saves_a_note_or_pairs() {
    assert!(preflight_allowed(Some("POST"), "/api/clip"));
    assert!(preflight_allowed(Some("POST"), "/api/notes"));
    assert!(preflight_allowed(Some("POST"), "/pair"));
    assert!(!preflight_allowed(Some("GET"), "/api/notes"));
    assert!(!preflight_allowed(Some("DELETE"), "/api/clip"));
    assert!(!preflight_allowed(Some("POST"), "/api/notes/export"));
    assert!(!preflight_allowed(
        Some("POST"),
        "/api/a-route-added-tomorrow"
    ));
    assert!(!preflight_allowed(None, "/api/clip"));
}

#[test]
fn only_the_service_itself_is_allowed() {
    let allowed = AllowedOrigins::for_port(7373, "127.0.0.1".parse().unwrap());
    assert!(allowed.host_allowed("127.0.0.1:7373"));
    assert!(allowed.host_allowed("LOCALHOST:7373"));
    assert!(allowed.host_allowed("[::1]:7373"), "it listens there too");
    assert!(allowed.origin_allowed("http://[::1]:7373"));
    assert!(!allowed.host_allowed("[::1]:7374"));
    assert!(!allowed.host_allowed("127.0.0.1:7374"));
    assert!(!allowed.host_allowed("evil.example:7373"));
    assert!(!allowed.host_allowed("127.0.0.1"));
    assert!(allowed.origin_allowed("http://localhost:7373"));
    assert!(!allowed.origin_allowed("https://evil.example"));
    assert!(!allowed.origin_allowed("null"));
}

#[test]
fn extension_origins_are_told_from_web_pages() {
    assert!(is_extension_origin(
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
    ));
    assert!(is_extension_origin(
        "moz-extension://0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
    ));
    for other in [
        "chrome-extension://abcdefghijklmnopabcdefghijklmnoz",
        "chrome-extension://abc",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop.evil.example",
        "moz-extension://not-a-uuid",
        "http://chrome-extension.example",
        "https://evil.example",
        "null",
    ] {
        assert!(!is_extension_origin(other), "{other}");
    }
    assert!(extension_may_ask("/pair"));
    assert!(extension_may_ask("/api/clip"));
    assert!(!extension_may_ask("/"));
    assert!(!extension_may_ask("/session"));
    assert!(!extension_may_ask("/identity"));
}
