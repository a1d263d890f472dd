use super::*;

fn at(text: &str) -> SocketAddr {
    text.parse().unwrap()
}

#[test]
fn only_the_services_own_user_and_other_machines_get_in() {
    let local = at("127.0.0.1:50000");
    assert_eq!(judge(&Ok(Some(1000)), local, 1000), PeerVerdict::Allowed);
    assert_eq!(
        judge(&Ok(Some(1001)), local, 1000),
        PeerVerdict::Refused { uid: Some(1001) }
    );
    // Root is another user too: the service's own uid only.
    assert_eq!(
        judge(&Ok(Some(0)), local, 1000),
        PeerVerdict::Refused { uid: Some(0) }
    );
    assert_eq!(
        judge(&Ok(None), local, 1000),
        PeerVerdict::Refused { uid: None }
    );
    assert_eq!(
        judge(&Ok(None), at("[::ffff:127.0.0.1]:5"), 1000),
        PeerVerdict::Refused { uid: None }
    );
    assert_eq!(
        judge(&Ok(None), at("[::1]:5"), 1000),
        PeerVerdict::Refused { uid: None }
    );
    assert_eq!(
        judge(&Ok(None), at("192.168.1.7:5"), 1000),
        PeerVerdict::Allowed
    );
    assert_eq!(
        judge(&Err(io::Error::other("no /proc")), local, 1000),
        PeerVerdict::Refused { uid: None }
    );
}
