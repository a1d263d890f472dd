use super::*;

#[test]
fn each_key_is_its_sessions_and_each_proof_its_directions() {
    let key = page_key("the token", "session one");
    assert_eq!(key.len(), 32);
    assert_ne!(key, page_key("the token", "session two"));
    assert_ne!(key, page_key("another token", "session one"));

    let nonce = crate::identity::new_nonce().unwrap();
    let proof = service_proof(&key, 7373, &nonce);
    assert!(is_service_proof(&key, 7373, &nonce, &proof));
    assert!(!is_service_proof(&key, 7374, &nonce, &proof), "relayed");
    let other = page_key("the token", "session two");
    assert!(!is_service_proof(&other, 7373, &nonce, &proof));
    assert!(!is_service_proof(&key, 7373, &nonce, "zz"));

    // The page's answer to a challenge equal to the nonce proves nothing the other
    // way: a squatter cannot turn the page into the service's oracle.
    let answer = page_answer(&key, 7373, &nonce);
    assert_ne!(answer, proof);
    assert!(is_page_answer(&key, 7373, &nonce, &answer));
    assert!(!is_page_answer(&key, 7373, &nonce, &proof));
    assert!(!is_service_proof(&key, 7373, &nonce, &answer));
    assert!(!is_page_answer(&other, 7373, &nonce, &answer));
}

#[test]
fn a_challenge_works_once_for_its_session_within_a_minute() {
    let challenges = Challenges::default();
    let t0 = Instant::now();
    let first = challenges.issue("a", t0).unwrap();
    assert!(!challenges.take(&first, "b", t0), "another session's");
    assert!(
        !challenges.take(&first, "a", t0),
        "used up by the wrong try"
    );

    let second = challenges.issue("a", t0).unwrap();
    assert!(challenges.take(&second, "a", t0 + Duration::from_secs(59)));
    assert!(!challenges.take(&second, "a", t0 + Duration::from_secs(59)));

    let late = challenges.issue("a", t0).unwrap();
    assert!(!challenges.take(&late, "a", t0 + Duration::from_secs(61)));
    assert!(!challenges.take("never issued", "a", t0));
}

#[test]
fn waiting_challenges_are_bounded_the_oldest_going_first() {
    let challenges = Challenges::default();
    let t0 = Instant::now();
    let oldest = challenges.issue("a", t0).unwrap();
    let mut newest = String::new();
    for i in 1..=MAX_PENDING {
        newest = challenges
            .issue("a", t0 + Duration::from_millis(i as u64))
            .unwrap();
    }
    let now = t0 + Duration::from_secs(1);
    assert!(!challenges.take(&oldest, "a", now));
    assert!(challenges.take(&newest, "a", now));
}
