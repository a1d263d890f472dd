//! The notes' vectors (related notes): made by the embedding model when no note's
//! title is due, in batches, newest notes first, one call in flight with the chat
//! calls (docs/DESIGN.md, "Related notes").
//!
//! What is left to embed is the database's answer (notes out of the trash with no
//! vector of the configured model: a new note, an edited one, whose vector the edit
//! removed, every note after an upgrade or a change of model); the decisions are here:
//! when to ask ([`Embedding::next_step`]), the text cut to the model's context, which
//! vectors of an answer are taken, and what a failed call means. None is ever a note's
//! failure: an outage waits (and resumes the moment the provider is seen ready), a
//! missing model or a server without embeddings is a state shown with its fix, a text
//! too long is cut shorter. A vector refused (of zeros, of the wrong length, not
//! numbers) is not stored, and its note is asked again by the notes' retry schedule
//! (`worker.retry_backoffs_ms`, at most `worker.max_attempts` times a run, or until the
//! note changes); the state says so (`Refused`) instead of `UpToDate`.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use super::super::backoff::{next_outage_step, outage_backoff, retry_backoff, slow_note_deadline};
use super::rules::{after, STORAGE_RETRY_DELAY};
use super::state::WorkerCore;
use super::Effect;
use crate::ai::embedding::{
    accept_vectors, embed_failure, embedding_text, EmbedFailure, TextKind, VectorRefused,
};
use crate::ai::{EmbedPlan, ProviderError};
use crate::api::worker::{EmbeddingsState, ModelUse};
use crate::configuration::WorkerSettings;
use crate::domain::timestamp;
use crate::storage::{EmbeddingBacklog, NoteVector};

/// How many notes one embedding call carries: a batch is one request's overhead for
/// many notes, and small enough that a note captured meanwhile waits little for it.
pub const EMBED_BATCH: usize = 8;

/// The least room a text keeps after cuts for inputs that did not fit.
const MIN_ROOM_TOKENS: u32 = 128;

/// The embedding model and its context (`ollama.embedding_model`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingRules {
    pub model: String,
    pub context_tokens: u32,
    /// The vectors are made in the process (the built-in embedder), not by the model
    /// server: its health neither holds them nor a query's.
    pub in_process: bool,
}

/// A note whose vector was refused, and when it is asked again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Refusal {
    /// Its vectors refused so far, this run.
    times: u32,
    retry: Retry,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retry {
    /// Not read before then.
    At(DateTime<Utc>),
    /// Due: put back among the notes to read.
    Asked,
    /// Refused `max_attempts` times: not asked again this run (unless it changes).
    Spent,
}

/// What is in flight for the vectors: at most one thing, and while it is, no chat call
/// starts (one call in flight).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Busy {
    /// Reading the next notes to embed: of every note (`full`), or of these notes
    /// changed since (`only`: put back to read again if the read fails).
    Reading {
        full: bool,
        only: Option<Vec<String>>,
    },
    /// The embedding call for these notes (`(id, body)`), started then.
    Calling {
        batch: Vec<(String, String)>,
        since: DateTime<Utc>,
    },
}

/// The embedding work's state.
#[derive(Debug)]
pub(super) struct Embedding {
    rules: Option<EmbeddingRules>,
    state: EmbeddingsState,
    busy: Option<Busy>,
    /// A read of every note found nothing left to embed: since then only the notes
    /// stored or changed are read (a read of every note walks all of them, ~100,000 at
    /// most, which a capture must not wait behind twice).
    scanned: bool,
    /// Where the walk over every note has come to (it reads a slice at a time, newest
    /// first, so a capture at start waits for one slice, not the whole walk).
    walked_to: Option<String>,
    /// Notes stored or changed since the scan that found nothing, to read next (by id:
    /// UUID v7, so the last are the newest, read first).
    changed: BTreeSet<String>,
    /// No call before this (after a failure); cleared when the provider is seen ready.
    paused_until: Option<DateTime<Utc>>,
    /// Consecutive failures, for the wait (the outage schedule).
    step: usize,
    /// The tokens a text may fill: the model's context, halved for each input that
    /// still did not fit.
    room: u32,
    /// The model's dimensions, once a vector is stored or taken.
    dims: Option<usize>,
    /// Notes whose vectors were refused, and when each is asked again.
    refused: BTreeMap<String, Refusal>,
    /// Why the last vector was refused, for the state.
    refused_why: Option<VectorRefused>,
    /// Calls that ran out of time in a row: each doubles the next one's deadline, as
    /// for a slow note (up to the longest); a success starts again from the first.
    timeouts: u32,
}

