//! A note's fair share of the model's time, and the bound it puts on every note's
//! wait: the rule that keeps "fresh notes first" and "short notes first" from starving
//! anyone ([`super::order`] makes the usual choice, this file the exception to it).
//!
//! **The fair share.** A local model answers one note at a time. Were its time split
//! evenly among the notes waiting (processor sharing: each of `n` notes gets `1/n` of
//! every second, a newcomer taking its part from then on), each note would be done at
//! some time; the time from when it began waiting to then is its fair share. A call is
//! never cut to share (an abandoned call is the model's time thrown away), so a note
//! joins the sharing when it is first seen in line with its body read (the call in
//! flight when it came has ended), and what it waited until then is part of its
//! share. [`FairShares`] shares the model's time out as it passes, note by note,
//! apart from what the worker really does: a note done early goes on taking its part
//! until its share would have been complete, as it would have under an even split.
//!
//! **The bound.** A note is to be done within [`FAIR_SHARE_BOUND`] times its fair share
//! of when it began waiting (`fair_by`; while its share is not complete yet, as it
//! would be were no other note to come). The usual choice goes first unless that
//! would make a note late even were the bounded notes then taken earliest `fair_by`
//! first ([`instead_of`]): then the earliest `fair_by` goes now (or an older note's
//! within a call of it), whatever it costs and whichever lane it is in. A call once
//! begun cannot be taken back, hence the look ahead. 1.5 leaves room under twice the fair share (the limit, #38) for the
//! estimates' error: a call's time is estimated from the note's length and the model's
//! measured speed, and the answer's length is a guess ([`TYPICAL_ANSWER_TOKENS`]). The
//! length's estimate runs high on purpose (3 bytes a token, for the context's sake), so
//! a Korean note, 3 bytes a character, may look longer than it is and be put after
//! notes that take longer (docs/PERFORMANCE.md, "Fresh notes first").
//!
//! A note starts waiting when it is due, or when the provider was last seen ready if
//! that is later: an outage, or a model not pulled yet, is no one's turn. A disk-trouble
//! wait shares nothing out either.
//!
//! Before the model's speed is measured (the first call after start-up or an outage) a
//! slow CPU's is assumed ([`ASSUMED_SPEED`]), so the notes waiting for the model join
//! the sharing as soon as it is ready: joining only once the first answer had said the
//! speed, each counted the model's load and that first call whole in its share, and
//! the backlog's bound came a call too late. A note whose body is not read yet has no
//! cost, hence no share, and the usual choice's own backstop holds for it
//! ([`super::order::LONGEST_WAIT_BEHIND_SHORTER`]).

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};

use super::lanes::DueNote;
use super::state::WorkerCore;
use crate::ai::enrichment::TEMPLATE_TOKENS;
use crate::ai::speed::ModelSpeed;

/// How many times its fair share a note may wait, at most, before it goes first.
pub const FAIR_SHARE_BOUND: f64 = 1.5;

/// The answer's length a call is expected to write, in tokens: a title, a few tags
/// and a sentence of summary. Only a guess, the same for every note, so it moves
/// every call's time alike and never the order among them.
pub const TYPICAL_ANSWER_TOKENS: u32 = 60;

/// The speed assumed until the model's is measured (after start-up, after an outage):
/// a slow desktop CPU's (docs/PERFORMANCE.md, "A day with a slow model"). Erring slow
/// makes the first shares long, not short: a bound too loose for a few notes, never
/// a note put first for a wrong reason.
pub const ASSUMED_SPEED: ModelSpeed = ModelSpeed {
    prompt_tokens_per_second: 25.0,
    output_tokens_per_second: 10.0,
};

/// A note's call's expected time on the model: its prompt (`prompt_tokens`, as far as
/// it will be read, and the instructions) read and a typical answer written, at the
/// model's measured speed, or [`ASSUMED_SPEED`] until it is measured. (`None` only
/// for a time too long to say.)
pub fn call_time(speed: Option<&ModelSpeed>, prompt_tokens: usize) -> Option<TimeDelta> {
    let expected = speed.unwrap_or(&ASSUMED_SPEED).expected(
        prompt_tokens.saturating_add(TEMPLATE_TOKENS),
        TYPICAL_ANSWER_TOKENS,
    );
    TimeDelta::from_std(expected).ok()
}

/// When a note due at `due_at` began waiting for the model: then, or when the provider
/// was last seen ready (`ready_since`) if that is later.
pub fn waiting_since(due_at: DateTime<Utc>, ready_since: Option<DateTime<Utc>>) -> DateTime<Utc> {
    ready_since.map_or(due_at, |ready| ready.max(due_at))
}

/// The time by which a note that began waiting `since` with this fair `share` is to
/// be done: [`FAIR_SHARE_BOUND`] times its share later.
pub fn fair_by(since: DateTime<Utc>, share: TimeDelta) -> DateTime<Utc> {
    let ms = share.num_milliseconds() as f64 * FAIR_SHARE_BOUND;
    later(since, ms as i64)
}

