//! Ports for the processes the tests start and must tell a port to in advance (the
//! service binary, chromedriver).
//!
//! Asking the kernel for port 0, closing it and passing the number on leaves a gap:
//! until the child binds the port, any outgoing connection or port-0 bind in the same
//! test run can take it, since both draw from the ephemeral range (32768–60999 by
//! default on Linux). A service started by a test once exited at start-up that way
//! under load. The ports here come from below the ephemeral range, where the kernel
//! never hands out a port by itself; each is given out once per test binary, and only
//! if nothing listens on it right now.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU32, Ordering};

/// The lowest port handed out.
const FIRST: u32 = 10_000;

/// A port that nothing listens on and that the kernel will not give to anyone else.
pub fn free_port() -> u16 {
    static HANDED_OUT: AtomicU32 = AtomicU32::new(0);
    let span = ephemeral_range_start().saturating_sub(FIRST).max(1);
    // Test binaries run one after another; starting each at its own offset keeps a
    // service a killed binary left behind from being met again.
    let offset = std::process::id() % span;
    loop {
        let n = HANDED_OUT.fetch_add(1, Ordering::Relaxed);
        assert!(n < span, "every port below the ephemeral range is taken");
        let port = u16::try_from(FIRST + (offset + n) % span).expect("below 65536");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The first port of the kernel's ephemeral range (32768 if it cannot be read).
fn ephemeral_range_start() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}