/// What the vectors' side wants when no note is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum EmbedStep {
    /// Read the next notes to embed.
    Read,
    /// Nothing before then.
    WaitUntil(DateTime<Utc>),
    /// Nothing to do (off, caught up, or in flight).
    Nothing,
}

impl Embedding {
    pub(super) fn new(rules: Option<EmbeddingRules>) -> Self {
        let room = rules.as_ref().map_or(0, |r| r.context_tokens);
        let state = if rules.is_some() {
            EmbeddingsState::Working
        } else {
            EmbeddingsState::Off
        };
        Embedding {
            rules,
            state,
            busy: None,
            scanned: false,
            walked_to: None,
            changed: BTreeSet::new(),
            paused_until: None,
            step: 0,
            room,
            dims: None,
            refused: BTreeMap::new(),
            refused_why: None,
            timeouts: 0,
        }
    }

    /// A read or a call for the vectors is in flight: no chat call starts meanwhile.
    pub(super) fn busy(&self) -> bool {
        self.busy.is_some()
    }

    /// How many notes the call in flight embeds (0: none).
    pub(super) fn calling(&self) -> usize {
        match &self.busy {
            Some(Busy::Calling { batch, .. }) => batch.len(),
            _ => 0,
        }
    }

    pub(super) fn state(&self) -> EmbeddingsState {
        self.state.clone()
    }

    /// The decision when no note's title is due: read the next notes to embed, wait
    /// out a pause, or nothing.
    pub(super) fn next_step(&self, now: DateTime<Utc>) -> EmbedStep {
        if self.rules.is_none() || self.busy.is_some() {
            return EmbedStep::Nothing;
        }
        if self.scanned && self.changed.is_empty() {
            // Caught up but for refused notes: woken when the first is due again.
            return self
                .next_retry()
                .map_or(EmbedStep::Nothing, EmbedStep::WaitUntil);
        }
        match self.paused_until {
            Some(until) if until > now => EmbedStep::WaitUntil(until),
            _ => EmbedStep::Read,
        }
    }

    /// When the first refused note is due again.
    fn next_retry(&self) -> Option<DateTime<Utc>> {
        self.refused
            .values()
            .filter_map(|refusal| match refusal.retry {
                Retry::At(at) => Some(at),
                _ => None,
            })
            .min()
    }

    /// Refused notes whose wait is over go back among the notes to read.
    fn release_due(&mut self, now: DateTime<Utc>) {
        for (id, refusal) in &mut self.refused {
            if matches!(refusal.retry, Retry::At(at) if at <= now) {
                refusal.retry = Retry::Asked;
                self.changed.insert(id.clone());
            }
        }
    }

