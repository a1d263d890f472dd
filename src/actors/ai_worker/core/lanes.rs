//! Which work the one call goes to next: the lanes of work, taking turns in a fixed
//! order ([`TURNS`]), chosen by [`next`], a plain function over what each lane has
//! waiting ([`Waiting`]). A new kind of work is one new [`Lane`], its arm in
//! [`lane_turn`] (or, for notes, in [`Lane::of`]) and its place in [`TURNS`].
//!
//! Today's order (docs/DESIGN.md, "The worker policy"):
//! 1. a person's question, as soon as the call in flight ends, before any background
//!    call and whatever holds the background back (a question refused while the
//!    provider is not ready is still its turn: the refusal);
//! 2. the notes' titles: fresh notes and the backlog share one turn, as one line in
//!    the notes' order ([`super::order`]: fresh notes before the backlog, the cheapest
//!    first within each, and a note of either lane first whatever it costs when the
//!    usual choice would make it late for its fair share, [`super::fair`]);
//! 3. the notes' vectors, when no note is due.
//!
//! The worker's waits (the outage park, the disk-trouble wait, a model not there yet)
//! hold every lane but the question's. A search's query vector takes no turn: it is
//! made beside the one call, on a deadline of its own ([`super::query`]).
//!
//! Fresh notes and the backlog stay one tier, not two: a tier of its own would put
//! the backlog behind every fresh note without a bound, and the bound is what keeps it
//! from being starved. Their order within the tier is [`super::order`]'s.

use chrono::{DateTime, TimeDelta, Utc};

use super::super::queue::QueuedJob;
use super::fair::call_time;
use super::order::next_in_line;
use super::schedule::PREFETCH;
use super::state::WorkerCore;

/// How many of the latest due notes the choice sees beyond the earliest
/// [`PREFETCH`]: the notes just captured, behind a backlog longer than that.
pub const LATEST_REACH: usize = 8;

/// A kind of work that takes turns at the one call in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// A person's question ([`super::ask`]).
    Question,
    /// A note's title, never tried yet and due while the provider was ready: captured,
    /// edited, its AI asked for again, as the person looks on.
    FreshNotes,
    /// A note's title tried before (a retry after its own failure, a slow note, a note
    /// parked by an outage), or due before the provider was last seen ready (captured
    /// while the model was missing or the provider down, or before a restart).
    Backlog,
    /// The notes' vectors ([`super::embedding`]).
    Vectors,
}

/// The lanes in the order they take turns, a tier at a time: the first tier with work
/// takes the turn; the notes of one tier are one line, in the notes' order.
pub const TURNS: &[&[Lane]] = &[
    &[Lane::Question],
    &[Lane::FreshNotes, Lane::Backlog],
    &[Lane::Vectors],
];

impl Lane {
    /// The lane of a note's job, the provider last seen ready since `ready_since`: a
    /// fresh note is one queued while the provider was ready and never charged a try.
    /// A call of it that found the server gone for a moment (a look found it ready
    /// again, so `ready_since` stands) leaves it fresh: it waited for nothing of its own.
    pub fn of(job: &QueuedJob, ready_since: Option<DateTime<Utc>>) -> Lane {
        let untried = job.attempts == 0 && job.slow_timeouts == 0;
        if untried && ready_since.is_some_and(|ready| job.queued_at >= ready) {
            Lane::FreshNotes
        } else {
            Lane::Backlog
        }
    }
}

/// A note due now, as the choice sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueNote {
    pub note_id: String,
    pub due_at: DateTime<Utc>,
    /// Its expected cost (estimated tokens as far as it will be read), once its body
    /// is read ahead; `None`: not read yet.
    pub cost: Option<usize>,
    pub lane: Lane,
    /// Its call's expected time on the model, once its cost and the model's speed are
    /// known ([`super::fair::call_time`]).
    pub call: Option<TimeDelta>,
    /// The time by which it is to be done, its fair share's bound, once worked out
    /// ([`super::fair`]).
    pub fair_by: Option<DateTime<Utc>>,
}

/// What each lane has waiting, as plain data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waiting {
    /// A person's question waits for the call.
    pub question: bool,
    /// The worker's waits hold the background lanes (an outage park, disk trouble, a
    /// model not there yet).
    pub held: bool,
    /// The notes due now, earliest first: the next [`PREFETCH`] of them, and the
    /// [`LATEST_REACH`] latest due after those.
    pub notes: Vec<DueNote>,
    /// When the provider was last seen ready after it was not (an outage is no wait
    /// behind cheaper notes).
    pub ready_since: Option<DateTime<Utc>>,
    /// The vectors' side has notes to read and embed now.
    pub vectors: bool,
    /// The vectors are made in the process (the built-in embedder): the model server's
    /// waits (an outage park, a model not there) do not hold them.
    pub vectors_apart: bool,
}

/// What goes next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Question,
    Note { lane: Lane, note_id: String },
    Vectors,
}

