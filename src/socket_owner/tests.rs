use super::*;

#[test]
fn a_live_listener_and_both_ends_of_a_live_connection_are_found() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = listener.local_addr().unwrap();
    let found = listeners_on_port(server.port()).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].local, server);
    assert_eq!(found[0].owner(), Some(own_uid()));

    let client = std::net::TcpStream::connect(server).unwrap();
    let (_accepted, peer) = listener.accept().unwrap();
    assert_eq!(peer, client.local_addr().unwrap());
    assert_eq!(client_owner(peer, server).unwrap(), Some(own_uid()));
    assert_eq!(
        client_owner_from_tables(peer, server).unwrap(),
        Some(own_uid())
    );
    assert_eq!(listeners_on_port_from_tables(server.port()).unwrap(), found);
    // A connection that does not exist has no owner.
    let nobody = SocketAddr::new(peer.ip(), peer.port().wrapping_add(1));
    assert_eq!(client_owner(nobody, server).unwrap(), None);
}
