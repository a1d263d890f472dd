//! Memory under a flood of pipelined requests, against the binary with real sockets
//! (issue #29 point 5): 256 connections each sending pipelined `GET /assets/app.js`,
//! one half reading its answers and the other never, took the service from 23 MB to
//! 3.4 GB and kept it. The service's peak (the kernel's `VmHWM`) must stay near idle,
//! and it still takes a capture during and after the flood.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;

use crate::helpers::{blocking_request, free_port, ServiceProcess};

/// A line of the service's `/proc/PID/status`, in MiB.
pub(crate) fn memory_mib(service: &ServiceProcess, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", service.child.id()))
        .expect("the service's /proc status (Linux)");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in the service's status"));
    kib / 1024
}

/// Rounds before a flood whose readers are not answered counts as stalled.
const MOST_ROUNDS: usize = 20_000;

#[test]
fn a_flood_of_pipelined_requests_read_or_not_keeps_the_service_near_idle_memory() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let token = service.token().expect("the API token");
    let idle = memory_mib(&service, "VmRSS:");

    let request = format!("GET /assets/app.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let burst = request.repeat(200).into_bytes();
    let mut flood: Vec<(TcpStream, bool)> = (0..256)
        .map(|n| {
            let stream = TcpStream::connect(("127.0.0.1", port)).expect("a connection");
            stream.set_nonblocking(true).unwrap();
            (stream, n % 2 == 0)
        })
        .collect();
    // 40 rounds at least: every connection offers 200 more requests a round (as much
    // as its socket takes); the reading half drains its answers. On a loaded machine
    // the service answers slower: the rounds go on until the readers had 10 MiB.
    let mut sink = vec![0u8; 1 << 16];
    let mut sent = 0usize;
    let mut received = 0usize;
    for round in 0.. {
        if round >= 40 && received > 10 << 20 {
            break;
        }
        assert!(
            round < MOST_ROUNDS,
            "after {round} rounds the flood's readers got {received} bytes: the service \
             stopped answering them"
        );
        // A connection the service closed (at its connection cap the oldest with no
        // credential goes) leaves the flood.
        flood.retain_mut(|(stream, reads)| {
            match stream.write(&burst) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(_) => return false,
            }
            if !*reads {
                return true;
            }
            loop {
                match stream.read(&mut sink) {
                    Ok(0) => return false,
                    Ok(n) => received += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                    Err(_) => return false,
                }
            }
        });
        if round == 20 {
            let (status, body) = blocking_request(
                port,
                "POST",
                "/api/notes",
                Some(&token),
                Some(r#"{"body":"during the flood"}"#),
            )
            .expect("a capture during the flood");
            assert_eq!(status, 201, "{body}");
        }
    }
    assert!(sent > 10 << 20, "the flood sent {sent} bytes");
    // The reading half was answered all along (a paused connection costs no memory:
    // a flood that merely stalled would prove nothing).
    assert!(
        received > 10 << 20,
        "the flood's readers got {received} bytes"
    );
    drop(flood);

    let (status, body) = blocking_request(
        port,
        "POST",
        "/api/notes",
        Some(&token),
        Some(r#"{"body":"after the flood"}"#),
    )
    .expect("a capture after the flood");
    assert_eq!(status, 201, "{body}");
    let peak = memory_mib(&service, "VmHWM:");
    assert!(
        peak < idle + 150,
        "the flood took the service from {idle} MiB to a peak of {peak} MiB"
    );
}

/// A client that sends its next requests before it has read the answers (pipelining,
/// or a slow reader of a large answer) gets every answer: the connection reads again
/// once its answers are taken (the service pauses reading while they are not).
#[test]
fn a_client_that_reads_its_answers_late_gets_every_one() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let _service = ServiceProcess::start(dir.path(), port);
    let asked = 2000;
    let request = format!("GET /assets/app.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("a connection");
    // All the requests first (some 100 KB: the socket takes them), then the answers
    // (some 9 MB: more than the sockets hold, so the service waits on this reader).
    stream
        .write_all(request.repeat(asked).as_bytes())
        .expect("the requests sent");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let status_line = b"HTTP/1.1 200 OK\r\n";
    // What was read and not yet searched, kept short: a status line may be cut
    // between two reads.
    let mut unsearched: Vec<u8> = Vec::new();
    let mut piece = vec![0u8; 64 * 1024];
    let mut counted = 0;
    while counted < asked {
        match stream.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => unsearched.extend_from_slice(&piece[..n]),
            Err(e) => panic!("reading the answers: {e} after {counted} of {asked}"),
        }
        counted += unsearched
            .windows(status_line.len())
            .filter(|w| *w == status_line)
            .count();
        let keep = unsearched.len().min(status_line.len() - 1);
        unsearched.drain(..unsearched.len() - keep);
    }
    assert_eq!(counted, asked, "every answer came");
}
