use super::*;

#[test]
fn a_requests_path_is_known_from_the_callers_name_and_token() {
    assert_eq!(
        request_path(":1.42", "inkling_7"),
        "/org/freedesktop/portal/desktop/request/1_42/inkling_7"
    );
}

#[test]
fn the_trigger_is_written_as_the_shortcuts_specification_says() {
    assert_eq!(
        trigger(&Key::parse("<Control><Alt>n").unwrap()),
        "CTRL+ALT+n"
    );
    assert_eq!(
        trigger(&Key::parse("<Shift><Super>space").unwrap()),
        "SHIFT+LOGO+space"
    );
}
