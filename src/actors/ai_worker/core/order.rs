//! Which due job goes first: the cheapest, so a long note never holds up a short one;
//! and how much of a long note is read, so one call never holds the model for long.
//!
//! A local model generates one answer at a time. Taken in the order they became due,
//! a pasted 40,000-character article on a CPU (minutes of reading) makes every note
//! captured after it wait those minutes, then queue behind the backlog it made. So
//! among the due jobs whose bodies are read ahead, the one expected to cost least (its
//! prompt's estimated tokens, as far as it will be read) goes first, the earliest due
//! among equals; a job due for [`LONGEST_WAIT_BEHIND_SHORTER`] goes first whatever it
//! costs, so a long note is never starved. Nothing is wasted by the order: every call
//! still runs once, to its end.
//!
//! And a long note's reading is capped (`worker.longest_read_ms`): at the model's
//! measured speed, it is cut to what is read in that time, keeping its beginning.

use chrono::{DateTime, TimeDelta, Utc};

use super::lanes::{next_note, DueNote, Next};
use super::state::WorkerCore;
use crate::ai::enrichment::{estimate_tokens, TEMPLATE_TOKENS};

/// The longest a due job waits for cheaper ones to go first.
pub const LONGEST_WAIT_BEHIND_SHORTER: TimeDelta = TimeDelta::minutes(20);

/// The due note to run next among `due` (earliest first, the next
/// [`PREFETCH`](super::schedule::PREFETCH) at most): the cheapest, unless the earliest
/// has waited [`LONGEST_WAIT_BEHIND_SHORTER`] while the provider could work (since
/// `ready_since`). Costs are known from the
/// bodies read ahead; when the earliest note's body is not read yet (captured since,
/// asked for again, retried), it is chosen, so that its body and the next ones' are
/// read in one query and the choice is made again among them (`bodies_read`): a note
/// is never put last for want of a body. The earliest goes first among equals.
pub(super) fn cheapest_due<'a>(
    due: &[&'a DueNote],
    now: DateTime<Utc>,
    ready_since: Option<DateTime<Utc>>,
) -> Option<&'a DueNote> {
    let (first, rest) = due.split_first()?;
    // An outage is no wait behind shorter notes: after one, every job would look
    // long due, and the order would fall back to first come.
    let waiting_since = ready_since.map_or(first.due_at, |ready| ready.max(first.due_at));
    if now - waiting_since >= LONGEST_WAIT_BEHIND_SHORTER {
        return Some(first);
    }
    let Some(mut cheapest) = first.cost else {
        return Some(first);
    };
    let mut chosen = *first;
    for note in rest {
        if let Some(this) = note.cost {
            if this < cheapest {
                (cheapest, chosen) = (this, note);
            }
        }
    }
    Some(chosen)
}

impl WorkerCore {
    /// The due note to run next, if one is due: the note lanes' turn
    /// ([`next_note`], in the notes' order: [`cheapest_due`]).
    pub(super) fn next_due(&self, now: DateTime<Utc>) -> Option<String> {
        match next_note(&self.waiting(false, false, now), now)? {
            Next::Note { note_id, .. } => Some(note_id),
            Next::Question | Next::Vectors => None,
        }
    }

    /// A call's expected cost: the note's estimated tokens as far as it will be read.
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
        // Short notes keep coming: after 20 minutes the article goes anyway.
        queue(&mut core, &[("another", "stamps".into())], t(1_000));
        assert_eq!(core.next_due(t(1_000)).as_deref(), Some("another"));
        assert_eq!(
            core.next_due(t(100 + 20 * 60)).as_deref(),
            Some("article"),
            "due for 20 minutes: its turn whatever it costs"
        );
        assert_eq!(core.next_due(t(99)), None, "nothing due yet");
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
            Some("article"),
            "the earliest goes to be read, with the next ones"
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
        assert_eq!(
            core.next_due(t(110 + 1_800 + 20 * 60)).as_deref(),
            Some("article"),
            "20 minutes after the provider came back"
        );
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
