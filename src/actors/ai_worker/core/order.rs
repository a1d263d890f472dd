//! Which due note goes first: a note written while the model is ready before the
//! backlog, the cheapest fresh note first, the backlog oldest first, and none past its
//! bound; and how much of a long note is read, so one call never holds the model for
//! long.
//!
//! The person is looking at the note they just wrote. So a note captured while the
//! provider was ready and never tried yet (a fresh note, [`Lane::FreshNotes`]) goes
//! before the backlog (notes that waited for the model to be pulled or for an outage
//! to end, retries, slow notes), which fills the gaps between them, oldest first.
//! Among fresh notes the one expected to cost least (its prompt's estimated tokens, as
//! far as it will be read) goes first, the earliest due among equals: a pasted
//! 40,000-character article on a CPU (minutes of reading) would otherwise make every
//! note after it wait those minutes.
//!
//! Neither order may starve anyone: the usual choice gives way to the note that would
//! otherwise be done past its fair share's bound ([`super::fair`]), whichever lane it
//! is in and whatever it costs. A note with no fair share yet (its body not read) is
//! the earliest due one's backstop's: it goes first once it has waited
//! [`LONGEST_WAIT_BEHIND_SHORTER`]. Nothing is wasted by the order: every call still
//! runs once, to its end.
//!
//! And a long note's reading is capped (`worker.longest_read_ms`): at the model's
//! measured speed, it is cut to what is read in that time, keeping its beginning.

use chrono::{DateTime, TimeDelta, Utc};

use super::fair::instead_of;
use super::lanes::{next_note, DueNote, Lane, Next};
use super::state::WorkerCore;
use crate::ai::enrichment::{estimate_tokens, TEMPLATE_TOKENS};

/// The longest the earliest due note waits for others to go first: the backstop under
/// [`super::fair`], for a note with no fair share yet (its body not read).
pub const LONGEST_WAIT_BEHIND_SHORTER: TimeDelta = TimeDelta::minutes(20);

/// The due note to run next among `due` (earliest first, the next
/// [`PREFETCH`](super::schedule::PREFETCH) at most): the usual choice
/// ([`usual_turn`]: fresh notes first, the cheapest first), unless it would make
/// another note late for its fair share ([`instead_of`]).
pub(super) fn next_in_line<'a>(
    due: &[&'a DueNote],
    now: DateTime<Utc>,
    ready_since: Option<DateTime<Utc>>,
) -> Option<&'a DueNote> {
    let usual = usual_turn(due, now, ready_since)?;
    Some(instead_of(usual, due, now).unwrap_or(usual))
}

/// Fresh notes first, the cheapest of them ([`cheapest_due`]); with none, the backlog
/// oldest first; the earliest due note whatever it is, once it has waited
/// [`LONGEST_WAIT_BEHIND_SHORTER`] while the provider could work (since
/// `ready_since`: an outage is no wait behind others).
fn usual_turn<'a>(
    due: &[&'a DueNote],
    now: DateTime<Utc>,
    ready_since: Option<DateTime<Utc>>,
) -> Option<&'a DueNote> {
    let first = due.first()?;
    let waiting_since = ready_since.map_or(first.due_at, |ready| ready.max(first.due_at));
    if now - waiting_since >= LONGEST_WAIT_BEHIND_SHORTER {
        return Some(first);
    }
    let fresh: Vec<&DueNote> = due
        .iter()
        .copied()
        .filter(|note| note.lane == Lane::FreshNotes)
        .collect();
    if fresh.is_empty() {
        // The backlog fills the gaps oldest first: its notes have waited already, and
        // a cheaper one among them is not the note someone is looking at. A short one
        // behind a long one is not starved for it: its bound puts it first.
        Some(first)
    } else {
        cheapest_due(&fresh)
    }
}

/// The cheapest of `due` (earliest first), the earliest among equals. Costs are known
/// from the bodies read ahead; a note whose body is not read yet is chosen when it is
/// the earliest, or due after every note read (captured since the read-ahead, asked
/// for again), so that its body and the next ones' are read in one query and the
/// choice is made again among them (`bodies_read`): a note is never passed over for
/// want of a body, and the note just written is the one not read yet. (Notes past the
/// read-ahead's reach are read when it reaches them.)
fn cheapest_due<'a>(due: &[&'a DueNote]) -> Option<&'a DueNote> {
    let latest_read = due
        .iter()
        .filter(|note| note.cost.is_some())
        .map(|note| note.due_at)
        .max();
    let unread = due.iter().enumerate().find(|(i, note)| {
        note.cost.is_none() && (*i == 0 || latest_read.is_some_and(|latest| note.due_at > latest))
    });
    if let Some((_, note)) = unread {
        return Some(note);
    }
    due.iter()
        .copied()
        .filter(|note| note.cost.is_some())
        .min_by_key(|note| (note.cost, note.due_at))
}