impl Next {
    #[cfg(test)]
    pub fn lane(&self) -> Lane {
        match self {
            Next::Question => Lane::Question,
            Next::Note { lane, .. } => *lane,
            Next::Vectors => Lane::Vectors,
        }
    }
}

/// The work that goes next at `now`, if any: the first tier of [`TURNS`] with work.
pub fn next(waiting: &Waiting, now: DateTime<Utc>) -> Option<Next> {
    TURNS.iter().find_map(|tier| tier_turn(tier, waiting, now))
}

/// The note that goes next among the note lanes alone: a call already begun for a
/// note (its body being read) stays a note's.
pub fn next_note(waiting: &Waiting, now: DateTime<Utc>) -> Option<Next> {
    let notes_only = Waiting {
        question: false,
        held: false,
        vectors: false,
        ..waiting.clone()
    };
    next(&notes_only, now)
}

fn tier_turn(tier: &[Lane], waiting: &Waiting, now: DateTime<Utc>) -> Option<Next> {
    if let Some(next) = tier.iter().find_map(|lane| lane_turn(*lane, waiting)) {
        return Some(next);
    }
    if waiting.held {
        return None;
    }
    let notes: Vec<&DueNote> = waiting
        .notes
        .iter()
        .filter(|note| tier.contains(&note.lane))
        .collect();
    next_in_line(&notes, now, waiting.ready_since).map(|note| Next::Note {
        lane: note.lane,
        note_id: note.note_id.clone(),
    })
}

/// A lane's own turn, if it has work; the note lanes' notes are chosen together, as
/// one line per tier ([`tier_turn`]).
fn lane_turn(lane: Lane, waiting: &Waiting) -> Option<Next> {
    match lane {
        Lane::Question => waiting.question.then_some(Next::Question),
        Lane::FreshNotes | Lane::Backlog => None,
        Lane::Vectors => {
            (waiting.vectors && (!waiting.held || waiting.vectors_apart)).then_some(Next::Vectors)
        }
    }
}

