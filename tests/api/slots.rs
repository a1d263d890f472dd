//! Connection slots (docs/SECURITY.md, "What is defended", the row "silent connections
//! lock the user out"; docs/ARCHITECTURE.md, "Connection slots"): silent connections, bodies
//! that never end, and live feeds left open cannot lock the user out. Against the real
//! binary over real sockets, the way the attacks were made; the body's deadline itself
//! is tested on virtual time in `src/http/server/body.rs`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::helpers::{blocking_request, free_port, spawn_app, ServiceProcess};

/// How long a client here waits for an answer before the test fails: far beyond
/// anything the service needs, and short of "for as long as they stay open".
const ANSWER_WITHIN: Duration = Duration::from_secs(15);

fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(ANSWER_WITHIN)).unwrap();
    stream
}

/// Everything the server sends until it closes the connection (a reset counts as a
/// close); fails the test if it stays open past [`ANSWER_WITHIN`].
fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => received.extend_from_slice(&buffer[..n]),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                panic!(
                    "the connection is still open: {:?}",
                    String::from_utf8_lossy(&received)
                )
            }
            Err(_) => break, // reset
        }
    }
    String::from_utf8_lossy(&received).into_owned()
}

/// One whole answer (its body sent with `Content-Length`), the connection left open.
fn read_answer(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = stream.read(&mut buffer).expect("an answer");
        assert!(n > 0, "closed before a whole answer");
        received.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&received).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_owned)
                })
                .and_then(|value| value.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                return text;
            }
        }
    }
}

fn capture_works(service: &ServiceProcess, token: &str, body: &str) {
    let (status, answer) = blocking_request(
        service.port,
        "POST",
        "/api/notes",
        Some(token),
        Some(&format!(r#"{{"body":"{body}"}}"#)),
    )
    .expect("the capture is answered");
    assert_eq!(status, 201, "{answer}");
}

/// Before: 256 `POST /session` with `Content-Length: 100000` and no body made every
/// capture, page load and CLI call time out for as long as they stayed open.
#[test]
fn three_hundred_silent_bodies_do_not_lock_out_captures_the_page_or_the_cli() {
    let data_dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(data_dir.path(), free_port());
    let token = service.token().unwrap();
    let port = service.port;

    // The last ten on a route that takes no body: its deadline applies there too.
    let mut silent: Vec<TcpStream> = (0..300)
        .map(|i| {
            let mut stream = connect(port);
            let head = if i < 290 { "POST /session" } else { "GET /" };
            write!(
                stream,
                "{head} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
                 Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            )
            .unwrap();
            stream
        })
        .collect();

    capture_works(&service, &token, "still captured");
    let (status, page) = blocking_request(port, "GET", "/", None, None).expect("the page");
    assert_eq!(status, 200);
    assert!(page.contains("<html"));
    let status = service.cli(&["status"]);
    assert!(status.status.success(), "{status:?}");
    capture_works(&service, &token, "and again");

    // And none of them is kept: each was evicted for a newcomer, or is answered 408
    // at the body's deadline and closed.
    let mut timed_out = 0;
    for stream in &mut silent {
        let answer = read_until_closed(stream);
        if answer.starts_with("HTTP/1.1 408") {
            assert!(answer.contains("did not arrive within 5 s"), "{answer}");
            timed_out += 1;
        } else {
            assert!(answer.is_empty(), "{answer}");
        }
    }
    assert!(
        timed_out > 0,
        "the ones still open at the deadline are answered"
    );
    // Without eviction every one would have been kept to its deadline, the captures
    // and the CLI waiting behind them for up to 5 s.
    assert!(
        timed_out < silent.len(),
        "newcomers evicted the oldest silent ones"
    );
}

/// Before: an unauthenticated chunked `POST /api/notes` got its 401, and then the
/// connection kept reading chunks for as long as they came.
#[test]
fn a_refused_request_ends_its_connection_instead_of_reading_its_body() {
    let data_dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(data_dir.path(), free_port());
    let port = service.port;

    let mut stream = connect(port);
    write!(
        stream,
        "POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{{\"bo\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 401");
    // More chunks are thrown away, and the connection ends (within the 2 s the
    // server gives a client to hang up after a refusal).
    for _ in 0..100 {
        if stream.write_all(b"400\r\n").is_err() {
            break;
        }
    }
    let rest = read_until_closed(&mut stream);
    assert!(
        rest.to_ascii_lowercase().contains("connection: close"),
        "{rest}"
    );

    // The same for a foreign Host (403) and a declared body over the limit (413).
    for (request, status) in [
        ("GET /api/status HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_owned(), "403"),
        (
            format!(
                "POST /session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 99999999\r\n\r\n"
            ),
            "413",
        ),
    ] {
        let mut stream = connect(port);
        stream.write_all(request.as_bytes()).unwrap();
        let answer = read_answer(&mut stream);
        assert!(answer.starts_with(&format!("HTTP/1.1 {status}")), "{answer}");
        assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
        assert!(answer.contains("{\"error\":"), "{answer}");
        // A client that has read the answer and hangs up is let go at once.
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        assert_eq!(read_until_closed(&mut stream), "");
    }
}

/// Before: 300 live feeds with the token filled the server as well.
#[test]
fn live_feeds_are_capped_and_captures_go_on() {
    let data_dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(data_dir.path(), free_port());
    let token = service.token().unwrap();
    let port = service.port;

    let mut feeds = Vec::new();
    let mut refused = 0;
    for _ in 0..300 {
        let mut stream = connect(port);
        write!(
            stream,
            "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\r\n"
        )
        .unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).unwrap();
        match &head {
            b"HTTP/1.1 200" => feeds.push(stream),
            b"HTTP/1.1 503" => {
                let answer = read_answer(&mut stream);
                assert!(
                    answer.contains("live feeds and answers are streaming already"),
                    "{answer}"
                );
                assert!(
                    answer.to_ascii_lowercase().contains("connection: close"),
                    "{answer}"
                );
                refused += 1;
            }
            other => panic!("{:?}", String::from_utf8_lossy(other)),
        }
    }
    assert_eq!(feeds.len(), inkling::http::live_feeds::MAX_LIVE_FEEDS);
    assert_eq!(refused, 300 - feeds.len());

    capture_works(&service, &token, "captured beside 32 feeds");
    let status = service.cli(&["status"]);
    assert!(status.status.success(), "{status:?}");
}

/// Before: a client that left its live feed held the slot for 40–55 s, until a
/// keep-alive write failed.
#[actix_rt::test]
async fn a_departed_live_feed_frees_its_slot_at_once() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut feed = tokio::net::TcpStream::connect(&address).await.unwrap();
    feed.write_all(
        format!(
            "GET /api/events HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\r\n",
            app.token
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut received = Vec::new();
    while !String::from_utf8_lossy(&received).contains(": connected") {
        let mut buffer = [0u8; 1024];
        let n = feed.read(&mut buffer).await.unwrap();
        assert!(n > 0);
        received.extend_from_slice(&buffer[..n]);
    }
    let mut status = app.handle.watch_status();
    assert_eq!(status.borrow().connections, 1);

    drop(feed);
    // Far less than the 30 s keep-alive: the hang-up itself is noticed.
    let freed = tokio::time::timeout(
        Duration::from_secs(10),
        status.wait_for(|s| s.connections == 0),
    );
    assert!(
        freed.await.is_ok(),
        "the departed feed still holds its connection"
    );
}
