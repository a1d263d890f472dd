//! `AiWorkerActor` itself: its state (the core, what it talks to, the one timer, the
//! asks in hand, the recent queries' vectors) and how it carries out the core's
//! [`Effect`]s: reading and writing through the repository, calling the provider,
//! keeping the one `run_later` timer, and announcing results through the hub and the
//! usage log. Its message handlers are beside it (`mod.rs`, `query.rs`), and every
//! decision is the core's (`core/`).

use std::rc::Rc;

use actix::prelude::*;
use chrono::{DateTime, Utc};

use super::ask::{pump, AnswerLimits, AskLines};
use super::core::WorkerRules;
use super::core::{
    Effect, Failure, MarkOutcome, NeighboursRead, PendingSave, SaveOutcome, WorkerCore,
};
use super::query::QueryVectors;
use super::queue::QueuedJob;
use crate::actors::hub::Hub;
use crate::actors::mailbox::Mailbox;
use crate::actors::provider_monitor::{CheckNow, ProviderMonitorActor, SuspectDown};
use crate::actors::repository::{
    GetEmbeddingBacklog, GetPendingBodies, GetRelated, IncrementJobAttempt, ListTags, MarkAiFailed,
    RecordSlowTimeout, RepositoryActor, RequeueModelMissingFailures, SaveEnrichment, SaveVectors,
    SetNextRunAt,
};
use crate::actors::telemetry::{Emit, TelemetryActor};
use crate::ai::ask::{AskEnd, AskUpdate};
use crate::ai::{
    CallPlan, Chat, ChatPlan, Embed, EmbedPlan, LoadPlan, ProviderError, ProviderHealth,
};
use crate::clock::SharedClock;
use crate::domain::Enrichment;
use crate::events::{JobFailed, NoteSlow};
use crate::search::floors::{neighbours_floor, related_floor};
use crate::storage::vectors::RELATED_NOTES;
use crate::storage::{Job, Related, StoreError, StoreResult};
use crate::tags::neighbours::{really_near, Neighbour};
use crate::tags::VOCABULARY_IN_PROMPT;
use crate::telemetry::events::{AiDone, AiModelTime, UsageEvent};

/// What the worker talks to.
pub struct WorkerWiring {
    pub repository: Mailbox<RepositoryActor>,
    /// The chat model: the notes' enrichment, the questions' answers.
    pub chat: Rc<dyn Chat>,
    /// The notes' and the searches' vectors: the chat server's, or another embedder.
    pub embedder: Rc<dyn Embed>,
    pub monitor: Mailbox<ProviderMonitorActor>,
    pub telemetry: Mailbox<TelemetryActor>,
    pub hub: Mailbox<Hub>,
    pub clock: SharedClock,
}

pub struct AiWorkerActor {
    /// The queue as loaded at start-up, until the actor has started.
    pub(super) jobs: Option<Vec<Job>>,
    pub(super) core: WorkerCore,
    pub(super) repository: Mailbox<RepositoryActor>,
    pub(super) chat: Rc<dyn Chat>,
    pub(super) embedder: Rc<dyn Embed>,
    pub(super) monitor: Mailbox<ProviderMonitorActor>,
    pub(super) telemetry: Mailbox<TelemetryActor>,
    pub(super) hub: Mailbox<Hub>,
    pub(super) clock: SharedClock,
    /// The one pending wake-up. actix's `cancel_future` cannot say whether a timer was
    /// still pending, so the handle is cleared when it fires.
    pub(super) wake: Option<SpawnHandle>,
    /// The recent searches' vectors (`query.rs`).
    pub(super) query_vectors: QueryVectors,
    /// The person's questions in hand: their channels and streams (`ask.rs`).
    pub(super) asks: AskLines,
}

impl AiWorkerActor {
    pub fn new(with: WorkerWiring, rules: WorkerRules, jobs: Vec<Job>) -> Self {
        AiWorkerActor {
            jobs: Some(jobs),
            core: WorkerCore::new(rules),
            repository: with.repository,
            chat: with.chat,
            embedder: with.embedder,
            monitor: with.monitor,
            telemetry: with.telemetry,
            hub: with.hub,
            clock: with.clock,
            wake: None,
            query_vectors: QueryVectors::default(),
            asks: AskLines::default(),
        }
    }

