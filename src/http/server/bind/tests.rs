use super::*;

#[test]
fn ipv6_loopback_is_held_beside_ipv4_loopback_and_0_0_0_0_only() {
    let ip = |text: &str| text.parse::<IpAddr>().unwrap();
    assert_eq!(companion(ip("127.0.0.1")), Some(ip("::1")));
    assert_eq!(companion(ip("0.0.0.0")), Some(ip("::1")));
    assert_eq!(companion(ip("::1")), None);
    assert_eq!(companion(ip("::")), None);
    assert_eq!(companion(ip("192.168.1.20")), None);
}

#[test]
fn a_missing_ipv6_is_carried_on_from_and_a_taken_port_is_not() {
    let error = |kind| io::Error::from(kind);
    assert_eq!(
        companion_failure(&error(io::ErrorKind::AddrNotAvailable)),
        CompanionFailure::NoIpv6
    );
    assert_eq!(
        companion_failure(&io::Error::from_raw_os_error(97)),
        CompanionFailure::NoIpv6
    );
    assert_eq!(
        companion_failure(&error(io::ErrorKind::AddrInUse)),
        CompanionFailure::Taken
    );
    assert_eq!(
        companion_failure(&error(io::ErrorKind::PermissionDenied)),
        CompanionFailure::Other
    );
}

#[test]
fn both_loopbacks_are_held_on_one_port_and_a_taken_one_stops_with_the_reason() {
    let listeners = listen("127.0.0.1".parse().unwrap(), 0).unwrap();
    let addresses: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    if addresses.len() == 2 {
        assert_eq!(addresses[0].port(), addresses[1].port());
        assert_eq!(addresses[1].ip(), IpAddr::V6(Ipv6Addr::LOCALHOST));
        let port = addresses[0].port();
        drop(listeners);
        let squatter = TcpListener::bind(("::1", port)).unwrap();
        let refused = listen("127.0.0.1".parse().unwrap(), port).unwrap_err();
        assert!(
            refused.to_string().contains("another program holds it"),
            "{refused}"
        );
        drop(squatter);
    } else {
        // This machine has no IPv6 loopback: 127.0.0.1 alone, as designed.
        assert_eq!(addresses.len(), 1);
    }
}
