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