    /// The notes a read leaves out: those refused and not yet due again.
    fn skipped(&self) -> Vec<String> {
        self.refused
            .iter()
            .filter(|(_, refusal)| refusal.retry != Retry::Asked)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// `note_id`'s vector was refused: asked again by the retry schedule, or not at all
    /// this run once refused `max_attempts` times.
    fn refuse(
        &mut self,
        note_id: String,
        why: VectorRefused,
        schedule: &WorkerSettings,
        now: DateTime<Utc>,
    ) {
        let times = self.refused.get(&note_id).map_or(0, |r| r.times) + 1;
        let retry = if times >= schedule.max_attempts {
            Retry::Spent
        } else {
            Retry::At(after(
                now,
                retry_backoff(times, &schedule.retry_backoffs_ms),
            ))
        };
        tracing::warn!(%note_id, %why, times, ?retry,
            "the embedding model's vector for a note was refused; it is not stored");
        self.changed.remove(&note_id);
        self.refused.insert(note_id, Refusal { times, retry });
        self.refused_why = Some(why);
        self.recount();
    }

    /// A note's vector was taken: it is no longer refused.
    fn taken(&mut self, note_id: &str) {
        if self.refused.remove(note_id).is_some() {
            self.recount();
        }
    }

    /// A caught-up state follows the refused notes (a note's own vector, made before
    /// its title, is refused or taken outside the batches).
    fn recount(&mut self) {
        if matches!(
            self.state,
            EmbeddingsState::UpToDate | EmbeddingsState::Refused { .. }
        ) {
            self.state = self.caught_up();
        }
    }

    /// The state once every note but the refused ones has its vector.
    fn caught_up(&self) -> EmbeddingsState {
        match &self.refused_why {
            Some(why) if !self.refused.is_empty() => EmbeddingsState::Refused {
                notes: self.refused.len(),
                detail: why.to_string(),
                until: self.next_retry().map(timestamp),
            },
            _ => EmbeddingsState::UpToDate,
        }
    }

    /// Notes were stored or changed (queued for their AI): they may have no vector.
    /// Kept even before a read of every note has found nothing: one in flight may have
    /// been made before they were stored (read again by id later, a note with its
    /// vector is simply not in the answer).
    pub(super) fn notes_changed(&mut self, note_ids: &[String]) {
        if self.rules.is_some() {
            // A changed note is a new text: its refusals so far are not its.
            for id in note_ids {
                self.refused.remove(id);
            }
            self.changed.extend(note_ids.iter().cloned());
        }
    }

    /// A batch whose call failed: its notes are read again by id when the work
    /// resumes, not found by a new walk over every note (230 ms at 100,000 notes).
    fn read_again(&mut self, batch: Vec<(String, String)>) {
        self.changed.extend(batch.into_iter().map(|(id, _)| id));
    }

    /// The vectors are made in the process, apart from the model server.
    pub(super) fn in_process(&self) -> bool {
        self.rules.as_ref().is_some_and(|rules| rules.in_process)
    }

    /// The embedding model, when vectors are made at all.
    pub(super) fn rules(&self) -> Option<&EmbeddingRules> {
        self.rules.as_ref()
    }

    /// A vector can be asked for now: an embedding model is configured, it is not known
    /// missing or unserved, and no failure's pause is running. (A new note's own vector
    /// before its title: [`super::neighbours`].)
    pub(super) fn usable(&self, now: DateTime<Utc>) -> bool {
        self.rules.is_some()
            && self.busy.is_none()
            && !matches!(
                self.state,
                EmbeddingsState::ModelMissing { .. } | EmbeddingsState::NotServed { .. }
            )
            && self.paused_until.is_none_or(|until| until <= now)
    }

    /// The plan of one call for `body`'s vector: cut to the model's context, on the
    /// batches' deadline (from the calls' first and longest ones).
    pub(super) fn plan_for(
        &self,
        body: &str,
        request_timeout: std::time::Duration,
        max_request_timeout: std::time::Duration,
    ) -> EmbedPlan {
        EmbedPlan {
            deadline: slow_note_deadline(self.timeouts, request_timeout, max_request_timeout),
            texts: vec![embedding_text(body, self.room).to_string()],
            kind: TextKind::Passage,
        }
    }

    /// One vector of an answer for one text: taken (its length as the model's), or
    /// `None`, refused (the note asked again by the retry schedule) or the answer
    /// unmatched.
    pub(super) fn take_one(
        &mut self,
        note_id: &str,
        vectors: Vec<Vec<f32>>,
        schedule: &WorkerSettings,
        now: DateTime<Utc>,
    ) -> Option<Vec<f32>> {
        match accept_vectors(1, vectors, self.dims) {
            Ok(mut taken) => match taken.pop()? {
                Ok(vector) => {
                    self.step = 0;
                    self.timeouts = 0;
                    self.dims.get_or_insert(vector.len());
                    self.taken(note_id);
                    if matches!(self.state, EmbeddingsState::Waiting { .. }) {
                        self.state = EmbeddingsState::Working;
                    }
                    Some(vector)
                }
                Err(why) => {
                    self.refuse(note_id.to_string(), why, schedule, now);
                    None
                }
            },
            Err(problem) => {
                tracing::warn!(
                    ?problem,
                    "the embedding answer cannot be matched to the note"
                );
                None
            }
        }
    }

    /// A call for one note's vector ran out of time: the next one gets twice the time.
    pub(super) fn timed_out(&mut self) {
        self.timeouts = self.timeouts.saturating_add(1);
    }

    /// The provider was seen ready (the monitor, a recheck, a retry-all): a pause ends,
    /// and a missing model or a server without embeddings is asked again (it may have
    /// been pulled, or started with them).
    pub(super) fn provider_ready(&mut self) {
        if self.rules.is_none() {
            return;
        }
        self.paused_until = None;
        if matches!(
            self.state,
            EmbeddingsState::ModelMissing { .. }
                | EmbeddingsState::NotServed { .. }
                | EmbeddingsState::Waiting { .. }
        ) {
            self.state = EmbeddingsState::Working;
        }
    }
}

impl WorkerCore {
    /// Notes stored with no job for their AI (an import of done notes): their vectors
    /// are made when no title is due.
    pub fn to_embed(&mut self, note_ids: &[String], now: DateTime<Utc>) -> Vec<Effect> {
        self.embedding.notes_changed(note_ids);
        self.schedule(now)
    }

