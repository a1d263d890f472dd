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
mod tests {
    use super::*;

    // Captured on this project's x86-64 machine: listeners on 127.0.0.1:47001 (B799),
    // [::1]:47001 and [::]:47002 (B79A), a client of an AF_INET6 socket connected to
    // ::ffff:127.0.0.1:47001, an IPv4 client of [::]:47002, a connection still in the
    // backlog and one in TIME_WAIT. (All were root's; some uids are changed to tell the
    // owners apart.)
    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     
   1: 0100007F:B799 00000000:0000 0A 00000000:00000001 00:00000000 00000000     0        0 35150 2 000000002738a6f5 100 0 0 10 0                     
   2: 0100007F:5FDA 0100007F:98AE 06 00000000:00000000 03:00001058 00000000     0        0 0 3 0000000084f8e342                                      
   6: 0100007F:B799 0100007F:AEDC 01 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000065bee34a 20 0 0 10 -1                         
  14: 0100007F:EAFC 0100007F:B79A 01 00000000:00000000 00:00000000 00000000  1001        0 35154 2 0000000030fcc695 20 0 0 10 -1                     
";
    const TCP6: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:B799 00000000000000000000000000000000:0000 0A 00000000:00000001 00:00000000 00000000   998        0 35151 2 00000000255651ee 100 0 0 10 0
   1: 00000000000000000000000000000000:B79A 00000000000000000000000000000000:0000 0A 00000000:00000001 00:00000000 00000000     0        0 35152 2 00000000b19316df 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:AEDC 0000000000000000FFFF00000100007F:B799 01 00000000:00000000 00:00000000 00000000  1000        0 35153 2 000000000461e83e 20 0 0 10 -1
   5: 0000000000000000FFFF00000100007F:B79A 0000000000000000FFFF00000100007F:EAFC 01 00000000:00000000 00:00000000 00000000     0        0 0 1 000000005aa6c61e 20 0 0 10 -1
";

    fn at(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[test]
    fn ipv4_lines_read_as_addresses_states_owners_and_inodes() {
        let all: Vec<_> = entries(TCP).collect();
        assert_eq!(all.len(), 4, "the heading is not a socket");
        assert_eq!(
            all[0],
            SocketEntry {
                local: at("127.0.0.1:47001"),
                remote: at("0.0.0.0:0"),
                state: TCP_LISTEN,
                uid: 0,
                inode: 35150,
            }
        );
        assert!(all[0].is_listening());
        assert_eq!(all[0].owner(), Some(0), "root's listener");
        assert_eq!(all[3].owner(), Some(1001));
        // TIME_WAIT and a connection still in the backlog: nobody's, not root's.
        assert_eq!(all[1].state, 0x06);
        assert_eq!(all[1].owner(), None);
        assert_eq!(all[2].owner(), None);
    }

    #[test]
    fn ipv6_lines_read_with_ipv4_mapped_addresses_as_ipv4() {
        let all: Vec<_> = entries(TCP6).collect();
        assert_eq!(all[0].local, at("[::1]:47001"));
        assert_eq!(all[0].owner(), Some(998));
        assert_eq!(all[1].local, at("[::]:47002"));
        assert_eq!(all[2].local, at("127.0.0.1:44764"));
        assert_eq!(all[2].remote, at("127.0.0.1:47001"));
        assert_eq!(all[2].state, TCP_ESTABLISHED);
    }

    #[test]
    fn the_client_end_of_a_connection_is_found_by_both_addresses_in_either_table() {
        // An IPv4 client of the IPv6 wildcard listener: in the IPv4 table.
        assert_eq!(
            owner_of_client(TCP, at("127.0.0.1:60156"), at("127.0.0.1:47002")),
            Some(1001)
        );
        // An AF_INET6 client speaking IPv4, asked about as the server saw it (IPv4) or
        // as mapped: the same socket.
        assert_eq!(
            owner_of_client(TCP6, at("127.0.0.1:44764"), at("127.0.0.1:47001")),
            Some(1000)
        );
        assert_eq!(
            owner_of_client(
                TCP6,
                at("[::ffff:127.0.0.1]:44764"),
                at("[::ffff:127.0.0.1]:47001")
            ),
            Some(1000)
        );
        // The server's own end, or a socket no process holds, is no client's owner.
        assert_eq!(
            owner_of_client(TCP, at("127.0.0.1:47001"), at("127.0.0.1:44764")),
            None
        );
        assert_eq!(
            owner_of_client(TCP6, at("127.0.0.1:47002"), at("127.0.0.1:60156")),
            None
        );
    }

    #[test]
    fn lines_that_are_not_sockets_are_skipped() {
        for line in [
            "",
            "  sl  local_address rem_address   st",
            "   1: 0100007F:B799",
            "   1: 0100007:B799 00000000:0000 0A 0:0 0:0 0 0 0 1",
            "   1: 0100007F:B799 00000000:0000 0A 00000000:00000001 00:00000000 00000000 x 0 1",
        ] {
            assert_eq!(parse_line(line), None, "{line:?}");
        }
    }
}
