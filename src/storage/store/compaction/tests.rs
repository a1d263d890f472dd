use super::*;

#[test]
fn a_window_starts_where_the_last_step_ended_and_is_at_most_a_step_long() {
    assert_eq!(next_window(0, 12_000, 5_000), Some((0, 5_000)));
    assert_eq!(next_window(5_000, 12_000, 5_000), Some((5_000, 10_000)));
    assert_eq!(next_window(10_000, 12_000, 5_000), Some((10_000, 12_000)));
}

#[test]
fn nothing_past_the_point_reached_is_no_window() {
    assert_eq!(next_window(12_000, 12_000, 5_000), None);
    // The newest rows deleted by hand (a test, a repair): still nothing to read.
    assert_eq!(next_window(12_000, 11_000, 5_000), None);
    assert_eq!(next_window(0, 0, 5_000), None);
}

#[test]
fn a_step_of_zero_still_moves_on() {
    assert_eq!(next_window(3, 10, 0), Some((3, 4)));
}
