use super::*;

#[test]
fn a_sound_check_allows_writes_and_a_damaged_one_refuses_them_with_the_recovery_steps() {
    let path = Path::new("/data/inkling.db");
    assert_eq!(Verdict::of_check(path, Ok(None)), Verdict::Sound);
    assert!(Verdict::Sound.allows_writes().is_ok());

    let damaged = Verdict::of_check(path, Ok(Some("page 7: btreeInitPage() error".into())));
    let refused = damaged.allows_writes().unwrap_err().to_string();
    assert!(refused.contains("/data/inkling.db is damaged"), "{refused}");
    assert!(refused.contains("btreeInitPage"), "{refused}");
    assert!(refused.contains("Nothing was written"), "{refused}");
    assert!(refused.contains(".recover"), "{refused}");

    let unreadable = Verdict::of_check(path, Err(StoreError::Unavailable("EIO".into())));
    let refused = unreadable.allows_writes().unwrap_err().to_string();
    assert!(refused.contains("cannot check the database"), "{refused}");
    assert!(refused.contains(".recover"), "{refused}");
}

#[test]
fn a_write_waits_for_the_verdict_then_follows_it() {
    for (verdict, allowed) in [
        (Verdict::Sound, true),
        (Verdict::Damaged("bad".into()), false),
    ] {
        let integrity = Integrity::undecided();
        let waiting = {
            let integrity = integrity.clone();
            std::thread::spawn(move || integrity.wait_for_verdict())
        };
        integrity.decide(verdict.clone());
        let seen = waiting.join().unwrap();
        assert_eq!(seen, verdict);
        assert_eq!(seen.allows_writes().is_ok(), allowed);
    }
}
