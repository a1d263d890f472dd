//! The unit tests of `devices.rs`.
use super::*;

fn wall() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn devices() -> (tempfile::TempDir, Devices) {
    let dir = tempfile::tempdir().unwrap();
    let devices = Devices::load(&dir.path().join("devices")).unwrap();
    (dir, devices)
}

#[test]
fn a_code_pairs_once_a_capture_only_device_kept_as_a_digest() {
    let (dir, devices) = devices();
    let code = devices.mint_code(secs(100)).unwrap();
    assert_eq!(code.code.len(), 9, "{}", code.code);
    assert_eq!(code.expires_in_s, 300);
    // Typed in lower case without the dash: the same code.
    let typed = code.code.replace('-', "").to_lowercase();
    let paired = devices
        .pair(&typed, " Chromium\nclipper ", secs(150), wall())
        .unwrap();
    assert_eq!(paired.name, "Chromium clipper");
    assert_eq!(paired.scope, Scope::Capture);
    assert!(matches!(
        devices.pair(&code.code, "again", secs(151), wall()),
        Err(PairError::NoCode)
    ));
    assert_eq!(
        devices.check(&paired.token, wall()),
        Some((paired.id.clone(), Scope::Capture))
    );
    assert_eq!(devices.check("not a token", wall()), None);

    let path = dir.path().join("devices");
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(
        !file.contains(&paired.token),
        "the token itself is not kept"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let reloaded = Devices::load(&path).unwrap();
    assert!(reloaded.check(&paired.token, wall()).is_some());
    assert_eq!(reloaded.list()[0].name, "Chromium clipper");
}

#[test]
fn a_code_expires_after_five_minutes() {
    let (_dir, devices) = devices();
    let code = devices.mint_code(secs(1000)).unwrap().code;
    assert!(matches!(
        devices.pair(&code, "late", secs(1000 + 301), wall()),
        Err(PairError::Expired)
    ));
    assert!(matches!(
        devices.pair(&code, "late", secs(1000 + 302), wall()),
        Err(PairError::NoCode)
    ));
    let code = devices.mint_code(secs(2000)).unwrap().code;
    assert!(devices.pair(&code, "in time", secs(2300), wall()).is_ok());
}

#[test]
fn wrong_codes_are_counted_and_the_fifth_voids_the_code() {
    let (_dir, devices) = devices();
    let code = devices.mint_code(secs(0)).unwrap().code;
    for left in (1..CODE_TRIES).rev() {
        match devices.pair("AAAA-AAAA", "guess", secs(1), wall()) {
            Err(PairError::Wrong { left: l }) => assert_eq!(l, left),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        devices.pair("AAAA-AAAA", "guess", secs(1), wall()),
        Err(PairError::TooManyTries)
    ));
    assert!(matches!(
        devices.pair(&code, "right, too late", secs(2), wall()),
        Err(PairError::NoCode)
    ));
    assert!(devices.list().is_empty());
}

#[test]
fn a_new_code_replaces_the_waiting_one_and_a_bad_name_changes_nothing() {
    let (_dir, devices) = devices();
    let first = devices.mint_code(secs(0)).unwrap().code;
    let second = devices.mint_code(secs(1)).unwrap().code;
    if first != second {
        assert!(matches!(
            devices.pair(&first, "x", secs(2), wall()),
            Err(PairError::Wrong { .. })
        ));
    }
    assert!(matches!(
        devices.pair(&second, "  ", secs(2), wall()),
        Err(PairError::BadName(_))
    ));
    let long = "n".repeat(NAME_MAX_CHARS + 1);
    assert!(matches!(
        devices.pair(&second, &long, secs(2), wall()),
        Err(PairError::BadName(_))
    ));
    assert!(devices.pair(&second, "ok", secs(2), wall()).is_ok());
}

#[test]
fn a_revoked_device_opens_nothing_and_stays_revoked() {
    let (dir, devices) = devices();
    let code = devices.mint_code(secs(0)).unwrap().code;
    let one = devices.pair(&code, "one", secs(0), wall()).unwrap();
    let code = devices.mint_code(secs(0)).unwrap().code;
    let two = devices.pair(&code, "two", secs(0), wall()).unwrap();
    assert!(devices.revoke(&one.id).unwrap());
    assert!(!devices.revoke(&one.id).unwrap());
    assert_eq!(devices.check(&one.token, wall()), None);
    assert!(devices.check(&two.token, wall()).is_some());
    let reloaded = Devices::load(&dir.path().join("devices")).unwrap();
    assert_eq!(reloaded.check(&one.token, wall()), None);
    assert_eq!(reloaded.list().len(), 1);
}
