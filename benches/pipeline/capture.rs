//! The capture benchmarks: `POST /api/notes` against a commit on the store and an actor
//! hop, and the look-up of a new connection's owner (`peers`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::actors::repository::{CaptureNote, RepositoryActor};
use inkling::clock::SystemClock;
use inkling::storage::Store;

use crate::service;
use crate::{body, report, settings};

const CAPTURES: usize = 2_000;
const CLIENTS: usize = 8;

pub(crate) async fn capture() {
    println!("capture: {CAPTURES} notes, durable commits (WAL, synchronous=FULL)");

    // 1. The floor: one SQLite transaction per note, straight on the store.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
    let mut samples = Vec::with_capacity(CAPTURES);
    let started = Instant::now();
    for i in 0..CAPTURES {
        let t = Instant::now();
        store.capture(&body(i), Utc::now()).unwrap();
        samples.push(t.elapsed());
    }
    report("SQLite commit (Store::capture)", samples, started.elapsed());

    // 2. Plus the hop to the repository's thread and back.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let hub = inkling::actors::mailbox::Mailbox::from(actix::Actor::start(
        inkling::actors::hub::Hub::default(),
    ));
    let repository = RepositoryActor::start(Store::open(&path, 30).unwrap(), path, hub);
    let mut samples = Vec::with_capacity(CAPTURES);
    let started = Instant::now();
    for i in 0..CAPTURES {
        let t = Instant::now();
        repository
            .send(CaptureNote {
                body: body(i),
                now: Utc::now(),
            })
            .await
            .unwrap()
            .unwrap();
        samples.push(t.elapsed());
    }
    report("+ actor hop (RepositoryActor)", samples, started.elapsed());

    // 3. The whole service: HTTP, token check, inbox use case, telemetry, worker enqueue.
    capture_over_http(
        &format!("+ HTTP, {CLIENTS} concurrent clients (end to end)"),
        Connections::Kept,
    )
    .await;
}

/// Who is connecting: the owner look-up alone, then what it adds to a capture on a
/// connection of its own.
pub(crate) async fn peers() {
    use std::net::SocketAddr;
    use std::net::{TcpListener, TcpStream};
    let sockets = std::fs::read_to_string("/proc/net/tcp")
        .map(|table| table.lines().count().saturating_sub(1))
        .unwrap_or(0);
    println!("peers: the owner of a new connection ({sockets} IPv4 sockets on the machine)");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = listener.local_addr().unwrap();
    let mut open = Vec::new();
    for others in [0usize, 500] {
        while open.len() < others {
            let client = TcpStream::connect(server).unwrap();
            let (accepted, _) = listener.accept().unwrap();
            open.push((client, accepted));
        }
        let client = TcpStream::connect(server).unwrap();
        let peer = client.local_addr().unwrap();
        let _accepted = listener.accept().unwrap();
        type LookUp = fn(SocketAddr, SocketAddr) -> std::io::Result<Option<u32>>;
        let ways: [(&str, LookUp); 2] = [
            ("netlink", inkling::socket_owner::client_owner),
            (
                "/proc/net/tcp",
                inkling::socket_owner::client_owner_from_tables,
            ),
        ];
        for (way, look_up) in ways {
            let mut samples = Vec::new();
            let started = Instant::now();
            for _ in 0..500 {
                let t = Instant::now();
                let owner = look_up(peer, server).unwrap();
                samples.push(t.elapsed());
                assert!(owner.is_some());
            }
            report(
                &format!("{way}, {others} others open"),
                samples,
                started.elapsed(),
            );
        }
    }
    drop(open);

    capture_over_http(
        &format!("capture, {CLIENTS} clients, a connection each"),
        Connections::EachCapture,
    )
    .await;
}

/// How the capture clients connect: one kept-alive connection each, or a new one per
/// capture (as each CLI command makes).
#[derive(Clone, Copy)]
enum Connections {
    Kept,
    EachCapture,
}

/// The whole service, end to end: `CLIENTS` clients capture `CAPTURES` notes between
/// them over HTTP, durably; their latencies reported under `name`.
async fn capture_over_http(name: &str, connections: Connections) {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let service = service::start_service(&s, Arc::new(SystemClock)).await;
    let url = format!("{}/api/notes", service.address);
    let (handle, token) = (service.handle, service.token);
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (url, token) = (url.clone(), token.clone());
            actix_rt::spawn(async move {
                let new_client = || {
                    awc::Client::builder()
                        .timeout(Duration::from_secs(30))
                        .finish()
                };
                let mut client = new_client();
                let mut samples = Vec::new();
                for i in 0..CAPTURES / CLIENTS {
                    if let Connections::EachCapture = connections {
                        client = new_client();
                    }
                    let t = Instant::now();
                    let response = client
                        .post(&url)
                        .bearer_auth(&token)
                        .send_json(&serde_json::json!({ "body": format!("client {c} note {i}") }))
                        .await
                        .unwrap();
                    assert_eq!(response.status(), 201);
                    samples.push(t.elapsed());
                }
                samples
            })
        })
        .collect();
    let mut samples = Vec::new();
    for client in clients {
        samples.extend(client.await.unwrap());
    }
    report(name, samples, started.elapsed());
    handle.stop(true).await;
}
