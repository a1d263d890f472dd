use super::*;

fn at(s: &str) -> DateTime<Utc> {
    match DateTime::parse_from_rfc3339(s) {
        Ok(t) => t.with_timezone(&Utc),
        Err(e) => panic!("{s}: {e}"),
    }
}

#[test]
fn the_question_comes_after_a_month_of_use_and_only_while_undecided() {
    let first = Some(at("2026-01-01T09:00:00Z"));
    assert!(!should_ask(
        ExpiryChoice::Ask,
        first,
        at("2026-01-31T08:59:59Z")
    ));
    assert!(should_ask(
        ExpiryChoice::Ask,
        first,
        at("2026-01-31T09:00:00Z")
    ));
    assert!(!should_ask(
        ExpiryChoice::On,
        first,
        at("2026-06-01T00:00:00Z")
    ));
    assert!(!should_ask(
        ExpiryChoice::Off,
        first,
        at("2026-06-01T00:00:00Z")
    ));
    // No note written here yet (only imported ones, or none): nothing to ask about.
    assert!(!should_ask(
        ExpiryChoice::Ask,
        None,
        at("2026-06-01T00:00:00Z")
    ));
}

#[test]
fn a_choice_taken_is_seen_by_every_holder_and_only_on_makes_notes_expire() {
    let expiry = Expiry::new(30, ExpiryChoice::Ask);
    let page = expiry.clone();
    assert_eq!(page.active_days(), None);
    expiry.set(ExpiryChoice::On);
    assert_eq!(page.choice(), ExpiryChoice::On);
    assert_eq!(page.active_days(), Some(30));
    expiry.set(ExpiryChoice::Off);
    assert_eq!(page.active_days(), None);
    assert_eq!(page.days(), 30);
}

#[test]
fn choices_read_back_as_written() {
    for choice in [ExpiryChoice::Ask, ExpiryChoice::On, ExpiryChoice::Off] {
        assert_eq!(ExpiryChoice::parse(choice.as_str()), Some(choice));
    }
    assert_eq!(ExpiryChoice::parse("yes"), None);
}
