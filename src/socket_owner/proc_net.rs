//! The lines of Linux's `/proc/net/tcp` and `/proc/net/tcp6`, read as plain data.
//!
//! A line is `sl local rem st tx:rx tr:when retrnsmt uid timeout inode …`. Addresses are
//! hex: an IPv4 address is one 32-bit word as the kernel holds it in memory (network
//! order bytes, printed as a host-order number: `0100007F` is 127.0.0.1 on x86), an
//! IPv6 one is four such words; the port is a plain hex number. A socket of an
//! AF_INET6 socket talking IPv4 shows as an IPv4-mapped address (`::ffff:127.0.0.1`),
//! which [`canonical`] turns back into the IPv4 address so the two tables compare.
//!
//! `uid` is the socket's owner only while a process holds it: a connection still in
//! the listener's backlog, a closed one in TIME_WAIT and an orphan show uid 0 and
//! inode 0, which is nobody, not root. [`SocketEntry::owner`] says `None` for those.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The kernel's TCP state numbers that matter here (include/net/tcp_states.h).
pub const TCP_ESTABLISHED: u8 = 0x01;
pub const TCP_LISTEN: u8 = 0x0A;

/// One socket of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketEntry {
    /// Its own address, IPv4-mapped addresses as IPv4 ([`canonical`]).
    pub local: SocketAddr,
    /// The other end's (0.0.0.0:0 for a listener).
    pub remote: SocketAddr,
    pub state: u8,
    pub uid: u32,
    pub inode: u64,
}

impl SocketEntry {
    /// Who owns it: `None` when no process holds it (inode 0; its uid then says 0).
    pub fn owner(&self) -> Option<u32> {
        (self.inode != 0).then_some(self.uid)
    }

    pub fn is_listening(&self) -> bool {
        self.state == TCP_LISTEN
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it stands for; others unchanged.
pub fn canonical(address: SocketAddr) -> SocketAddr {
    match address {
        SocketAddr::V6(v6) => match v6.ip().to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), v6.port()),
            None => address,
        },
        v4 => v4,
    }
}

/// One line of either table; `None` for the heading and anything not a socket line.
pub fn parse_line(line: &str) -> Option<SocketEntry> {
    let mut fields = line.split_whitespace();
    let slot = fields.next()?;
    if !slot.ends_with(':') {
        return None;
    }
    let local = parse_address(fields.next()?)?;
    let remote = parse_address(fields.next()?)?;
    let state = u8::from_str_radix(fields.next()?, 16).ok()?;
    // tx_queue:rx_queue, tr:tm->when, retrnsmt.
    let mut fields = fields.skip(3);
    let uid = fields.next()?.parse().ok()?;
    let _timeout = fields.next()?;
    let inode = fields.next()?.parse().ok()?;
    Some(SocketEntry {
        local,
        remote,
        state,
        uid,
        inode,
    })
}

/// Every socket line of a table's text.
pub fn entries(table: &str) -> impl Iterator<Item = SocketEntry> + '_ {
    table.lines().filter_map(parse_line)
}

/// The owner of the client end of a connection from `client` to `server`, as one of
/// the tables lists it: the socket whose own address is `client` and whose other end
/// is `server`. `None`: not in this table, or held by no process.
pub fn owner_of_client(table: &str, client: SocketAddr, server: SocketAddr) -> Option<u32> {
    let (client, server) = (canonical(client), canonical(server));
    entries(table)
        .find(|entry| entry.local == client && entry.remote == server)
        .and_then(|entry| entry.owner())
}

/// `ADDR:PORT` in hex, 8 digits for IPv4, 32 for IPv6.
fn parse_address(text: &str) -> Option<SocketAddr> {
    let (address, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let ip = match address.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(address)?)),
        32 => {
            let mut bytes = [0u8; 16];
            for (i, chunk) in bytes.chunks_exact_mut(4).enumerate() {
                chunk.copy_from_slice(&word(&address[i * 8..i * 8 + 8])?);
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(canonical(SocketAddr::new(ip, port)))
}

/// One 32-bit word as the kernel printed it (`%08X` of the bytes read as a host-order
/// number): its bytes in memory order, which is network order.
fn word(hex: &str) -> Option<[u8; 4]> {
    u32::from_str_radix(hex, 16).ok().map(u32::to_ne_bytes)
}

#[cfg(test)]
#[cfg(target_endian = "little")]
mod tests;
