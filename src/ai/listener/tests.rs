use super::*;

fn at(text: &str) -> SocketAddr {
    text.parse().unwrap()
}

#[test]
fn loopback_urls_are_targets_and_other_machines_are_not() {
    let target = target_of("http://127.0.0.1:11434").unwrap();
    assert_eq!(target.port, 11434);
    assert_eq!(target.addresses, ["127.0.0.1".parse::<IpAddr>().unwrap()]);
    let local = target_of("http://LOCALHOST:8080/v1").unwrap();
    assert_eq!((local.port, local.addresses.len()), (8080, 2));
    assert_eq!(
        target_of("http://[::1]:8080/v1").unwrap().addresses,
        ["::1".parse::<IpAddr>().unwrap()]
    );
    assert_eq!(target_of("http://localhost/v1").unwrap().port, 80);
    assert_eq!(target_of("https://127.0.0.2").unwrap().port, 443);
    assert!(
        target_of("http://0.0.0.0:11434").is_some(),
        "reaches this machine"
    );
    assert_eq!(
        target_of("http://[::ffff:127.0.0.1]:1").unwrap().addresses,
        ["127.0.0.1".parse::<IpAddr>().unwrap()]
    );
    for elsewhere in [
        "http://192.168.1.20:11434",
        "http://gpu-box:11434",
        "https://api.example.com/v1",
        "http://[fe80::1]:11434",
        "not a url",
    ] {
        // Names are looked up: here, as another machine's.
        let lan = |_: &str, _: u16| vec!["192.168.1.20".parse().unwrap()];
        assert_eq!(target_with(elsewhere, lan), None, "{elsewhere}");
    }
}

#[test]
fn a_name_that_leads_to_this_machine_is_checked_like_localhost() {
    // What the system's look-up says of `127.1`, `ip6-localhost`, or the machine's
    // own name (Debian: 127.0.1.1 in /etc/hosts).
    let names = |host: &str, _: u16| -> Vec<IpAddr> {
        match host {
            "127.1" => vec!["127.0.0.1".parse().unwrap()],
            "ip6-localhost" => vec!["::1".parse().unwrap()],
            "my-desktop" => vec!["127.0.1.1".parse().unwrap(), "192.168.1.5".parse().unwrap()],
            _ => Vec::new(),
        }
    };
    let short = target_with("http://127.1:11434", names).unwrap();
    assert_eq!(short.addresses, ["127.0.0.1".parse::<IpAddr>().unwrap()]);
    let six = target_with("http://ip6-localhost:8080/v1", names).unwrap();
    assert_eq!(six.addresses, ["::1".parse::<IpAddr>().unwrap()]);
    let own = target_with("http://my-desktop:11434", names).unwrap();
    assert_eq!(own.addresses, ["127.0.1.1".parse::<IpAddr>().unwrap()]);
    assert_eq!(target_with("http://unknown-name:1", names), None);
}

#[test]
fn a_connection_is_taken_by_a_listener_on_its_address_or_a_wildcard_on_its_port() {
    let v4 = target_of("http://127.0.0.1:11434").unwrap();
    assert!(v4.reached_by(at("127.0.0.1:11434")));
    assert!(v4.reached_by(at("0.0.0.0:11434")));
    assert!(v4.reached_by(at("[::]:11434")), "a dual-stack wildcard");
    assert!(!v4.reached_by(at("[::1]:11434")), "IPv6 loopback only");
    assert!(!v4.reached_by(at("127.0.0.1:11435")));
    assert!(!v4.reached_by(at("192.168.1.20:11434")));
    let local = target_of("http://localhost:11434").unwrap();
    assert!(
        local.reached_by(at("[::1]:11434")),
        "Chromium and awc try ::1 too"
    );
    assert!(local.reached_by(at("127.0.0.1:11434")));
    let any = target_of("http://0.0.0.0:11434").unwrap();
    assert!(any.reached_by(at("[::1]:11434")));
    assert!(!any.reached_by(at("192.168.1.20:11434")));
}

#[test]
fn own_root_ollama_and_configured_users_are_trusted_and_anyone_else_refused() {
    let trust = ListenerTrust::new(1000, Some(998), &[1005]);
    for uid in [1000, 0, 998, 1005] {
        assert_eq!(judge(&[Some(uid)], &trust), Verdict::Allowed, "{uid}");
    }
    assert_eq!(judge(&[], &trust), Verdict::NoListener);
    assert_eq!(judge(&[Some(1001)], &trust), Verdict::Refused { uid: 1001 });
    // Ollama on 127.0.0.1 and a squatter on the wildcard: one is enough to refuse.
    assert_eq!(
        judge(&[Some(998), Some(1001)], &trust),
        Verdict::Refused { uid: 1001 }
    );
    assert!(matches!(judge(&[None], &trust), Verdict::Refused { .. }));
    // No ollama user on this machine: uid 998 is just another user.
    let plain = ListenerTrust::new(1000, None, &[]);
    assert_eq!(judge(&[Some(998)], &plain), Verdict::Refused { uid: 998 });
}
