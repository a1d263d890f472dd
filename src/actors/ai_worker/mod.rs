//! `AiWorkerActor`: works through the durable AI queue, one provider call at a time.
//!
//! The actor is the imperative shell around [`core::WorkerCore`], which makes every
//! decision (docs/DESIGN.md, "The worker policy"). The actor turns what it hears (its
//! messages, its one timer, the replies of the repository and the provider) into calls
//! of the core, and carries out the [`Effect`]s the core returns: it reads and writes
//! through the repository, calls the provider, keeps the one `run_later` timer, and
//! announces results through the hub and the usage log. It holds no rule of its own.
//!
//! - [`actor`]: `AiWorkerActor`'s state and how it carries out the effects; its
//!   handlers are here (and `EmbedQuery`'s in [`query`]), each a core call;
//! - [`queue`]: the in-memory queue, plain data;
//! - [`core`]: the decisions, unit-tested without a runtime;
//! - [`backoff`]: the waits' arithmetic;
//! - [`messages`]: what the other actors send it;
//! - [`query`]: `EmbedQuery`, a search's words embedded at once for a person (its
//!   message, its handler and the recent queries' vectors);
//! - [`ask`]: a person's question (`Ask`), its answer streamed down its channel.
//!
//! The provider call runs as a spawned future (`ctx.spawn`, not `ctx.wait`), so the
//! mailbox stays responsive while a cold model loads.

mod actor;
pub mod ask;
pub mod backoff;
pub mod core;
pub mod messages;
pub mod query;
pub mod queue;

use actix::prelude::*;

use self::actor::queued;
pub use self::actor::{AiWorkerActor, WorkerWiring};
pub use self::ask::Ask;
use self::core::{AskJob, AskOutcome};
pub use self::core::{EmbeddingRules, WorkerRules};
pub use self::messages::{EmbedNotes, Enqueue, Forget, GetWorkerStatus, ResumeNow, TrackJob};
pub use self::query::{EmbedQuery, QueryVector};
use super::handling;
use super::repository::GetJob;
use crate::events::ProviderStatusChanged;

impl Handler<Enqueue> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: Enqueue, ctx: &mut Context<Self>) {
        let _handled = handling!("Enqueue");
        let count = msg.note_ids.len();
        let effects = self.core.enqueued(msg.note_ids, msg.at, self.clock.now());
        self.run(effects, ctx);
        tracing::debug!(count, "jobs enqueued");
    }
}

impl Handler<Ask> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: Ask, ctx: &mut Context<Self>) {
        let _handled = handling!("Ask");
        let closed = msg.updates.clone();
        let id = self.asks.open(msg.updates);
        // The person hanging up (the channel's receiver dropped) ends the question,
        // waiting or streaming.
        let watch = ctx.spawn(async move { closed.closed().await }.into_actor(self).map(
            move |(), act, ctx| {
                act.asks.set_watch(id, None);
                let effects = act.core.ask_ended(id, AskOutcome::HungUp, act.clock.now());
                act.run(effects, ctx);
            },
        ));
        self.asks.set_watch(id, Some(watch));
        let job = AskJob {
            id,
            asker: msg.asker,
            question: msg.question,
            notes: msg.notes,
        };
        let effects = self.core.ask_arrived(job, self.clock.now());
        self.run(effects, ctx);
    }
}

impl Handler<EmbedNotes> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: EmbedNotes, ctx: &mut Context<Self>) {
        let _handled = handling!("EmbedNotes");
        let effects = self.core.to_embed(&msg.note_ids, self.clock.now());
        self.run(effects, ctx);
    }
}

impl Handler<TrackJob> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: TrackJob, ctx: &mut Context<Self>) {
        let _handled = handling!("TrackJob");
        let lookup = GetJob {
            note_id: msg.note_id,
        };
        self.ask_repository(lookup, ctx, |core, found, now| match found {
            Ok(Ok(Some(job))) => {
                let (note_id, mut job) = queued(job);
                // Restored, or its AI asked for again: the person looks on, as at a
                // capture (a fresh note when untried and the provider ready).
                job.queued_at = now;
                core.tracked(note_id, job, now)
            }
            _ => Vec::new(),
        });
    }
}

impl Handler<Forget> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: Forget, _: &mut Context<Self>) {
        let _handled = handling!("Forget");
        self.core.forgotten(&msg.note_ids);
    }
}

impl Handler<ResumeNow> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: ResumeNow, ctx: &mut Context<Self>) {
        let _handled = handling!("ResumeNow");
        let effects = self.core.resume_requested(msg.why, self.clock.now());
        self.run(effects, ctx);
    }
}

impl Handler<ProviderStatusChanged> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: ProviderStatusChanged, ctx: &mut Context<Self>) {
        let _handled = handling!("ProviderStatusChanged");
        let effects = self.core.health_changed(msg.health, self.clock.now());
        self.run(effects, ctx);
    }
}

impl Handler<GetWorkerStatus> for AiWorkerActor {
    type Result = MessageResult<GetWorkerStatus>;

    fn handle(&mut self, _: GetWorkerStatus, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetWorkerStatus");
        let status = self.core.status(self.clock.now());
        MessageResult(status)
    }
}