    /// Carries out the core's effects, in order.
    pub(super) fn run(&mut self, effects: Vec<Effect>, ctx: &mut Context<Self>) {
        for effect in effects {
            self.carry_out(effect, ctx);
        }
    }

    fn carry_out(&mut self, effect: Effect, ctx: &mut Context<Self>) {
        match effect {
            Effect::Wake(at) => self.set_wake(at, ctx),
            Effect::ReadBodies { note_id, ids } => self.read_bodies(note_id, ids, ctx),
            Effect::PrepareCall {
                note_id,
                read_context,
                neighbours,
            } => self.prepare_call(note_id, read_context, neighbours, ctx),
            Effect::EmbedForPrompt { note_id, plan } => self.embed_for_prompt(note_id, plan, ctx),
            Effect::CallProvider { note_id, plan } => self.call_provider(note_id, plan, ctx),
            Effect::ReadModelContext => self.read_model_context(ctx),
            Effect::LoadModel(plan) => self.load_model(plan, ctx),
            Effect::CheckHealth { note_id, error } => self.check_health(note_id, error, ctx),
            Effect::LookNow => self.look_now(ctx),
            Effect::StoreSlowTimeout {
                note_id,
                next_run_at,
                slow_timeouts,
                last_error,
            } => {
                let write = RecordSlowTimeout {
                    note_id,
                    next_run_at,
                    slow_timeouts,
                    last_error,
                };
                self.store_bookkeeping(write, "the slow note's timeout", false, ctx);
            }
            Effect::RequeueModelMissingFailures => {
                self.ask_repository(RequeueModelMissingFailures { now: self.clock.now() }, ctx, |core, requeued, now| match requeued {
                    Ok(Ok(ids)) if !ids.is_empty() => {
                        tracing::info!(count = ids.len(),
                            "notes that failed for a missing model are pending again");
                        core.enqueued(ids, now, now)
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e, "cannot requeue the notes that failed for a missing model");
                        Vec::new()
                    }
                    _ => Vec::new(),
                });
            }
            Effect::Save { save, enrichment } => self.save(save, enrichment, ctx),
            Effect::StoreNextRun {
                note_id,
                at,
                last_error,
                ends_call,
            } => {
                let write = SetNextRunAt {
                    note_id,
                    at,
                    last_error,
                };
                self.store_bookkeeping(write, "the job's next run", ends_call, ctx);
            }
            Effect::StoreAttempt {
                note_id,
                next_run_at,
                last_error,
                ends_call,
            } => {
                let write = IncrementJobAttempt {
                    note_id,
                    next_run_at,
                    last_error,
                };
                self.store_bookkeeping(write, "the failed attempt", ends_call, ctx);
            }
            Effect::MarkFailed { failure, ends_call } => self.mark_failed(failure, ends_call, ctx),
            Effect::SuspectDown => self.monitor.do_send(SuspectDown),
            Effect::CountModelTime { usage, ms } => {
                self.telemetry
                    .do_send(Emit(UsageEvent::AiModelTime(AiModelTime { usage, ms })));
            }
            Effect::AnnounceEnriched { latency_ms } => {
                self.telemetry
                    .do_send(Emit(UsageEvent::AiDone(AiDone { latency_ms })));
            }
            Effect::AnnounceSlow(slow) => self.hub.do_send(NoteSlow { slow }),
            Effect::StartAsk { id, plan, given } => self.start_ask(id, plan, given, ctx),
            Effect::EndAsk { id, end } => self.end_ask(id, end, ctx),
            Effect::ReadEmbeddingBacklog {
                model,
                limit,
                skip,
                only,
                before,
            } => {
                let read = GetEmbeddingBacklog {
                    model,
                    limit,
                    skip,
                    only,
                    before,
                };
                self.ask_repository(read, ctx, |core, read, now| {
                    let read = match read {
                        Ok(Ok(backlog)) => Ok(backlog),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    core.embedding_backlog_read(read, now)
                });
            }
            Effect::Embed(plan) => self.embed(plan, ctx),
            Effect::SaveVectors { model, vectors } => {
                let count = vectors.len();
                let write = SaveVectors {
                    model,
                    vectors,
                    now: self.clock.now(),
                };
                // Nothing waits for it: a vector not stored is made again next time
                // (its note is still without one), and the disk's trouble is the
                // titles' to notice.
                self.ask_repository(write, ctx, move |_, stored, _| {
                    match stored {
                        Ok(Ok(stored)) => tracing::debug!(stored, of = count, "vectors stored"),
                        Ok(Err(e)) => tracing::warn!(error = %e, "cannot store the notes' vectors"),
                        Err(_) => {}
                    }
                    Vec::new()
                });
            }
            Effect::AnnounceFailed { failure } => {
                self.hub.do_send(JobFailed {
                    note_id: failure.note_id,
                    reason: failure.reason,
                    attempts: failure.attempts,
                    error: failure.error,
                });
            }
        }
    }