impl WorkerCore {
    /// What each lane has waiting at `now` (the worker's waits given as `held`: then no
    /// note is looked at, none could go).
    pub(super) fn waiting(&self, held: bool, vectors: bool, now: DateTime<Utc>) -> Waiting {
        let due = (!held).then_some(now);
        let mut line: Vec<(DateTime<Utc>, &str)> = self
            .queues
            .jobs
            .in_order()
            .take_while(|(at, _)| due.is_some_and(|now| *at <= now))
            .take(PREFETCH)
            .collect();
        // The notes just captured, however long the line before them: the fresh ones
        // go first, so the choice must see them.
        if line.len() == PREFETCH {
            let last = line[PREFETCH - 1];
            let mut latest: Vec<(DateTime<Utc>, &str)> = self
                .queues
                .jobs
                .latest_due(now)
                .take_while(|entry| *entry > last)
                .take(LATEST_REACH)
                .collect();
            latest.reverse();
            line.extend(latest);
        }
        let notes = line
            .into_iter()
            .map(|(due_at, note_id)| {
                let cost = self
                    .queues
                    .bodies
                    .get(note_id)
                    .map(|body| self.expected_cost(note_id, body));
                DueNote {
                    note_id: note_id.to_string(),
                    due_at,
                    cost,
                    lane: self
                        .queues
                        .jobs
                        .get(note_id)
                        .map_or(Lane::Backlog, |job| Lane::of(job, self.model.ready_since)),
                    call: cost.and_then(|tokens| call_time(self.model.speed.as_ref(), tokens)),
                    fair_by: self.fair_by_of(note_id, due_at, now),
                }
            })
            .collect();
        Waiting {
            question: self.asks.waiting(),
            held,
            notes,
            ready_since: self.model.ready_since,
            vectors,
            vectors_apart: self.embedding.in_process(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::t;
    use super::*;

    fn note(id: &str, due: i64, cost: Option<usize>, lane: Lane) -> DueNote {
        DueNote {
            note_id: id.into(),
            due_at: t(due),
            cost,
            lane,
            call: None,
            fair_by: None,
        }
    }

    fn everything() -> Waiting {
        Waiting {
            question: true,
            held: false,
            notes: vec![
                note("old retry", 0, Some(50), Lane::Backlog),
                note("fresh", 5, Some(10), Lane::FreshNotes),
            ],
            ready_since: None,
            vectors: true,
            vectors_apart: false,
        }
    }

    #[test]
    fn a_question_goes_first_then_the_notes_then_the_vectors() {
        let mut waiting = everything();
        assert_eq!(next(&waiting, t(10)), Some(Next::Question));
        waiting.question = false;
        assert_eq!(
            next(&waiting, t(10)).map(|n| n.lane()),
            Some(Lane::FreshNotes)
        );
        waiting.notes.clear();
        assert_eq!(next(&waiting, t(10)), Some(Next::Vectors));
        waiting.vectors = false;
        assert_eq!(next(&waiting, t(10)), None);
    }

    #[test]
    fn the_worker_s_waits_hold_every_lane_but_the_question() {
        let mut waiting = Waiting {
            held: true,
            ..everything()
        };
        assert_eq!(next(&waiting, t(10)), Some(Next::Question));
        waiting.question = false;
        assert_eq!(next(&waiting, t(10)), None, "no note, no vectors");
        assert_eq!(
            next_note(&waiting, t(10)).map(|n| n.lane()),
            Some(Lane::FreshNotes),
            "a note's call already begun goes on"
        );
    }

    #[test]
    fn vectors_made_in_the_process_go_on_while_the_model_server_holds_the_notes() {
        // No model server at all: the notes wait for it, the built-in embedder does not.
        let waiting = Waiting {
            held: true,
            question: false,
            vectors_apart: true,
            ..everything()
        };
        assert_eq!(next(&waiting, t(10)), Some(Next::Vectors));
        let nothing_to_embed = Waiting {
            vectors: false,
            ..waiting
        };
        assert_eq!(next(&nothing_to_embed, t(10)), None);
    }

    #[test]
    fn fresh_notes_go_before_the_backlog_which_fills_the_gaps_within_its_bound() {
        // The fresh note goes first, though the backlog's note is older...
        let mut waiting = Waiting {
            question: false,
            ..everything()
        };
        let fresh_first = Some(Next::Note {
            lane: Lane::FreshNotes,
            note_id: "fresh".into(),
        });
        assert_eq!(next(&waiting, t(10)), fresh_first);
        // ...and cheaper.
        waiting.notes[0].cost = Some(5);
        assert_eq!(next(&waiting, t(10)), fresh_first);
        // The backlog fills the gaps.
        let backlog = Next::Note {
            lane: Lane::Backlog,
            note_id: "old retry".into(),
        };
        let alone = Waiting {
            notes: vec![waiting.notes[0].clone()],
            ..waiting.clone()
        };
        assert_eq!(next(&alone, t(10)), Some(backlog.clone()));
        // Once the fresh note's call would make the backlog's note late for its fair
        // share, the backlog's goes first.
        for note in &mut waiting.notes {
            note.call = Some(TimeDelta::seconds(12));
        }
        waiting.notes[0].fair_by = Some(t(40));
        assert_eq!(next(&waiting, t(10)), fresh_first, "in time: 10 + 12 + 12");
        assert_eq!(next(&waiting, t(20)), Some(backlog), "20 + 12 + 12 > 40");
    }

    #[test]
    fn a_note_s_lane_is_whether_it_was_tried_before_and_due_while_the_provider_was_ready() {
        let ready = Some(t(0));
        let fresh = QueuedJob::fresh(t(0));
        assert_eq!(Lane::of(&fresh, ready), Lane::FreshNotes);
        for tried in [
            QueuedJob {
                attempts: 1,
                ..fresh
            },
            QueuedJob {
                slow_timeouts: 1,
                ..fresh
            },
            QueuedJob {
                wait_reason: Some(crate::domain::WaitReason::Retry),
                attempts: 1,
                ..fresh
            },
        ] {
            assert_eq!(Lane::of(&tried, ready), Lane::Backlog, "{tried:?}");
        }
        // Its call found the server gone for a moment, and a look found it ready (the
        // provider ready all along): it waited for nothing of its own, still fresh.
        let looked = QueuedJob {
            wait_reason: Some(crate::domain::WaitReason::Provider),
            next_run_at: t(30),
            ..fresh
        };
        assert_eq!(Lane::of(&looked, ready), Lane::FreshNotes);
        // Queued while the provider was down, then due again once it was back: the
        // backlog, as a job loaded from an earlier run.
        let parked = QueuedJob {
            wait_reason: Some(crate::domain::WaitReason::Provider),
            next_run_at: t(30),
            ..QueuedJob::fresh(t(-5))
        };
        assert_eq!(Lane::of(&parked, ready), Lane::Backlog);
        // Captured before the model was pulled (or the provider back): the backlog.
        assert_eq!(Lane::of(&fresh, Some(t(1))), Lane::Backlog);
        assert_eq!(
            Lane::of(&fresh, None),
            Lane::Backlog,
            "never seen ready yet"
        );
    }

    #[test]
    fn every_lane_takes_turns_in_exactly_one_tier() {
        // A lane added without a place in the turns would never run: this match has
        // one arm per lane, so a new one must be placed here and in `TURNS`.
        let place = |lane: Lane| match lane {
            Lane::Question => 0,
            Lane::FreshNotes | Lane::Backlog => 1,
            Lane::Vectors => 2,
        };
        let placed: Vec<(usize, Lane)> = TURNS
            .iter()
            .enumerate()
            .flat_map(|(tier, lanes)| lanes.iter().map(move |lane| (tier, *lane)))
            .collect();
        assert_eq!(placed.len(), 4, "each lane once");
        for (tier, lane) in placed {
            assert_eq!(tier, place(lane), "{lane:?}");
        }
    }
}
