use super::*;

fn at(day: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
        + Duration::days(day)
}

#[test]
fn a_session_opens_is_checked_and_survives_a_restart_with_only_its_digest_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions");
    let sessions = Sessions::load(&path, at(0)).unwrap();
    let secret = sessions.open(at(0)).unwrap();
    assert_eq!(secret.len(), 64);
    assert!(sessions.check(&secret, at(0)));
    assert!(!sessions.check("not a session", at(0)));
    assert_ne!(sessions.open(at(0)).unwrap(), secret);

    let file = std::fs::read_to_string(&path).unwrap();
    assert!(!file.contains(&secret), "the secret itself is not kept");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let reloaded = Sessions::load(&path, at(1)).unwrap();
    assert!(reloaded.check(&secret, at(1)));
    assert_eq!(reloaded.count(), 2);
}

#[test]
fn a_session_unused_for_thirty_days_ends_and_one_in_use_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions");
    let sessions = Sessions::load(&path, at(0)).unwrap();
    let idle = sessions.open(at(0)).unwrap();
    let used = sessions.open(at(0)).unwrap();
    for day in [10, 20, 29, 40, 55] {
        assert!(sessions.check(&used, at(day)), "day {day}");
    }
    assert!(!sessions.check(&idle, at(30)));
    assert!(!sessions.check(&idle, at(1)), "ended for good");
    // The daily record of use is on disk: a restart keeps the session in use.
    let reloaded = Sessions::load(&path, at(80)).unwrap();
    assert!(reloaded.check(&used, at(80)));
    assert!(Sessions::load(&path, at(200)).unwrap().count() == 0);
}

#[test]
fn one_session_or_all_of_them_can_be_ended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions");
    let sessions = Sessions::load(&path, at(0)).unwrap();
    let first = sessions.open(at(0)).unwrap();
    let second = sessions.open(at(0)).unwrap();
    let third = sessions.open(at(0)).unwrap();
    assert!(sessions.end(&first).unwrap());
    assert!(!sessions.end(&first).unwrap());
    assert!(!sessions.check(&first, at(0)));
    assert!(sessions.check(&second, at(0)));
    assert_eq!(sessions.end_all().unwrap(), 2);
    assert!(!sessions.check(&third, at(0)));
    assert_eq!(Sessions::load(&path, at(0)).unwrap().count(), 0);
}

#[test]
fn an_access_lives_in_memory_with_its_session_and_the_id_alone_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions");
    let sessions = Sessions::load(&path, at(0)).unwrap();
    let id = sessions.open(at(0)).unwrap();
    let other = sessions.open(at(0)).unwrap();
    assert!(!sessions.check_access(&id, at(0)), "the id is no access");
    assert_eq!(sessions.grant_access("no such id", at(0)).unwrap(), None);

    let access = sessions.grant_access(&id, at(0)).unwrap().unwrap();
    assert!(sessions.check_access(&access, at(0)));
    assert!(!std::fs::read_to_string(&path).unwrap().contains(&access));
    let kept = sessions.grant_access(&other, at(0)).unwrap().unwrap();

    // A restart of the service: the session is still there, its access is not.
    let restarted = Sessions::load(&path, at(1)).unwrap();
    assert!(!restarted.check_access(&access, at(1)));
    assert!(restarted.check(&id, at(1)));

    // Signing out with an access ends its session and every access of it.
    let second = sessions.grant_access(&id, at(0)).unwrap().unwrap();
    assert!(sessions.end_by_access(&second).unwrap());
    assert!(!sessions.check_access(&access, at(0)));
    assert!(!sessions.check(&id, at(0)));
    assert!(sessions.check_access(&kept, at(0)), "another session's");

    // Unused for thirty days: the session ends, its access with it.
    assert!(!sessions.check_access(&kept, at(31)));
}

#[test]
fn a_session_keeps_its_newest_accesses_only() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = Sessions::load(&dir.path().join("sessions"), at(0)).unwrap();
    let id = sessions.open(at(0)).unwrap();
    let first = sessions.grant_access(&id, at(0)).unwrap().unwrap();
    let later: Vec<String> = (0..ACCESSES_PER_SESSION)
        .map(|_| sessions.grant_access(&id, at(0)).unwrap().unwrap())
        .collect();
    assert!(!sessions.check_access(&first, at(0)), "the oldest went");
    assert!(later.iter().all(|a| sessions.check_access(a, at(0))));
}

#[actix_rt::test]
async fn a_wait_on_an_access_ends_when_its_session_does() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = Sessions::load(&dir.path().join("sessions"), at(0)).unwrap();
    let first = sessions.open(at(0)).unwrap();
    let second = sessions.open(at(0)).unwrap();
    let first_access = sessions.grant_access(&first, at(0)).unwrap().unwrap();
    let second_access = sessions.grant_access(&second, at(0)).unwrap().unwrap();
    let first_ended = actix_rt::spawn(sessions.until_ended(&first_access));
    let second_ended = actix_rt::spawn(sessions.until_ended(&second_access));
    sessions.end(&first).unwrap();
    first_ended.await.unwrap();
    assert!(!second_ended.is_finished());
    sessions.end_all().unwrap();
    second_ended.await.unwrap();
    // Not an access at all: ends at once.
    sessions.until_ended("nothing").await;
}

#[test]
fn a_sessions_file_others_can_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions");
    std::fs::write(&path, "{}").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = Sessions::load(&path, at(0)).unwrap_err().to_string();
        assert!(error.contains("chmod 600"), "{error}");
    }
}
