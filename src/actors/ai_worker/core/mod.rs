//! Every decision of the AI worker, as a state machine over plain data: the functional
//! core. The actor around it ([`super`]) is the imperative shell.
//!
//! [`WorkerCore`] (`state.rs`) holds the worker's state in named parts, each in a
//! file of its own with what it owns: [`in_flight`] (the call in flight and the body it
//! is about), [`knowledge`] (what is known of the provider and its model: health,
//! warmth, speed, context, its time), [`queues`] (the notes' jobs, the bodies read
//! ahead, what their calls taught), [`waits`] (the outage park, the disk-trouble wait),
//! and the notes' vectors ([`embedding`]) and the person's questions ([`ask`]); the
//! rules applied are [`rules`]. Which work the one call goes to next is [`lanes`]: a
//! plain function over the lanes of work, in their order.
//!
//! Each thing the actor hears (a message, its timer, a reply from the repository or
//! the provider) is one method here: it takes `now`, updates the state, and returns
//! the [`Effect`]s for the actor to carry out, in order. The replies to those effects
//! come back as the next events. Nothing here does I/O or knows actix, awc or
//! rusqlite, so every rule of the policy (docs/DESIGN.md, "The worker policy") is
//! unit-tested without a runtime, beside the rule it tests.
//!
//! The rules, in short:
//! - one provider call at a time; when a job is due it runs, otherwise one timer is set
//!   for the earliest `next_run_at`, and nothing else wakes the worker (no polling);
//! - a note captured while the provider is ready goes before the backlog (the
//!   cheapest of them first), the backlog fills the gaps oldest first, and no note is
//!   done past 1.5 times its fair share of the model's time: the note that would be
//!   goes first, whatever it costs;
//! - unreachable parks the whole worker (the provider is down for everyone),
//!   `30 s → … → 900 s`, never counts an attempt, never fails a note; the first such
//!   failure after an answer looks at once, and a server already back is called again
//!   at once;
//! - a call that ran out of time is the provider's only when the health check agrees:
//!   with Ollama up and the model there, the note is slow, not the provider down. The
//!   worker goes on with the next note, and the slow one is tried again later with a
//!   longer deadline (doubling, up to `ollama.max_request_timeout_ms`), never failed;
//! - a missing model is the provider's state: the worker parks and makes no call while
//!   the health check says the model is missing, and resumes when it is there;
//! - schema/other delays only its own job and counts an attempt; the last one marks
//!   the note failed. A retry after a refused answer is a different request: it shows
//!   the model its answer and what was wrong, samples anew, and after an answer cut off
//!   at the token limit gives it more room;
//! - a cold model is loaded first, on its own deadline (at start-up, after an outage,
//!   after `ollama.keep_alive` without a call), so a load is never charged to a note;
//! - a ready provider (health monitor, recheck, retry-all) resumes at once: jobs parked
//!   on the outage become due, jobs waiting out their own delay keep their time;
//! - an answer is saved beside the next call (the commit and the model use different
//!   resources); an answer lost to disk trouble makes the whole worker wait, saving
//!   each answer before the next call until a save succeeds, and any other refusal is
//!   that note's own `other` failure;
//! - with no note's title due, the notes' vectors are made in batches, newest first,
//!   in the same one-call-at-a-time line; their failures are never a note's;
//! - a person's question goes first: it runs as soon as the call in flight ends,
//!   before any background call, and the background resumes after it.
//! - a note's prompt carries its nearest neighbours' tags: a note with no vector yet is
//!   embedded first (one small call), when vectors can be made now, and enriched
//!   right after; otherwise nothing waits.
//!
//! One file per rule, each with its unit tests: [`lanes`] (which work goes next: a
//! question, the notes, their vectors), [`schedule`] (one call at a time, the timer,
//! the read-ahead), [`policy`] (the outage park, the note's own failures), [`order`]
//! (fresh notes before the backlog, the cheapest first, a long note's reading capped),
//! [`fair`] (a note's fair share of the model's time, and the bound on its wait that
//! the order keeps), [`look`] (a refused call's look at once), [`plan`] (a call's
//! deadline and prompt, built once), [`context`] (the model's context, a prompt that
//! did not fit), [`slow`], [`model`] (warmth, loading, the
//! model's time), [`saving`], [`disk`], [`restart`], [`embedding`] (the notes'
//! vectors, when no title is due), [`neighbours`] (a note's own vector before its
//! title, for its neighbours' tags), [`query`] (a search's query embedded at once),
//! [`ask`] (a person's question first); [`effects`] is what the core asks
//! of the actor, [`status`] what it shows.

mod ask;
mod context;
mod disk;
mod effects;
mod embedding;
mod fair;
mod in_flight;
mod knowledge;
mod lanes;
mod look;
mod model;
mod neighbours;
mod order;
mod plan;
mod policy;
mod query;
mod queues;
mod restart;
mod rules;
mod saving;
mod schedule;
mod slow;
mod state;
mod status;
mod waits;

// Test code lives under tests/ (the checks read it as such).
#[cfg(test)]
#[path = "tests/fixture.rs"]
mod test_fixture;

pub use self::ask::{AskJob, AskOutcome, Cut};
pub use self::effects::{Effect, Failure, MarkOutcome, PendingSave, SaveOutcome};
pub use self::embedding::{EmbeddingRules, EMBED_BATCH};
pub use self::fair::processor_sharing;
pub use self::neighbours::NeighboursRead;
pub use self::policy::{decide, FailureDecision};
pub use self::query::{query_failed, QueryCall, QUERY_DEADLINE};
pub use self::rules::WorkerRules;
pub use self::state::WorkerCore;
pub(crate) use crate::api::worker::{SlowNote, WorkerState, WorkerStatus};