impl WorkerCore {
    /// The due note to run next, if one is due: the note lanes' turn
    /// ([`next_note`], in the notes' order: [`next_in_line`]), each note first seen in
    /// line given its fair share.
    pub(super) fn next_due(&mut self, now: DateTime<Utc>) -> Option<String> {
        self.see_fair_shares(now);
        match next_note(&self.waiting(false, false, now), now)? {
            Next::Note { note_id, .. } => Some(note_id),
            Next::Question | Next::Vectors => None,
        }
    }

    /// A call's expected cost: the note's estimated tokens as far as it will be read.
    /// (Its time, for the fair share, is [`super::fair::call_time`] of it.)
    pub(super) fn expected_cost(&self, note_id: &str, body: &str) -> usize {
        estimate_tokens(body).min(self.room_for(note_id, 0) as usize)
    }

    /// The reading cap in tokens, as context for the prompt: what the model reads in
    /// `worker.longest_read_ms` at its measured speed, plus the answer's room; `None`
    /// before the speed is known, or with no cap.
    pub(super) fn read_cap(&self, output_tokens: u32) -> Option<u32> {
        let longest = self.rules.longest_read?;
        let speed = self.model.speed?;
        let tokens = speed.prompt_tokens_per_second * longest.as_secs_f64();
        let tokens = u32::try_from(tokens as u64).unwrap_or(u32::MAX);
        Some(
            tokens
                .saturating_add(output_tokens)
                .saturating_add(TEMPLATE_TOKENS as u32),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;
    use crate::ai::{CallReply, Usage};

    /// A core that has measured a slow CPU: 25 prompt tokens a second, 10 written.
    fn slow_cpu() -> WorkerCore {
        let mut core = started();
        let effects = core.enqueued(vec!["warm".into()], t(0), t(0));
        plan_of(&mut core, effects, t(0));
        let usage = Usage {
            prompt_tokens: 250,
            prompt_ns: 10_000_000_000,
            output_tokens: 100,
            output_ns: 10_000_000_000,
        };
        let reply = CallReply {
            result: Ok(enrichment()),
            usage: Some(usage),
        };
        core.replied("warm".into(), reply, 20_000, t(20));
        core.saved(the_save_of("warm"), saved("warm"), t(20));
        core
    }

    fn the_save_of(id: &str) -> PendingSave {
        PendingSave {
            note_id: id.into(),
            body: format!("body of {id}"),
            attempts: 0,
            latency_ms: 5,
            model_ms: 5,
            beside_next_call: true,
        }
    }

    /// Queues these notes due at `at`, their bodies read ahead.
    fn queue(core: &mut WorkerCore, notes: &[(&str, String)], at: DateTime<Utc>) {
        for (id, body) in notes {
            core.queues
                .jobs
                .upsert(id.to_string(), QueuedJob::fresh(at));
            core.queues.bodies.insert(id.to_string(), body.clone());
        }
    }

    #[test]
    fn a_short_note_goes_before_a_long_one_due_earlier_and_the_long_one_is_never_starved() {
        let mut core = slow_cpu();
        let article = "word ".repeat(8_000);
        queue(&mut core, &[("article", article)], t(100));
        queue(&mut core, &[("short", "buy milk".into())], t(101));
        queue(&mut core, &[("later", "call mum".into())], t(102));
        assert_eq!(core.next_due(t(102)).as_deref(), Some("short"));
        core.queues.jobs.remove("short");
        assert_eq!(
            core.next_due(t(102)).as_deref(),
            Some("later"),
            "equals go in the order they became due"
        );
        core.queues.jobs.remove("later");
        assert_eq!(core.next_due(t(102)).as_deref(), Some("article"));
        // Short notes keep coming: the article goes once the next short one would
        // make it late for its fair share. Shared evenly with the three short notes
        // (9 s of the model each) its own 71 s would be complete at 199 s, 99 s after
        // it came: it is to be done by 100 + 1.5 × 99 = 249 s.
        queue(&mut core, &[("another", "stamps".into())], t(150));
        assert_eq!(core.next_due(t(150)).as_deref(), Some("another"));
        assert_eq!(
            core.next_due(t(200)).as_deref(),
            Some("article"),
            "200 + 9 + 71 > 249: its turn whatever it costs"
        );
        assert_eq!(core.next_due(t(99)), None, "nothing due yet");
    }

    #[test]
    fn before_the_model_s_speed_is_measured_a_slow_cpu_s_is_assumed_for_the_bound() {
        // No answer yet: the article's share is worked out at 25 and 10 tokens a
        // second, its whole context read (no reading cap before the speed is known):
        // 336 s of its own, 9 s of each short note's (the one at 270 takes its part
        // from then on), 1 s waited: to be done by 100 + 1.5 × 355 = 632 s.
        let mut core = started();
        queue(&mut core, &[("article", "word ".repeat(8_000))], t(100));
        queue(&mut core, &[("short", "buy milk".into())], t(101));
        assert_eq!(core.next_due(t(101)).as_deref(), Some("short"));
        core.queues.jobs.remove("short");
        queue(&mut core, &[("another", "stamps".into())], t(270));
        assert_eq!(core.next_due(t(270)).as_deref(), Some("another"));
        assert_eq!(core.next_due(t(280)).as_deref(), Some("another"));
        assert_eq!(
            core.next_due(t(290)).as_deref(),
            Some("article"),
            "290 + 9 + 336 > 632"
        );
    }

    #[test]
    fn a_fresh_note_goes_first_behind_a_backlog_longer_than_the_read_ahead() {
        let mut core = slow_cpu();
        // Forty notes captured while the provider was away, back at 500.
        core.health_changed(down(), t(50));
        for i in 0..40 {
            queue(
                &mut core,
                &[(&format!("old {i:02}"), "an old note".into())],
                t(100 + i),
            );
        }
        core.health_changed(up(), t(500));
        assert_eq!(
            core.next_due(t(500)).as_deref(),
            Some("old 00"),
            "oldest first"
        );
        // Captured now, the 41st in line: fresh, it goes first.
        queue(
            &mut core,
            &[("fresh", "a longer note just written".into())],
            t(510),
        );
        assert_eq!(core.next_due(t(510)).as_deref(), Some("fresh"));
        // Just captured, its body not read yet: it goes to be read.
        core.queues.jobs.remove("fresh");
        core.queues
            .jobs
            .upsert("fresher".into(), QueuedJob::fresh(t(520)));
        assert_eq!(core.next_due(t(520)).as_deref(), Some("fresher"));
    }

    #[test]
    fn a_short_note_captured_after_the_read_ahead_still_goes_before_a_long_one() {
        let mut core = slow_cpu();
        queue(&mut core, &[("article", "word ".repeat(8_000))], t(100));
        // Captured since the bodies were read: its body is not known yet.
        core.queues
            .jobs
            .upsert("short".into(), QueuedJob::fresh(t(101)));
        assert_eq!(
            core.next_due(t(102)).as_deref(),
            Some("short"),
            "the note not read yet goes to be read, with the next ones"
        );
        // The read brings the short note's body: the choice is made again.
        core.flight.note = Some("article".into());
        let effects = core.bodies_read(
            "article".into(),
            Ok(vec![("short".into(), "buy milk".into())]),
            t(102),
        );
        assert!(
            matches!(&effects[..], [Effect::PrepareCall { note_id, .. }] if note_id == "short"),
            "{effects:?}"
        );
        assert_eq!(core.flight.note.as_deref(), Some("short"));
    }

    #[test]
    fn an_outage_is_no_wait_behind_shorter_notes() {
        let mut core = slow_cpu();
        queue(&mut core, &[("article", "word ".repeat(8_000))], t(100));
        queue(&mut core, &[("short", "buy milk".into())], t(101));
        // Down for half an hour, then back: both long due, the short one still first.
        core.health_changed(down(), t(110));
        core.health_changed(up(), t(110 + 1_800));
        assert_eq!(core.next_due(t(110 + 1_801)).as_deref(), Some("short"));
        core.queues.jobs.remove("short");
        // A note captured since goes first: the article's fair share counts from when
        // the provider came back (by then, counted from 100, it would be long late).
        queue(&mut core, &[("another", "stamps".into())], t(1_920));
        assert_eq!(core.next_due(t(1_920)).as_deref(), Some("another"));
        core.queues.jobs.remove("another");
        assert_eq!(core.next_due(t(1_930)).as_deref(), Some("article"));
    }

    #[test]
    fn a_long_notes_reading_is_capped_at_the_measured_speed() {
        let mut core = slow_cpu();
        queue(&mut core, &[("article", "word ".repeat(8_000))], t(30));
        let effects = core.woke(t(30));
        let (_, plan) = plan_of(&mut core, effects, t(30));
        // 60 s at 25 tokens a second: 1,500 tokens of prompt, not the 8,192 context.
        assert!(
            (1_400..=1_500).contains(&plan.prompt.estimated_tokens),
            "{}",
            plan.prompt.estimated_tokens
        );
        assert!(plan.prompt.read_chars.is_some());
        assert_eq!(plan.context_tokens, 8192, "the call's context is unchanged");
    }
}
