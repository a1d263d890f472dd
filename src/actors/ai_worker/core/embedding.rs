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
//! too long is cut shorter, a vector of the wrong length is refused (said once).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::super::backoff::{next_outage_step, outage_backoff, slow_note_deadline};
use super::rules::{after, STORAGE_RETRY_DELAY};
use super::state::WorkerCore;
use super::Effect;
use crate::ai::embedding::{accept_vectors, embed_failure, embedding_text, EmbedFailure};
use crate::ai::{EmbedPlan, ProviderError};
use crate::api::worker::{EmbeddingsState, ModelUse};
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
    /// Notes whose vectors were refused this run: not asked again until restart.
    refused: Vec<String>,
    /// Vectors of the wrong length were logged (once).
    told_wrong_length: bool,
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
            refused: Vec::new(),
            told_wrong_length: false,
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
        if self.rules.is_none() || self.busy.is_some() || (self.scanned && self.changed.is_empty())
        {
            return EmbedStep::Nothing;
        }
        match self.paused_until {
            Some(until) if until > now => EmbedStep::WaitUntil(until),
            _ => EmbedStep::Read,
        }
    }

    /// Notes were stored or changed (queued for their AI): they may have no vector.
    /// Kept even before a read of every note has found nothing: one in flight may have
    /// been made before they were stored (read again by id later, a note with its
    /// vector is simply not in the answer).
    pub(super) fn notes_changed(&mut self, note_ids: &[String]) {
        if self.rules.is_some() {
            self.changed.extend(note_ids.iter().cloned());
        }
    }

    /// A batch whose call failed: its notes are read again by id when the work
    /// resumes, not found by a new walk over every note (230 ms at 100,000 notes).
    fn read_again(&mut self, batch: Vec<(String, String)>) {
        self.changed.extend(batch.into_iter().map(|(id, _)| id));
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
        }
    }

    /// One vector of an answer for one text: taken (its length as the model's), or
    /// `None`, refused (the wrong length, said once) or the answer unmatched.
    pub(super) fn take_one(&mut self, note_id: &str, vectors: Vec<Vec<f32>>) -> Option<Vec<f32>> {
        match accept_vectors(1, vectors, self.dims) {
            Ok(mut taken) => match taken.pop().flatten() {
                Some(vector) => {
                    self.step = 0;
                    self.timeouts = 0;
                    self.dims.get_or_insert(vector.len());
                    if matches!(self.state, EmbeddingsState::Waiting { .. }) {
                        self.state = EmbeddingsState::Working;
                    }
                    Some(vector)
                }
                None => {
                    self.refused.push(note_id.to_string());
                    if !self.told_wrong_length {
                        self.told_wrong_length = true;
                        tracing::warn!(dims = ?self.dims,
                            "the embedding model answered a vector of the wrong length (or not \
                             numbers); it is not stored");
                    }
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
                        skip: self.embedding.refused.clone(),
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
                self.embedding.state = EmbeddingsState::UpToDate;
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
        vec![Effect::Embed(EmbedPlan { deadline, texts })]
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
                        Some(vector) => {
                            self.embedding.dims.get_or_insert(vector.len());
                            vectors.push(NoteVector {
                                note_id,
                                body,
                                vector,
                            });
                        }
                        None => self.embedding.refused.push(note_id),
                    }
                }
                if !self.embedding.refused.is_empty() && !self.embedding.told_wrong_length {
                    self.embedding.told_wrong_length = true;
                    tracing::warn!(model = %rules.model, dims = ?self.embedding.dims,
                        refused = self.embedding.refused.len(),
                        "the embedding model answered vectors of the wrong length (or not numbers); \
                         they are not stored and those notes have no related notes until restart");
                }
                effects.extend(self.spent(ModelUse::Kept, ms));
                if self.embedding.scanned && self.embedding.changed.is_empty() {
                    self.embedding.state = EmbeddingsState::UpToDate;
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
                // after the longest outage wait.
                self.embedding.paused_until = Some(after(now, longest));
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
