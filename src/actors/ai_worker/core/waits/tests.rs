use super::super::test_fixture::t;
use super::*;

#[test]
fn a_park_holds_until_its_time_and_the_steps_go_on_until_an_answer() {
    let mut waits = Waits::default();
    waits.park(t(30), 1);
    assert_eq!(waits.parked_until(t(10)), Some(t(30)));
    assert_eq!(waits.parked_until(t(30)), None, "over at its time");
    assert_eq!(waits.parked, None);
    waits.park(t(90), 2);
    assert_eq!(waits.parked.map(|park| park.step), Some(1));
    assert!(waits.provider_answered());
    assert!(!waits.provider_answered(), "already at the first wait");
}

#[test]
fn answers_lost_in_a_row_wait_longer_and_a_write_elsewhere_ends_the_wait() {
    let mut waits = Waits::default();
    let (first, lost) = waits.answer_lost(t(0)).expect("a wait starts");
    assert_eq!(lost, 1);
    assert_eq!(waits.answer_lost(t(1)), None, "the same stretch");
    assert!(waits.storage_may_be_back(t(2)));
    assert_eq!(waits.storage_wait_until(t(2)), None);
    let (second, lost) = waits.answer_lost(t(3)).expect("a longer wait");
    assert_eq!(lost, 2);
    assert!(second - t(3) > first - t(0));
}
