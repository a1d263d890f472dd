use super::*;

#[test]
fn only_the_token_proves_the_nonce_on_that_port() {
    let nonce = new_nonce().unwrap();
    let answer = proof("the token", 7373, &nonce);
    assert!(is_genuine("the token", 7373, &nonce, &answer));
    assert!(!is_genuine("another token", 7373, &nonce, &answer));
    assert!(
        !is_genuine("the token", 7374, &nonce, &answer),
        "relayed from another port"
    );
    assert!(
        !is_genuine("the token", 7373, &new_nonce().unwrap(), &answer),
        "an old answer"
    );
    assert!(!is_genuine("the token", 7373, &nonce, "zz"));
    assert!(!is_genuine("the token", 7373, &nonce, ""));
}

#[test]
fn nonces_are_fresh_hex_of_the_allowed_length() {
    let (a, b) = (new_nonce().unwrap(), new_nonce().unwrap());
    assert_ne!(a, b);
    assert!(is_valid_nonce(&a));
    assert!(!is_valid_nonce("short"));
    assert!(!is_valid_nonce(&"g".repeat(64)));
}
