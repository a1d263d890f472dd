use super::super::lanes::Lane;

#[test]
fn sharing_out_ends_whatever_the_number_of_notes_and_the_time() {
    // 49 notes and 0.395 s: subtracting each even part left a remainder whose
    // 49th part is 0, and the loop went round for ever on the worker's thread.
    for (notes, ms) in [(49, 395), (98, 1), (103, 2999), (161, 777)] {
        let mut shares = FairShares {
            shared_until: Some(t(0)),
            ..FairShares::default()
        };
        for i in 0..notes {
            shares.owed.insert(format!("n{i}"), (t(0), 100.0));
        }
        shares.share_out(t(0) + chrono::TimeDelta::milliseconds(ms));
        let each = ms as f64 / 1000.0 / notes as f64;
        for (_, owed) in shares.owed.values() {
            assert!((100.0 - owed - each).abs() < 1e-9, "{notes} notes, {ms} ms");
        }
    }
}
use super::super::order::next_in_line;
use super::super::test_fixture::t;
use super::*;

fn secs(s: i64) -> TimeDelta {
    TimeDelta::seconds(s)
}

fn ms(ms: i64) -> TimeDelta {
    TimeDelta::milliseconds(ms)
}

#[test]
fn the_model_s_time_is_shared_evenly_among_the_notes_owed_some() {
    let mut fair = FairShares::default();
    fair.share_out(t(0));
    fair.joined("a", t(0), secs(10));
    fair.joined("b", t(0), secs(30));
    // Alone with "b", "a" would have its 10 s by 20 s: bound at 30 s.
    assert_eq!(fair.fair_by("a", t(0), t(0)), Some(t(30)));
    // "b": 10 s shared with "a", then 20 s alone: 40 s, bound at 60 s.
    assert_eq!(fair.fair_by("b", t(0), t(0)), Some(t(60)));
    // A newcomer at 10 s takes its part from then on: "a" was owed 5 s more,
    // and has it by 25 s with the newcomer, not 20 s.
    fair.share_out(t(10));
    fair.joined("c", t(10), secs(10));
    assert_eq!(
        fair.fair_by("a", t(0), t(10)),
        Some(t(37) + ms(500)),
        "complete at 25 s: 1.5 × 25"
    );
    // Complete: its share stays what it was, whatever happens next.
    fair.share_out(t(100));
    assert_eq!(fair.fair_by("a", t(0), t(500)), Some(t(37) + ms(500)));
    assert!(fair.knows("a", t(0)));
    assert!(!fair.knows("a", t(1)), "a new wait is a new share");
    assert_eq!(fair.fair_by("a", t(1), t(500)), None);
}

#[test]
fn what_a_note_waited_before_it_joined_is_part_of_its_share() {
    let mut fair = FairShares::default();
    fair.share_out(t(60));
    // Came at 0, behind a 60 s call: its share is that call and its own 10 s.
    fair.joined("late", t(0), secs(10));
    assert_eq!(fair.fair_by("late", t(0), t(60)), Some(t(105)));
}

#[test]
fn an_outage_or_a_disk_wait_shares_nothing_out() {
    let mut fair = FairShares::default();
    fair.provider_ready_since(Some(t(0)));
    fair.share_out(t(0));
    fair.joined("a", t(0), secs(10));
    fair.pause(t(500));
    fair.share_out(t(505));
    // The 500 s paused count as waited, not as shared: 510 s, bound at 765 s.
    assert_eq!(fair.fair_by("a", t(0), t(505)), Some(t(765)));
    // The provider back after an outage: every note begins waiting anew.
    fair.provider_ready_since(Some(t(600)));
    assert!(!fair.knows("a", t(0)));
}

#[test]
fn the_bound_is_one_and_a_half_times_the_share() {
    assert_eq!(fair_by(t(100), secs(40)), t(160));
    assert_eq!(fair_by(t(0), secs(5)), t(7) + ms(500));
}

#[test]
fn a_note_starts_waiting_when_it_is_due_or_when_the_provider_is_ready() {
    assert_eq!(waiting_since(t(10), None), t(10));
    assert_eq!(waiting_since(t(10), Some(t(300))), t(300));
    assert_eq!(waiting_since(t(400), Some(t(300))), t(400));
}

fn note(id: &str, due: i64, call: Option<i64>, lane: Lane) -> DueNote {
    DueNote {
        note_id: id.into(),
        due_at: t(due),
        cost: call.map(|c| c as usize),
        lane,
        call: call.map(secs),
        fair_by: None,
    }
}

