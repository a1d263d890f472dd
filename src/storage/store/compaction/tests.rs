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
    assert_eq!(next_window(0, 0, 5_000), None);
}

#[test]
fn a_step_of_zero_still_moves_on() {
    assert_eq!(next_window(3, 10, 0), Some((3, 4)));
}

#[test]
fn a_step_compacts_up_to_the_first_young_change_and_the_pass_ends_there() {
    // All old: the whole window; the pass ends only once the newest is reached.
    assert_eq!(old_part(0, 1_000, 5_000, None), (1_000, false));
    assert_eq!(old_part(4_000, 5_000, 5_000, None), (5_000, true));
    // A young change at 1,500: the changes before it, and the pass ends.
    assert_eq!(old_part(1_000, 2_000, 5_000, Some(1_500)), (1_499, true));
    // The window's first change is young: nothing, and the pass ends.
    assert_eq!(old_part(1_000, 2_000, 5_000, Some(1_001)), (1_000, true));
}
