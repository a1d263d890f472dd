use super::*;
use std::net::{TcpListener, TcpStream};

#[test]
fn a_connection_is_found_by_its_addresses_from_either_end_and_either_family() {
    let own = super::super::own_uid();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = listener.local_addr().unwrap();
    let client = TcpStream::connect(server).unwrap();
    let (_accepted, peer) = listener.accept().unwrap();
    assert_eq!(owner_of(peer, server).unwrap(), Some(own));
    let gone = SocketAddr::new(peer.ip(), peer.port().wrapping_add(1));
    assert_eq!(owner_of(gone, server).unwrap(), None);
    drop(client);

    // An AF_INET6 socket speaking IPv4 (IPv4-mapped), as a dual-stack client is.
    let mapped = socket_v6_client(server);
    let (_accepted, peer) = listener.accept().unwrap();
    assert_eq!(owner_of(peer, server).unwrap(), Some(own));
    drop(mapped);

    let v6 = TcpListener::bind("[::1]:0").unwrap();
    let server = v6.local_addr().unwrap();
    let _client = TcpStream::connect(server).unwrap();
    let (_accepted, peer) = v6.accept().unwrap();
    assert_eq!(owner_of(peer, server).unwrap(), Some(own));
}

/// A client of an AF_INET6 socket connected to `server` (IPv4) by its mapped
/// address (std connects a V6 address with an AF_INET6 socket).
fn socket_v6_client(server: SocketAddr) -> TcpStream {
    let IpAddr::V4(v4) = server.ip() else {
        unreachable!()
    };
    TcpStream::connect(SocketAddr::new(
        IpAddr::V6(v4.to_ipv6_mapped()),
        server.port(),
    ))
    .unwrap()
}

#[test]
fn listeners_are_listed_with_their_owner() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let all = listeners().unwrap();
    let found: Vec<_> = all.iter().filter(|entry| entry.local == address).collect();
    assert_eq!(found.len(), 1, "{all:?}");
    assert_eq!(found[0].owner(), Some(super::super::own_uid()));
    assert!(found[0].is_listening());
}