    /// No note's title is due (the next at `chat_at`, if any): the vectors' turn. The
    /// one timer is set for the earlier of the next note and the end of a pause.
    pub(super) fn embed_or_wait(
        &mut self,
        chat_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        self.embedding.release_due(now);
        match self.embedding.next_step(now) {
            EmbedStep::Read => {
                let Some(rules) = self.embedding.rules.clone() else {
                    return vec![Effect::Wake(chat_at)];
                };
                let full = !self.embedding.scanned;
                let only: Option<Vec<String>> = (!full).then(|| {
                    let changed = &mut self.embedding.changed;
                    std::iter::from_fn(|| changed.pop_last())
                        .take(EMBED_BATCH)
                        .collect()
                });
                self.embedding.busy = Some(Busy::Reading {
                    full,
                    only: only.clone(),
                });
                vec![
                    Effect::Wake(chat_at),
                    Effect::ReadEmbeddingBacklog {
                        model: rules.model,
                        limit: EMBED_BATCH,
                        skip: self.embedding.skipped(),
                        only,
                        before: self.embedding.walked_to.clone().filter(|_| full),
                    },
                ]
            }
            EmbedStep::WaitUntil(until) => {
                let at = chat_at.map_or(until, |at| at.min(until));
                vec![Effect::Wake(Some(at))]
            }
            EmbedStep::Nothing => vec![Effect::Wake(chat_at)],
        }
    }

    /// The answer to [`Effect::ReadEmbeddingBacklog`]: the next notes are embedded in
    /// one call, each cut to the model's context; none left, the work is caught up.
    pub fn embedding_backlog_read(
        &mut self,
        read: Result<EmbeddingBacklog, String>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let (full, only) = match self.embedding.busy.take() {
            Some(Busy::Reading { full, only }) => (full, only),
            _ => (false, None),
        };
        let backlog = match read {
            Ok(backlog) => backlog,
            Err(error) => {
                tracing::warn!(%error, "cannot read the notes to embed; trying again later");
                self.embedding.paused_until = Some(now + STORAGE_RETRY_DELAY);
                // The notes of that read are read again, by id (a read of every note
                // was not finished anyway: it is made again).
                self.embedding.changed.extend(only.into_iter().flatten());
                return self.schedule(now);
            }
        };
        if backlog.dims.is_some() {
            self.embedding.dims = backlog.dims;
        }
        // A refused note asked again and not in the answer has its vector now, or is
        // no longer one to embed (trashed, deleted): no longer refused.
        for id in only.iter().flatten() {
            let asked = self.embedding.refused.get(id).map(|r| r.retry) == Some(Retry::Asked);
            if asked && !backlog.notes.iter().any(|(note, _)| note == id) {
                self.embedding.taken(id);
            }
        }
        // A slice of the walk: the next one goes on from where it stopped; the walk is
        // over when a slice reached the oldest note and found nothing.
        let walk_over = full && backlog.next.is_none();
        if full {
            self.embedding.walked_to = backlog.next;
        }
        if backlog.notes.is_empty() {
            if walk_over {
                self.embedding.scanned = true;
            }
            if self.embedding.scanned && self.embedding.changed.is_empty() {
                self.embedding.state = self.embedding.caught_up();
            }
            return self.schedule(now);
        }
        let room = self.embedding.room;
        let texts = backlog
            .notes
            .iter()
            .map(|(_, body)| embedding_text(body, room).to_string())
            .collect();
        self.embedding.busy = Some(Busy::Calling {
            batch: backlog.notes,
            since: now,
        });
        let deadline = slow_note_deadline(
            self.embedding.timeouts,
            self.rules.request_timeout,
            self.rules.max_request_timeout,
        );
        vec![Effect::Embed(EmbedPlan {
            deadline,
            texts,
            kind: TextKind::Passage,
        })]
    }

