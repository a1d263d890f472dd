//! The HTTP server itself (src/http/server/listener.rs), with a two-route app: the service exists
//! only while a client is connected, the connection cap, and graceful stop.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{web, App, HttpResponse};
use inkling::http::server::connection::{Connection, Stage};
use inkling::http::server::{Server, ServerHandle, ServerOptions, ServerStatus};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// What the `/slow` route waits on, and says when it has started.
#[derive(Default)]
struct Gate {
    entered: Notify,
    release: Notify,
}

async fn slow(request: actix_web::HttpRequest, gate: web::Data<Gate>) -> HttpResponse {
    if let Some(connection) = request.conn_data::<Connection>() {
        connection.set_stage(Stage::Authenticated);
    }
    gate.entered.notify_one();
    gate.release.notified().await;
    HttpResponse::Ok().body("slow done")
}

struct TestServer {
    handle: ServerHandle,
    address: std::net::SocketAddr,
    gate: Arc<Gate>,
    run: actix_rt::task::JoinHandle<std::io::Result<()>>,
}

fn start(options: ServerOptions) -> TestServer {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let gate = Arc::new(Gate::default());
    let data = web::Data::from(gate.clone());
    let app = move || {
        App::new()
            .app_data(data.clone())
            .route("/hello", web::get().to(|| async { "hello" }))
            .route("/slow", web::get().to(slow))
    };
    let server = Server::new(vec![listener], options);
    let handle = server.handle();
    let run = actix_rt::spawn(server.start(app).expect("server starts").run());
    TestServer {
        handle,
        address,
        gate,
        run,
    }
}

async fn wait_for_status(handle: &ServerHandle, what: impl Fn(&ServerStatus) -> bool) {
    let mut status = handle.watch_status();
    status.wait_for(|s| what(s)).await.expect("server alive");
}

/// Sends one GET on a kept-alive connection and reads one response (bodies here are
/// small and sent with Content-Length).
async fn get(stream: &mut TcpStream, path: &str) -> String {
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = Vec::new();
    let mut buffer = [0u8; 1024];
    loop {
        let read = stream.read(&mut buffer).await.expect("read");
        assert!(
            read > 0,
            "connection closed before a whole response: {response:?}"
        );
        response.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&response).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_owned)
                })
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                return text;
            }
        }
    }
}

#[actix_rt::test]
async fn the_http_service_exists_only_while_a_client_is_connected() {
    let server = start(ServerOptions::default());
    assert_eq!(
        server.handle.status(),
        ServerStatus::default(),
        "nothing built before a client"
    );

    let mut first = TcpStream::connect(server.address).await.expect("connect");
    assert!(get(&mut first, "/hello").await.ends_with("hello"));
    let mut second = TcpStream::connect(server.address).await.expect("connect");
    assert!(get(&mut second, "/hello").await.ends_with("hello"));
    let status = server.handle.status();
    assert_eq!((status.connections, status.service_built), (2, true));

    drop(first);
    wait_for_status(&server.handle, |s| s.connections == 1).await;
    assert!(
        server.handle.status().service_built,
        "one client still connected"
    );
    drop(second);
    wait_for_status(&server.handle, |s| s.connections == 0).await;
    assert!(
        !server.handle.status().service_built,
        "no client, no service, no date timer"
    );

    // And it comes back for the next client.
    let mut third = TcpStream::connect(server.address).await.expect("connect");
    assert!(get(&mut third, "/hello").await.ends_with("hello"));
    assert_eq!(server.handle.status().accepted, 3);
    server.handle.stop(true).await;
}