#[test]
fn the_note_with_the_earliest_bound_goes_once_the_usual_choice_would_make_one_late() {
    let usual = note("fresh", 100, Some(12), Lane::FreshNotes);
    let mut old = note("old", 0, Some(12), Lane::Backlog);
    let mut older = note("older", 0, Some(12), Lane::Backlog);
    old.fair_by = Some(t(150));
    older.fair_by = Some(t(140));
    let unbounded = note("unread", 0, None, Lane::Backlog);
    let line = vec![&usual, &old, &older, &unbounded];
    // At 110: the fresh note, then "older" at 134, "old" at 146: all in time.
    assert_eq!(instead_of(&usual, &line, t(110)), None);
    // At 115 "old" would end at 151: the calls add up, and the earliest bound
    // goes first, though it alone would still be in time.
    assert_eq!(
        instead_of(&usual, &line, t(115)).map(|n| n.note_id.as_str()),
        Some("older")
    );
    // Already late: still the earliest bound first.
    assert_eq!(
        instead_of(&usual, &line, t(200)).map(|n| n.note_id.as_str()),
        Some("older")
    );
}

/// A line of notes on a model that takes each call's exact time, chosen by the
/// worker's own rule ([`next_in_line`], the shares from [`FairShares`]): each
/// note's `(arrives, call seconds, lane)`. Returns each note's wait (arrival to
/// done) and that over its fair share, worked out apart ([`processor_sharing`]
/// from when each joined the line). Virtual time: plain numbers.
fn run(notes: &[(i64, i64, Lane)]) -> Vec<(f64, f64)> {
    let mut fair = FairShares::default();
    let mut pending: Vec<usize> = Vec::new();
    let mut joined = vec![f64::NAN; notes.len()];
    let mut done = vec![f64::NAN; notes.len()];
    let mut next_arrival = 0;
    let mut now = 0i64;
    while next_arrival < notes.len() || !pending.is_empty() {
        while next_arrival < notes.len() && notes[next_arrival].0 <= now {
            pending.push(next_arrival);
            next_arrival += 1;
        }
        if pending.is_empty() {
            now = notes[next_arrival].0;
            continue;
        }
        fair.share_out(t(now));
        for &i in &pending {
            if !fair.knows(&i.to_string(), t(notes[i].0)) {
                fair.joined(&i.to_string(), t(notes[i].0), secs(notes[i].1));
                joined[i] = now as f64;
            }
        }
        let line: Vec<DueNote> = pending
            .iter()
            .map(|&i| DueNote {
                fair_by: fair.fair_by(&i.to_string(), t(notes[i].0), t(now)),
                ..note(&i.to_string(), notes[i].0, Some(notes[i].1), notes[i].2)
            })
            .collect();
        let refs: Vec<&DueNote> = line.iter().collect();
        let chosen = next_in_line(&refs, t(now), None).expect("a note in line");
        let i: usize = chosen.note_id.parse().expect("an index");
        now += notes[i].1;
        done[i] = now as f64;
        pending.retain(|&p| p != i);
    }
    let shares = processor_sharing(
        &notes
            .iter()
            .enumerate()
            .map(|(i, n)| (joined[i], n.1 as f64))
            .collect::<Vec<_>>(),
    );
    (0..notes.len())
        .map(|i| {
            let wait = done[i] - notes[i].0 as f64;
            (wait, wait / (shares[i] - notes[i].0 as f64))
        })
        .collect()
}

#[test]
fn fresh_notes_go_first_and_the_backlog_is_never_starved() {
    // Ten notes from before the model was there, two long ones, then a short note
    // every 27 s for an hour, each taking 12 s of the model.
    let mut notes: Vec<(i64, i64, Lane)> = (0..10).map(|_| (0, 12, Lane::Backlog)).collect();
    notes.push((10, 70, Lane::FreshNotes));
    notes.push((30, 70, Lane::FreshNotes));
    for i in 0..133 {
        notes.push((60 + 27 * i, 12, Lane::FreshNotes));
    }
    let waits = run(&notes);
    for (i, (wait, ratio)) in waits.iter().enumerate() {
        assert!(
            *ratio <= FAIR_SHARE_BOUND + 1e-6,
            "note {i} waited {wait} s, {ratio:.2}× its share"
        );
    }
    // The short fresh notes: mostly their own call, none two minutes (the
    // backlog's bound takes its turns when the long ones have used the gaps).
    let mut fresh: Vec<f64> = waits[12..].iter().map(|w| w.0).collect();
    fresh.sort_by(f64::total_cmp);
    assert!(fresh[fresh.len() / 2] <= 24.0, "{fresh:?}");
    assert!(fresh[fresh.len() - 1] <= 120.0, "{fresh:?}");
}

#[test]
fn short_notes_first_never_starve_a_medium_one() {
    // A medium note among short ones that come as fast as the model takes them:
    // short first, but the medium one within its bound.
    let mut notes = vec![(0, 30, Lane::FreshNotes)];
    for i in 0..200 {
        notes.push((i * 10, 10, Lane::FreshNotes));
    }
    for (i, (wait, ratio)) in run(&notes).into_iter().enumerate() {
        assert!(
            ratio <= FAIR_SHARE_BOUND + 1e-6,
            "note {i}: waited {wait} s, {ratio:.2}× its share"
        );
    }
}