    /// The answer to [`Effect::Embed`]: the vectors taken are saved (each for the body
    /// it was made from), the rest refused; a failure waits, or is a state, or cuts the
    /// texts shorter. Then the next work, titles first.
    pub fn embedded(
        &mut self,
        answer: Result<Vec<Vec<f32>>, ProviderError>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let Some(Busy::Calling { batch, since }) = self.embedding.busy.take() else {
            return self.schedule(now);
        };
        let ms = (now - since).num_milliseconds().max(0) as u64;
        let Some(rules) = self.embedding.rules.clone() else {
            return self.schedule(now);
        };
        let mut effects = Vec::new();
        match answer.map(|vectors| accept_vectors(batch.len(), vectors, self.embedding.dims)) {
            Ok(Ok(taken)) => {
                self.embedding.step = 0;
                self.embedding.timeouts = 0;
                self.embedding.state = EmbeddingsState::Working;
                let mut vectors = Vec::new();
                for ((note_id, body), vector) in batch.into_iter().zip(taken) {
                    match vector {
                        Ok(vector) => {
                            self.embedding.dims.get_or_insert(vector.len());
                            self.embedding.taken(&note_id);
                            vectors.push(NoteVector {
                                note_id,
                                body,
                                vector,
                            });
                        }
                        Err(why) => self
                            .embedding
                            .refuse(note_id, why, &self.rules.schedule, now),
                    }
                }
                effects.extend(self.spent(ModelUse::Vectors, ms));
                if self.embedding.scanned && self.embedding.changed.is_empty() {
                    self.embedding.state = self.embedding.caught_up();
                }
                if !vectors.is_empty() {
                    effects.push(Effect::SaveVectors {
                        model: rules.model,
                        vectors,
                    });
                }
            }
            Ok(Err(problem)) => {
                self.embedding.read_again(batch);
                let detail =
                    format!("the server's answer cannot be matched to the notes: {problem:?}");
                effects.extend(self.spent(ModelUse::Other, ms));
                self.embedding_paused(detail, now);
            }
            Err(error) => {
                self.embedding.read_again(batch);
                if matches!(error, ProviderError::TimedOut(_)) {
                    // Ours: the next try of a slow batch gets twice the time.
                    self.embedding.timeouts = self.embedding.timeouts.saturating_add(1);
                }
                let failure = embed_failure(&error);
                effects.extend(self.embedding_failed(failure, &rules, ms, now));
            }
        }
        effects.extend(self.schedule(now));
        effects
    }

    /// What a failed embedding call does (never a note's failure).
    pub(super) fn embedding_failed(
        &mut self,
        failure: EmbedFailure,
        rules: &EmbeddingRules,
        ms: u64,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let longest = outage_backoff(usize::MAX, &self.rules.schedule.unreachable_backoffs_ms);
        match failure {
            EmbedFailure::Outage(detail) => {
                tracing::info!(%detail, "the embedding call found the provider down or busy");
                let mut effects = self.spent(ModelUse::Unreachable, ms);
                self.embedding_paused(detail, now);
                effects.push(Effect::SuspectDown);
                effects
            }
            EmbedFailure::ModelMissing(detail) => {
                tracing::warn!(%detail, model = %rules.model, "the embedding model is missing");
                self.embedding.state = EmbeddingsState::ModelMissing {
                    model: rules.model.clone(),
                };
                // Asked again when the provider is seen ready (a pull, a recheck), or
                // after the longest outage wait. The built-in embedder's model is a file
                // of this machine, cheap to look for: after the first wait, so one put
                // there by `inkling pull-model --embedder` is found soon.
                let wait = if rules.in_process {
                    outage_backoff(0, &self.rules.schedule.unreachable_backoffs_ms)
                } else {
                    longest
                };
                self.embedding.paused_until = Some(after(now, wait));
                self.spent(ModelUse::ModelMissing, ms)
            }
            EmbedFailure::NotServed(detail) => {
                tracing::warn!(%detail, "the model server makes no embeddings");
                self.embedding.state = EmbeddingsState::NotServed { detail };
                self.embedding.paused_until = Some(after(now, longest));
                self.spent(ModelUse::Other, ms)
            }
            EmbedFailure::TooLong(detail) => {
                let room = self.embedding.room;
                if room <= MIN_ROOM_TOKENS {
                    let effects = self.spent(ModelUse::Other, ms);
                    self.embedding_paused(detail, now);
                    return effects;
                }
                self.embedding.room = (room / 2).max(MIN_ROOM_TOKENS);
                tracing::info!(%detail, room = self.embedding.room,
                    "a note did not fit the embedding model; cutting shorter and asking again");
                self.spent(ModelUse::Other, ms)
            }
            EmbedFailure::Other(detail) => {
                tracing::warn!(%detail, "the embedding call failed; trying again later");
                let effects = self.spent(ModelUse::Other, ms);
                self.embedding_paused(detail, now);
                effects
            }
        }
    }

    /// A failure that waits: the outage schedule's next wait, or until the provider is
    /// seen ready.
    fn embedding_paused(&mut self, detail: String, now: DateTime<Utc>) {
        let schedule = &self.rules.schedule.unreachable_backoffs_ms;
        let until = after(now, outage_backoff(self.embedding.step, schedule));
        self.embedding.step = next_outage_step(self.embedding.step, schedule);
        self.embedding.paused_until = Some(until);
        self.embedding.state = EmbeddingsState::Waiting {
            until: timestamp(until),
            detail,
        };
    }
}

#[cfg(test)]
mod tests;
