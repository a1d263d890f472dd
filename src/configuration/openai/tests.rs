use super::*;
use std::collections::HashMap;

#[test]
fn the_key_comes_from_the_named_variable_and_an_empty_one_stops_start_up() {
    let env: HashMap<String, String> = [
        ("KEY".to_string(), "secret".to_string()),
        ("EMPTY".to_string(), " ".to_string()),
    ]
    .into();
    assert_eq!(ApiKey::from_env("", &env), Ok(ApiKey(None)));
    let key = ApiKey::from_env("KEY", &env).expect("set");
    assert_eq!(key.secret(), Some("secret"));
    assert_eq!(format!("{key:?}"), "ApiKey(set)", "never printed");
    let empty = ApiKey::from_env("EMPTY", &env).expect_err("empty");
    assert!(
        empty.contains("EMPTY") && empty.contains("empty"),
        "{empty}"
    );
    let unset = ApiKey::from_env("NOPE", &env).expect_err("unset");
    assert!(unset.contains("NOPE is not set"), "{unset}");
}
