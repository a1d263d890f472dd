use super::*;

#[test]
fn actix_https_bare_error_answers_get_a_json_body() {
    let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                     connection: close\r\ndate: Tue, 01 Dec 2026 12:00:00 GMT\r\n\r\n";
    let answer = String::from_utf8(json_for_bare_error(bare).unwrap()).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
    assert!(head.contains("content-type: application/json"));
    assert!(head.contains(&format!("content-length: {}", body.len())));
    let error: serde_json::Value = serde_json::from_str(body).unwrap();
    assert!(error["error"]
        .as_str()
        .unwrap()
        .contains("headers are too large"));

    let bad = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
    assert!(json_for_bare_error(bad).is_some());
}

#[test]
fn every_other_write_passes_unchanged() {
    for passing in [
        &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 40\r\n\r\n{\"error\":\"...\"}",
        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0",
        b"event: counts\ndata: {}\n\n",
        b"{\"error\":\"HTTP/1.1 431 \"}\r\n\r\n",
    ] {
        assert_eq!(json_for_bare_error(passing), None, "{passing:?}");
    }
}

#[test]
fn the_oldest_unproven_connection_is_evicted_and_signed_in_ones_never() {
    let notify = Rc::new(tokio::sync::Notify::new());
    let connections: Vec<Connection> = (0..4).map(|n| Connection::new(n, notify.clone())).collect();
    let victim = || oldest_unproven(connections.iter().map(|c| (c, c.accepted())));
    connections[0].set_stage(Stage::Authenticated);
    connections[1].set_stage(Stage::LiveFeed);
    assert_eq!(victim(), Some(2));
    connections[2].set_stage(Stage::Authenticated);
    assert_eq!(victim(), Some(3));
    connections[3].set_stage(Stage::LiveFeed);
    assert_eq!(victim(), None);
    // Between requests, a connection is anybody's again.
    connections[0].set_stage(Stage::Unproven);
    assert_eq!(victim(), Some(0));
}