#[actix_rt::test]
async fn at_the_connection_cap_a_newcomer_evicts_the_oldest_connection_without_a_credential() {
    let server = start(ServerOptions {
        max_connections: 2,
        ..ServerOptions::default()
    });
    // Two connections that never send a whole request (anybody's, as far as the
    // server can tell) fill it.
    let mut oldest = TcpStream::connect(server.address).await.expect("connect");
    oldest.write_all(b"GET /hel").await.expect("write");
    wait_for_status(&server.handle, |s| s.accepted == 1).await;
    let mut younger = TcpStream::connect(server.address).await.expect("connect");
    younger.write_all(b"GET /hel").await.expect("write");
    wait_for_status(&server.handle, |s| s.accepted == 2).await;

    // A newcomer is served at once, and the oldest one goes for it.
    let mut newcomer = TcpStream::connect(server.address).await.expect("connect");
    assert!(get(&mut newcomer, "/hello").await.ends_with("hello"));
    // Closed (an end of stream or a reset, by the kernel's choice), with no answer.
    let mut rest = Vec::new();
    let _ = oldest.read_to_end(&mut rest).await;
    assert!(rest.is_empty(), "evicted without an answer");
    assert_eq!(server.handle.status().evicted, 1);
    // The younger one still has its slot.
    younger
        .write_all(b"lo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("write");
    let mut answer = [0u8; 15];
    younger.read_exact(&mut answer).await.expect("answered");
    assert_eq!(&answer, b"HTTP/1.1 200 OK");
    server.handle.stop(true).await;
}

#[actix_rt::test]
async fn at_the_connection_cap_with_every_connection_signed_in_a_newcomer_waits() {
    let server = start(ServerOptions {
        max_connections: 1,
        ..ServerOptions::default()
    });
    // `/slow` marks its connection signed in, as the credential check does.
    let mut first = TcpStream::connect(server.address).await.expect("connect");
    let gate = server.gate.clone();
    let in_hand = actix_rt::spawn(async move { get(&mut first, "/slow").await });
    gate.entered.notified().await;

    // The kernel takes the connection into the backlog; the server does not accept it.
    let mut second = TcpStream::connect(server.address).await.expect("connect");
    let second_get = actix_rt::spawn(async move { get(&mut second, "/hello").await });
    // Nothing to evict: the backlog holds the newcomer while the first is signed in.
    assert_eq!(server.handle.status().accepted, 1);
    assert_eq!(server.handle.status().evicted, 0);

    server.gate.release.notify_one();
    assert!(in_hand.await.expect("client").ends_with("slow done"));
    // Idle now, the first connection is anybody's again: the newcomer takes its slot.
    assert!(second_get.await.expect("client").ends_with("hello"));
    assert_eq!(server.handle.status().accepted, 2);
    server.handle.stop(true).await;
}

#[actix_rt::test]
async fn a_graceful_stop_finishes_the_request_in_hand_and_takes_no_new_connection() {
    let server = start(ServerOptions::default());
    let mut client = TcpStream::connect(server.address).await.expect("connect");
    let entered = server.gate.entered.notified();
    let in_hand = actix_rt::spawn(async move { get(&mut client, "/slow").await });
    entered.await;

    let stopped = actix_rt::spawn(server.handle.stop(true));
    wait_for_status(&server.handle, |s| s.stopping).await;
    assert!(
        TcpStream::connect(server.address).await.is_err(),
        "a stopping server takes no new connection"
    );
    assert!(
        !stopped.is_finished(),
        "the stop waits for the request in hand"
    );

    server.gate.release.notify_one();
    assert!(in_hand.await.expect("client").ends_with("slow done"));
    stopped.await.expect("stop");
    server
        .run
        .await
        .expect("run")
        .expect("server ended cleanly");
    assert!(!server.handle.status().service_built);
}

#[actix_rt::test]
async fn a_graceful_stop_drops_a_hung_request_after_the_grace_period() {
    let server = start(ServerOptions {
        shutdown_grace: Duration::from_millis(50),
        ..ServerOptions::default()
    });
    let mut client = TcpStream::connect(server.address).await.expect("connect");
    client
        .write_all(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("write");
    server.gate.entered.notified().await;

    server.handle.stop(true).await; // never released: ends by the grace period
    let mut rest = Vec::new();
    let read = client.read_to_end(&mut rest).await;
    assert!(
        rest.is_empty() && read.map_or(true, |n| n == 0),
        "closed without an answer"
    );
    server
        .run
        .await
        .expect("run")
        .expect("server ended cleanly");
    // Stopping again is a no-op.
    server.handle.stop(false).await;
}

#[actix_rt::test]
async fn a_graceful_stop_closes_idle_kept_alive_connections_at_once() {
    // Keep-alive and grace far beyond the test's timeout: only the stop can close it.
    let server = start(ServerOptions {
        keep_alive: Duration::from_secs(3600),
        shutdown_grace: Duration::from_secs(3600),
        ..ServerOptions::default()
    });
    let mut idle = TcpStream::connect(server.address).await.expect("connect");
    assert!(get(&mut idle, "/hello").await.ends_with("hello"));

    let stop = server.handle.stop(true);
    tokio::time::timeout(Duration::from_secs(60), stop)
        .await
        .expect("the stop did not wait for the idle connection's keep-alive");
    let mut rest = Vec::new();
    let _ = idle.read_to_end(&mut rest).await;
    assert!(rest.is_empty(), "closed without another byte");
}
