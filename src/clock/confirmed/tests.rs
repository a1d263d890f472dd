use std::sync::Arc;

use super::*;
use crate::clock::ManualClock;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn confirmed_over(newest_stored: Option<DateTime<Utc>>) -> (ManualClock, ConfirmedClock) {
    let wall = ManualClock::new(at("2026-03-01T12:00:00Z"));
    let confirmed = ConfirmedClock::new(Arc::new(wall.clone()), newest_stored);
    (wall, confirmed)
}

#[test]
fn a_clock_in_step_is_now_and_settled() {
    let (wall, clock) = confirmed_over(None);
    assert_eq!(clock.settled_now(), Some(at("2026-03-01T12:00:00Z")));
    wall.advance(chrono::Duration::days(31));
    assert_eq!(clock.settled_now(), Some(at("2026-04-01T12:00:00Z")));
    // A time server's small step is taken as it comes.
    wall.jump(chrono::Duration::seconds(90));
    assert_eq!(clock.settled_now(), Some(at("2026-04-01T12:01:30Z")));
}

#[test]
fn a_transient_jump_ahead_is_never_now() {
    let (wall, clock) = confirmed_over(None);
    wall.advance(chrono::Duration::minutes(1));
    wall.jump(chrono::Duration::days(400));
    assert_eq!(clock.now(), at("2026-03-01T12:01:00Z"));
    assert_eq!(clock.settled_now(), None);
    wall.advance(chrono::Duration::minutes(5));
    assert_eq!(
        clock.now(),
        at("2026-03-01T12:06:00Z"),
        "carried on, not jumped"
    );
    assert_eq!(clock.settled_now(), None);
    // Set right again before it was confirmed.
    wall.jump(-chrono::Duration::days(400));
    assert_eq!(clock.settled_now(), Some(at("2026-03-01T12:06:00Z")));
}

#[test]
fn a_jump_ahead_that_holds_is_confirmed_after_the_hold() {
    let (wall, clock) = confirmed_over(None);
    wall.jump(chrono::Duration::hours(3));
    assert_eq!(clock.now(), at("2026-03-01T12:00:00Z"));
    wall.advance(chrono::Duration::minutes(9));
    assert_eq!(clock.settled_now(), None);
    assert_eq!(clock.now(), at("2026-03-01T12:09:00Z"));
    wall.advance(chrono::Duration::minutes(1));
    assert_eq!(clock.settled_now(), Some(at("2026-03-01T15:10:00Z")));
    wall.advance(chrono::Duration::minutes(1));
    assert_eq!(clock.now(), at("2026-03-01T15:11:00Z"));
}

#[test]
fn a_second_jump_starts_the_hold_again() {
    let (wall, clock) = confirmed_over(None);
    wall.jump(chrono::Duration::hours(3));
    assert_eq!(clock.settled_now(), None);
    wall.advance(chrono::Duration::minutes(8));
    wall.jump(chrono::Duration::days(2));
    assert_eq!(clock.settled_now(), None);
    wall.advance(chrono::Duration::minutes(8));
    assert_eq!(
        clock.settled_now(),
        None,
        "the second jump has held 8 minutes"
    );
    assert_eq!(clock.now(), at("2026-03-01T12:16:00Z"));
    wall.advance(chrono::Duration::minutes(2));
    assert_eq!(clock.settled_now(), Some(at("2026-03-03T15:18:00Z")));
}

#[test]
fn a_clock_set_back_is_taken_at_once() {
    let (wall, clock) = confirmed_over(None);
    wall.jump(-chrono::Duration::days(1));
    assert_eq!(clock.settled_now(), Some(at("2026-02-28T12:00:00Z")));
}

#[test]
fn at_start_a_clock_far_past_the_newest_stored_time_dates_but_does_not_purge_until_it_held() {
    let (wall, clock) = confirmed_over(Some(at("2026-02-01T00:00:00Z")));
    assert_eq!(clock.now(), at("2026-03-01T12:00:00Z"));
    assert_eq!(clock.settled_now(), None);
    wall.advance(chrono::Duration::minutes(10));
    assert_eq!(clock.settled_now(), Some(at("2026-03-01T12:10:00Z")));
}

#[test]
fn at_start_a_clock_near_the_newest_stored_time_is_settled() {
    let (_wall, clock) = confirmed_over(Some(at("2026-03-01T11:59:00Z")));
    assert_eq!(clock.settled_now(), Some(at("2026-03-01T12:00:00Z")));
    let (_wall, clock) = confirmed_over(Some(at("2027-01-01T00:00:00Z")));
    assert!(
        clock.settled_now().is_some(),
        "a store ahead of the clock only purges less"
    );
}