/// `at` plus `ms` milliseconds, the end of time rather than an overflow (a call's time
/// comes from a measured speed, which a broken server could make absurd).
fn later(at: DateTime<Utc>, ms: i64) -> DateTime<Utc> {
    TimeDelta::try_milliseconds(ms)
        .and_then(|delta| at.checked_add_signed(delta))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The note that goes instead of `usual`, if letting `usual` go first would finish a
/// note of `line` past its `fair_by` even were the bounded notes then taken in the
/// order of their `fair_by` (earliest first, which meets every bound that can be met):
/// then the note with the earliest `fair_by` goes now, or the earliest due of those
/// whose `fair_by` is within that note's call of it. The notes' calls add up: ten
/// notes each a call away from their bound are not ten calls' room. A note whose call
/// or share is not known yet has no bound to keep.
pub fn instead_of<'a>(
    usual: &DueNote,
    line: &[&'a DueNote],
    now: DateTime<Utc>,
) -> Option<&'a DueNote> {
    let mut bounded: Vec<(&'a DueNote, TimeDelta, DateTime<Utc>)> = line
        .iter()
        .copied()
        .filter(|note| note.note_id != usual.note_id)
        .filter_map(|note| Some((note, note.call?, note.fair_by?)))
        .collect();
    bounded.sort_by_key(|(note, _, by)| (*by, note.due_at));
    let mut end = later(now, usual.call.map_or(0, |call| call.num_milliseconds()));
    let late = bounded.iter().any(|(_, call, by)| {
        end = later(end, call.num_milliseconds());
        end > *by
    });
    if !late {
        return None;
    }
    // The earliest bound goes, or an older note whose bound is within a call of it:
    // the bounds are estimates, good to about a call (a note's length says its call's
    // time only roughly), and between two notes that close the older goes first.
    let (_, head_call, head_by) = bounded.first().copied()?;
    bounded
        .iter()
        .filter(|(_, _, by)| *by <= later(head_by, head_call.num_milliseconds()))
        .min_by_key(|(note, _, by)| (note.due_at, *by))
        .map(|(note, _, _)| *note)
}

/// The model's time shared out evenly among the notes waiting, as it passes: each
/// note's fair share (the module's header).
#[derive(Debug, Default)]
pub(super) struct FairShares {
    /// The provider's `ready_since` the shares are for: when it changes (an outage
    /// ended), every note begins waiting anew.
    ready_since: Option<DateTime<Utc>>,
    /// Up to when the model's time has been shared out.
    shared_until: Option<DateTime<Utc>>,
    /// The notes still owed some of the model's time: when each began waiting, and
    /// the seconds it is still owed.
    owed: HashMap<String, (DateTime<Utc>, f64)>,
    /// The notes given their whole share: when each began waiting, and when its share
    /// was complete.
    complete: HashMap<String, (DateTime<Utc>, DateTime<Utc>)>,
}

impl FairShares {
    /// Shares the model's time from the last call of this up to `now` evenly among the
    /// notes owed some (a note whose share is complete stops taking its part).
    pub(super) fn share_out(&mut self, now: DateTime<Utc>) {
        let Some(mut at) = self.shared_until.replace(now) else {
            return;
        };
        let mut left = (now - at).num_milliseconds() as f64 / 1000.0;
        while left > 0.0 && !self.owed.is_empty() {
            let n = self.owed.len() as f64;
            let least = self
                .owed
                .values()
                .map(|(_, owed)| *owed)
                .fold(f64::INFINITY, f64::min);
            // Either every note takes an even part of all that is left, and nothing is
            // (set so, not subtracted: the float remainder of `left - left / n * n`
            // can shrink to a number whose n-th part is 0 and never reach it), or the
            // least owed note's share ends first and the rest goes round again.
            let (given, rest) = if left / n <= least {
                (left / n, 0.0)
            } else {
                (least, left - least * n)
            };
            if given <= 0.0 {
                break;
            }
            left = rest;
            at = later(at, (given * n * 1000.0) as i64);
            for (_, owed) in self.owed.values_mut() {
                *owed -= given;
            }
            let done: Vec<String> = self
                .owed
                .iter()
                .filter(|(_, (_, owed))| *owed <= 1e-9)
                .map(|(id, _)| id.clone())
                .collect();
            for id in done {
                if let Some((since, _)) = self.owed.remove(&id) {
                    self.complete.insert(id, (since, at));
                }
            }
        }
    }

    /// Time passed while the worker could not work (a disk-trouble wait): no one's.
    pub(super) fn pause(&mut self, now: DateTime<Utc>) {
        self.shared_until = Some(now);
    }

    /// The provider was last seen ready since `ready_since`: when that changed (an
    /// outage ended), every share starts anew.
    pub(super) fn provider_ready_since(&mut self, ready_since: Option<DateTime<Utc>>) {
        if self.ready_since != ready_since {
            *self = FairShares {
                ready_since,
                ..FairShares::default()
            };
        }
    }

    /// Whether a note that began waiting `since` has its share (owed or complete).
    pub(super) fn knows(&self, note_id: &str, since: DateTime<Utc>) -> bool {
        self.owed.get(note_id).is_some_and(|(s, _)| *s == since)
            || self.complete.get(note_id).is_some_and(|(s, _)| *s == since)
    }

    /// A note that began waiting `since` joins the sharing `now`, owed its `call`.
    pub(super) fn joined(&mut self, note_id: &str, since: DateTime<Utc>, call: TimeDelta) {
        self.complete.remove(note_id);
        let seconds = call.num_milliseconds().max(1) as f64 / 1000.0;
        self.owed.insert(note_id.to_string(), (since, seconds));
    }

    /// When a note that began waiting `since` is to be done: its fair share's bound,
    /// its share as complete as it is by `now` (were no other note to come, an owed
    /// note's share would be complete once every note owed had had as much as it).
    pub(super) fn fair_by(
        &self,
        note_id: &str,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        if let Some((s, at)) = self.complete.get(note_id) {
            return (*s == since).then(|| fair_by(since, *at - since));
        }
        let (s, own) = self.owed.get(note_id)?;
        if *s != since {
            return None;
        }
        let rest: f64 = self.owed.values().map(|(_, owed)| owed.min(*own)).sum();
        let complete_at = later(now, (rest * 1000.0) as i64);
        Some(fair_by(since, complete_at - since))
    }

    /// Forgets the shares of notes no longer queued whose share is complete (a note
    /// still owed goes on taking its part until it is not).
    pub(super) fn keep_complete_only(&mut self, queued: impl Fn(&str) -> bool) {
        self.complete.retain(|id, _| queued(id));
    }
}

impl WorkerCore {
    /// Shares out the model's time up to `now` and lets each due note first seen in
    /// line with its call's time known join the sharing ([`FairShares`]). Called where
    /// the next note is chosen, the worker's waits not holding the notes.
    pub(super) fn see_fair_shares(&mut self, now: DateTime<Utc>) {
        let ready_since = self.model.ready_since;
        self.queues.fair.provider_ready_since(ready_since);
        self.queues.fair.share_out(now);
        let line = self.waiting(false, false, now).notes;
        for note in &line {
            let Some(call) = note.call else { continue };
            let since = waiting_since(note.due_at, ready_since);
            if !self.queues.fair.knows(&note.note_id, since) {
                self.queues.fair.joined(&note.note_id, since, call);
            }
        }
        let jobs = &self.queues.jobs;
        self.queues.fair.keep_complete_only(|id| jobs.contains(id));
    }

    /// A due note's fair share's bound, once it has joined the sharing for the time it
    /// began waiting (a note requeued, retried or waiting again after an outage starts
    /// anew).
    pub(super) fn fair_by_of(
        &self,
        note_id: &str,
        due_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let since = waiting_since(due_at, self.model.ready_since);
        self.queues.fair.fair_by(note_id, since, now)
    }
}

/// Processor sharing worked out apart, from each note's `(joins, model seconds)`: when
/// each one's share would be complete were the model's time split evenly among the
/// notes owed some. The measure the bound above keeps to, for the tests and the
/// bench that check it (a call of no length counts as a millisecond).
pub fn processor_sharing(notes: &[(f64, f64)]) -> Vec<f64> {
    let mut complete = vec![f64::NAN; notes.len()];
    let mut order: Vec<usize> = (0..notes.len()).collect();
    order.sort_by(|a, b| notes[*a].0.total_cmp(&notes[*b].0));
    let mut owed: Vec<(usize, f64)> = Vec::new();
    let (mut next, mut now) = (0, 0.0f64);
    while next < order.len() || !owed.is_empty() {
        if owed.is_empty() {
            now = now.max(notes[order[next]].0);
        }
        while next < order.len() && notes[order[next]].0 <= now {
            owed.push((order[next], notes[order[next]].1.max(1e-3)));
            next += 1;
        }
        let n = owed.len() as f64;
        let least = owed.iter().map(|o| o.1).fold(f64::INFINITY, f64::min);
        let until_next = order.get(next).map_or(f64::INFINITY, |&i| notes[i].0 - now);
        let step = (least * n).min(until_next);
        now += step;
        for o in &mut owed {
            o.1 -= step / n;
        }
        for o in owed.iter().filter(|o| o.1 <= 1e-9) {
            complete[o.0] = now;
        }
        owed.retain(|o| o.1 > 1e-9);
    }
    complete
}

#[cfg(test)]
mod tests;