    // ----- the timer ---------------------------------------------------------------

    fn set_wake(&mut self, at: Option<chrono::DateTime<chrono::Utc>>, ctx: &mut Context<Self>) {
        if let Some(handle) = self.wake.take() {
            ctx.cancel_future(handle);
        }
        let Some(at) = at else { return };
        let delay = (at - self.clock.now()).to_std().unwrap_or_default();
        self.wake = Some(ctx.run_later(delay, |act, ctx| {
            act.wake = None;
            let effects = act.core.woke(act.clock.now());
            act.run(effects, ctx);
        }));
    }

    // ----- the repository ----------------------------------------------------------

    /// Sends `message` to the repository; `answer` hands the reply to the core (with
    /// `now`), and the effects it returns are carried out.
    pub(super) fn ask_repository<M>(
        &mut self,
        message: M,
        ctx: &mut Context<Self>,
        answer: impl FnOnce(&mut WorkerCore, Result<M::Result, MailboxError>, DateTime<Utc>) -> Vec<Effect>
            + 'static,
    ) where
        M: Message + Send + 'static,
        M::Result: Send,
        RepositoryActor: Handler<M>,
        SyncContext<RepositoryActor>: actix::dev::ToEnvelope<RepositoryActor, M>,
    {
        let reply = self.repository.send(message);
        ctx.spawn(reply.into_actor(self).map(move |reply, act, ctx| {
            let effects = answer(&mut act.core, reply, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    fn read_bodies(&mut self, note_id: String, ids: Vec<String>, ctx: &mut Context<Self>) {
        self.ask_repository(GetPendingBodies { ids }, ctx, |core, read, now| {
            let read = match read {
                Ok(Ok(bodies)) => Ok(bodies),
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            core.bodies_read(note_id, read, now)
        });
    }

    fn save(&mut self, save: PendingSave, enrichment: Enrichment, ctx: &mut Context<Self>) {
        let write = SaveEnrichment {
            note_id: save.note_id.clone(),
            body_read: save.body.clone(),
            enrichment,
            now: self.clock.now(),
        };
        self.ask_repository(write, ctx, |core, saved, now| {
            let outcome = match saved {
                Ok(Ok(note)) => SaveOutcome::Saved(Box::new(note)),
                Ok(Err(StoreError::NotFound(_))) => SaveOutcome::NoteGone,
                Ok(Err(StoreError::Stale(_))) => SaveOutcome::Stale,
                Ok(Err(e)) if e.is_disk_trouble() => SaveOutcome::DiskTrouble(e.to_string()),
                Ok(Err(e)) => SaveOutcome::Refused(e.to_string()),
                Err(_) => SaveOutcome::RepositoryGone,
            };
            core.saved(save, outcome, now)
        });
    }

    /// Stores a job's bookkeeping after a failure (the core has already updated its
    /// queue); a failed write is logged.
    fn store_bookkeeping<M, T>(
        &mut self,
        write: M,
        what: &'static str,
        ends_call: bool,
        ctx: &mut Context<Self>,
    ) where
        M: Message<Result = StoreResult<T>> + Send + 'static,
        T: Send + 'static,
        RepositoryActor: Handler<M>,
        SyncContext<RepositoryActor>: actix::dev::ToEnvelope<RepositoryActor, M>,
    {
        self.ask_repository(write, ctx, move |core, stored, now| {
            if let Ok(Err(e)) = stored {
                tracing::warn!(error = %e, "cannot store {what}");
            }
            core.write_done(ends_call, now)
        });
    }

    fn mark_failed(&mut self, failure: Failure, ends_call: bool, ctx: &mut Context<Self>) {
        let write = MarkAiFailed {
            note_id: failure.note_id.clone(),
            error: failure.error.clone(),
            now: self.clock.now(),
        };
        self.ask_repository(write, ctx, move |core, marked, now| {
            let outcome = match marked {
                Ok(Ok(note)) => MarkOutcome::Marked(Box::new(note)),
                Ok(Err(StoreError::NotFound(_))) => MarkOutcome::NoteGone,
                Ok(Err(e)) => MarkOutcome::Refused(e.to_string()),
                Err(_) => MarkOutcome::RepositoryGone,
            };
            core.marked_failed(failure, outcome, ends_call, now)
        });
    }

    // ----- the provider ------------------------------------------------------------

    /// Reads what the prompt needs: the user's most used tags (read for each call, not
    /// cached: the first notes of an install are the ones that make the vocabulary; a
    /// failed read only leaves them out), with `neighbours` the note's nearest
    /// neighbours (`Store::related`: a failed read leaves them out too) and, when
    /// asked, the model's context.
    fn prepare_call(
        &mut self,
        note_id: String,
        read_context: bool,
        neighbours: bool,
        ctx: &mut Context<Self>,
    ) {
        let tags = self.repository.send(ListTags {
            limit: Some(VOCABULARY_IN_PROMPT),
        });
        let related = neighbours.then(|| {
            self.repository.send(GetRelated {
                id: note_id.clone(),
                limit: RELATED_NOTES,
                floor: related_floor,
            })
        });
        let context = read_context.then(|| self.chat.model_context());
        let all = async move {
            let context = match context {
                Some(read) => Some(read.await),
                None => None,
            };
            let related = match related {
                Some(read) => Some(read.await),
                None => None,
            };
            (tags.await, related, context)
        };
        ctx.spawn(all.into_actor(self).map(move |(tags, related, context), act, ctx| {
            let tags_in_use: Vec<String> = match tags {
                Ok(Ok(tags)) => tags.into_iter().map(|t| t.tag).collect(),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "cannot read the tags in use; asking without them");
                    Vec::new()
                }
                Err(_) => Vec::new(),
            };
            let neighbours = match related {
                None => NeighboursRead::NotAsked,
                Some(Ok(Ok(related))) => neighbours_of(related),
                Some(Ok(Err(e))) => {
                    tracing::warn!(error = %e,
                        "cannot read the note's neighbours; asking without their tags");
                    NeighboursRead::Unreadable
                }
                Some(Err(_)) => NeighboursRead::Unreadable,
            };
            let effects =
                act.core
                    .prepared(note_id, tags_in_use, neighbours, context, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    /// Asks the provider for the vector of the note about to be enriched; the answer
    /// goes to the core.
    fn embed_for_prompt(&mut self, note_id: String, plan: EmbedPlan, ctx: &mut Context<Self>) {
        tracing::debug!(%note_id, "asking for the note's vector before its title");
        let call = self.embedder.embed(plan);
        ctx.spawn(call.into_actor(self).map(move |answer, act, ctx| {
            let effects = act
                .core
                .embedded_for_prompt(note_id, answer, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    /// Calls the provider as planned; its reply goes to the core.
    fn call_provider(&mut self, note_id: String, plan: CallPlan, ctx: &mut Context<Self>) {
        tracing::debug!(%note_id, deadline_ms = plan.deadline.as_millis() as u64,
            context_tokens = plan.context_tokens, read_chars = plan.prompt.read_chars,
            "calling the provider");
        let started = actix_rt::time::Instant::now();
        let call = self.chat.enrich(plan);
        ctx.spawn(call.into_actor(self).map(move |reply, act, ctx| {
            let latency_ms = started.elapsed().as_millis() as u64;
            let effects = act
                .core
                .replied(note_id, reply, latency_ms, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    /// Streams the answer to a question as planned, each piece down its channel after
    /// how many notes the model was given, within the answer's limits; its end goes to
    /// the core.
    fn start_ask(&mut self, id: u64, plan: ChatPlan, given: usize, ctx: &mut Context<Self>) {
        let Some(updates) = self.asks.updates(id) else {
            return;
        };
        // The first update of the channel, which has room for it.
        let _ = updates.try_send(AskUpdate::Given(given));
        let limits = AnswerLimits::of(&plan);
        let answer = pump(self.chat.chat_stream(plan), updates, limits);
        let task = ctx.spawn(answer.into_actor(self).map(move |outcome, act, ctx| {
            act.asks.set_stream(id, None);
            let effects = act.core.ask_ended(id, outcome, act.clock.now());
            act.run(effects, ctx);
        }));
        self.asks.set_stream(id, Some(task));
    }

    /// A question is over: its end goes down its channel, and its stream (the
    /// provider's request with it, which stops the model) is dropped.
    fn end_ask(&mut self, id: u64, end: AskEnd, ctx: &mut Context<Self>) {
        for task in self.asks.close(id, end) {
            ctx.cancel_future(task);
        }
    }

    /// Asks the provider for the vectors of a batch; the answer goes to the core.
    fn embed(&mut self, plan: EmbedPlan, ctx: &mut Context<Self>) {
        tracing::debug!(notes = plan.texts.len(), "asking for the notes' vectors");
        let call = self.embedder.embed(plan);
        ctx.spawn(call.into_actor(self).map(|answer, act, ctx| {
            let effects = act.core.embedded(answer, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    fn read_model_context(&mut self, ctx: &mut Context<Self>) {
        let read = self.chat.model_context();
        ctx.spawn(read.into_actor(self).map(|read, act, ctx| {
            let effects = act.core.context_read(read, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    fn load_model(&mut self, plan: LoadPlan, ctx: &mut Context<Self>) {
        let load = self.chat.load_model(plan);
        ctx.spawn(
            load.into_actor(self)
                .map(|loaded: Result<(), ProviderError>, act, ctx| {
                    let effects = act.core.model_loaded(loaded, act.clock.now());
                    act.run(effects, ctx);
                }),
        );
    }

    /// Asks the monitor, now, whether Ollama is up after a call ran out of time. A
    /// monitor that does not answer (the service is stopping) reads as "not running".
    fn check_health(&mut self, note_id: String, error: String, ctx: &mut Context<Self>) {
        let check = self.monitor.send(CheckNow);
        ctx.spawn(check.into_actor(self).map(move |health, act, ctx| {
            let health = health.unwrap_or_else(|_| ProviderHealth::NotRunning {
                detail: "the health monitor did not answer".into(),
            });
            let effects = act
                .core
                .timeout_checked(note_id, error, health, act.clock.now());
            act.run(effects, ctx);
        }));
    }

    /// [`Effect::LookNow`]: the monitor looks now, and the core hears what it found.
    fn look_now(&mut self, ctx: &mut Context<Self>) {
        let look = self.monitor.send(CheckNow);
        ctx.spawn(look.into_actor(self).map(|health, act, ctx| {
            // A monitor that did not answer found nothing: the park stands.
            let Ok(health) = health else { return };
            let effects = act.core.looked(health, act.clock.now());
            act.run(effects, ctx);
        }));
    }
}

/// What the store's related notes say of a note's neighbours.
fn neighbours_of(related: Related) -> NeighboursRead {
    if !related.embedded {
        return NeighboursRead::NotEmbedded;
    }
    // Only the really near, as this model's vectors tell (none when they do not).
    let floor = related.spread.as_ref().and_then(neighbours_floor);
    let neighbours = related
        .notes
        .into_iter()
        .map(|(note, similarity)| Neighbour {
            tags: note.tags,
            similarity,
        })
        .collect();
    NeighboursRead::Found(really_near(neighbours, floor))
}

/// A job row as the worker queues it.
pub(super) fn queued(job: Job) -> (String, QueuedJob) {
    (
        job.note_id,
        QueuedJob {
            attempts: job.attempts,
            next_run_at: job.next_run_at,
            wait_reason: job.wait_reason,
            slow_timeouts: job.slow_timeouts,
            // Queued in an earlier run: the backlog, whatever it waited for.
            queued_at: DateTime::<Utc>::MIN_UTC,
        },
    )
}

impl Actor for AiWorkerActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let jobs = self.jobs.take().unwrap_or_default();
        let effects = self
            .core
            .loaded(jobs.into_iter().map(queued), self.clock.now());
        self.run(effects, ctx);
    }
}
