//! Which user owns a TCP socket on this machine: the one fact the service needs to
//! refuse another user's program on a loopback port (docs/SECURITY.md, "Other users of
//! the machine"). Linux tells every user who owns each TCP socket of the network
//! namespace: the kernel's socket diagnostics over netlink (what `ss` uses), and the
//! tables `/proc/net/tcp` and `/proc/net/tcp6`.
//!
//! - [`sock_diag`]: the netlink look-ups: one socket by its addresses, straight from
//!   the kernel's hash, or the listening sockets alone (cheap whatever the number of
//!   connections on the machine);
//! - [`proc_net`]: the tables' lines as plain data (pure, tested on captured lines),
//!   the fallback where netlink is refused (reading them walks the whole connection
//!   hash: milliseconds);
//! - [`users`]: uids and user names;
//! - here: the two questions: who listens on a port ([`listeners_on_port`]: the model
//!   server's), and who holds the client end of a connection ([`client_owner`]: a
//!   client of the HTTP server). docs/PERFORMANCE.md, "Who is connecting", has the
//!   costs.

pub mod proc_net;
pub mod sock_diag;
pub mod users;

use std::io;
use std::net::SocketAddr;

pub use proc_net::{canonical, SocketEntry};
pub use users::{own_uid, uid_of, user_name};

const TCP: &str = "/proc/net/tcp";
const TCP6: &str = "/proc/net/tcp6";

/// Every listening socket on `port`, IPv4 and IPv6.
pub fn listeners_on_port(port: u16) -> io::Result<Vec<SocketEntry>> {
    match sock_diag::listeners() {
        Ok(all) => Ok(all
            .into_iter()
            .filter(|entry| entry.local.port() == port)
            .collect()),
        Err(e) => {
            tracing::debug!(error = %e, "socket diagnostics refused; reading /proc/net/tcp");
            listeners_on_port_from_tables(port)
        }
    }
}

/// [`listeners_on_port`] from `/proc/net/tcp{,6}`.
pub fn listeners_on_port_from_tables(port: u16) -> io::Result<Vec<SocketEntry>> {
    let mut listeners = Vec::new();
    for table in [read(TCP)?, read_ipv6()?] {
        listeners.extend(
            proc_net::entries(&table)
                .filter(|entry| entry.is_listening() && entry.local.port() == port),
        );
    }
    Ok(listeners)
}

/// The owner of the client end of the connection `client` → `server` (the addresses an
/// accepted connection has as peer and local address). `Ok(None)`: no process of this
/// machine holds it (it is another machine's, or already gone).
pub fn client_owner(client: SocketAddr, server: SocketAddr) -> io::Result<Option<u32>> {
    match sock_diag::owner_of(client, server) {
        Ok(owner) => Ok(owner),
        Err(e) => {
            tracing::debug!(error = %e, "socket diagnostics refused; reading /proc/net/tcp");
            client_owner_from_tables(client, server)
        }
    }
}

/// [`client_owner`] from `/proc/net/tcp{,6}`.
pub fn client_owner_from_tables(client: SocketAddr, server: SocketAddr) -> io::Result<Option<u32>> {
    // An IPv4 client is in the IPv4 table, unless its socket is an AF_INET6 one
    // speaking IPv4 (then in the IPv6 table, mapped); an IPv6 client only there.
    if canonical(client).is_ipv4() {
        if let Some(owner) = proc_net::owner_of_client(&read(TCP)?, client, server) {
            return Ok(Some(owner));
        }
    }
    Ok(proc_net::owner_of_client(&read_ipv6()?, client, server))
}

/// Whether sockets' owners can be known here (a sandbox may refuse netlink and hide
/// `/proc`).
pub fn owners_knowable() -> io::Result<()> {
    sock_diag::listeners()
        .map(drop)
        .or_else(|_| read(TCP).map(drop))
}

fn read(path: &str) -> io::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {path}: {e}")))
}

/// The IPv6 table; empty on a kernel without IPv6.
fn read_ipv6() -> io::Result<String> {
    match std::fs::read_to_string(TCP6) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        other => other.map_err(|e| io::Error::new(e.kind(), format!("cannot read {TCP6}: {e}"))),
    }
}

#[cfg(test)]
mod tests;
