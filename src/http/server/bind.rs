//! The sockets the service listens on: the configured address, and `[::1]` on the same
//! port beside 127.0.0.1 (or 0.0.0.0).
//!
//! Why both loopbacks: Chromium (and curl, and most programs) try `[::1]` first for
//! `localhost`. With inkling on 127.0.0.1 alone, another user listening on
//! `[::1]:PORT` received the page opened at `http://localhost:PORT`, its code and
//! session. Holding `[::1]:PORT` too leaves nobody else that place, and serves the page
//! there like on 127.0.0.1 (the Host guard allows `[::1]:PORT`, `guard.rs`).
//!
//! A machine without IPv6 (`[::1]` not there): 127.0.0.1 alone, said in the log. A
//! `[::1]:PORT` already held by another program: start-up stops and says so, since a
//! browser would reach that program instead.

use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr, TcpListener};

/// The address to hold beside `bind`: `[::1]` beside an IPv4 loopback or 0.0.0.0
/// (`::` takes `[::1]` itself; a LAN address is not what `localhost` names).
pub fn companion(bind: IpAddr) -> Option<IpAddr> {
    match bind {
        IpAddr::V4(v4) if v4.is_loopback() || v4.is_unspecified() => {
            Some(IpAddr::V6(Ipv6Addr::LOCALHOST))
        }
        _ => None,
    }
}

/// What the failure to hold the companion address means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompanionFailure {
    /// No IPv6 on this machine: carry on with the configured address alone.
    NoIpv6,
    /// Another program holds it on this port: try another port if any would do, else
    /// stop.
    Taken,
    /// Anything else: stop.
    Other,
}

/// How a failed bind of the companion address is read.
pub fn companion_failure(error: &io::Error) -> CompanionFailure {
    const EAFNOSUPPORT: i32 = 97;
    match error.kind() {
        io::ErrorKind::AddrNotAvailable => CompanionFailure::NoIpv6,
        io::ErrorKind::AddrInUse => CompanionFailure::Taken,
        _ if error.raw_os_error() == Some(EAFNOSUPPORT) => CompanionFailure::NoIpv6,
        _ => CompanionFailure::Other,
    }
}

/// Binds `bind`:`port` and its companion on the same port. Port 0 (any free port, the
/// tests') tries again on another when the companion's is taken.
pub fn listen(bind: IpAddr, port: u16) -> anyhow::Result<Vec<TcpListener>> {
    let tries = if port == 0 { 20 } else { 1 };
    let mut last_taken = None;
    for _ in 0..tries {
        let address = SocketAddr::new(bind, port);
        let primary = TcpListener::bind(address).map_err(|e| {
            anyhow::anyhow!(
                "cannot listen on {address} (is another inkling, or another program, using the port? set http.port): {e}"
            )
        })?;
        let Some(other) = companion(bind) else {
            return Ok(vec![primary]);
        };
        let bound_port = primary.local_addr()?.port();
        let beside = SocketAddr::new(other, bound_port);
        match TcpListener::bind(beside) {
            Ok(listener) => return Ok(vec![primary, listener]),
            Err(e) => match companion_failure(&e) {
                CompanionFailure::NoIpv6 => {
                    tracing::info!(%beside, error = %e, "no IPv6 loopback here; listening on {address} alone");
                    return Ok(vec![primary]);
                }
                CompanionFailure::Taken if port == 0 => last_taken = Some(beside),
                CompanionFailure::Taken => anyhow::bail!(
                    "cannot listen on {beside}: another program holds it, and a browser \
                     opening http://localhost:{bound_port} would reach that program instead \
                     of inkling; stop it, or set http.port to another port"
                ),
                CompanionFailure::Other => {
                    anyhow::bail!("cannot listen on {beside}: {e}")
                }
            },
        }
    }
    anyhow::bail!("cannot find a port free on both loopbacks (last tried {last_taken:?})")
}

#[cfg(test)]
mod tests;
