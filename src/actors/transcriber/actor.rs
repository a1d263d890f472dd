//! `TranscriberActor`: the voice notes' worker's shell. It holds the core, what it
//! talks to (the repository, the enriching worker, the hub, the speech-to-text
//! server), the one wake-up timer, the recording in hand and the server's health as
//! last heard; it carries out the core's effects and decides nothing.

use actix::prelude::*;
use chrono::{DateTime, Utc};

use super::core::{Effect, TranscriberCore, TranscriberRules};
use super::messages::{
    GetTranscriptionStatus, IsTranscribing, ReloadVoiceJobs, TranscribeVoiceNote,
};
use crate::actors::ai_worker::{AiWorkerActor, Enqueue};
use crate::actors::handling;
use crate::actors::hub::Hub;
use crate::actors::mailbox::Mailbox;
use crate::actors::repository::{
    GetRecording, GetVoiceJobs, IncrementJobAttempt, MarkAiFailed, RepositoryActor, SaveTranscript,
};
use crate::ai::{ProviderHealth, TranscribePlan, Transcription};
use crate::api::voice::TranscriptionStatus;
use crate::clock::SharedClock;
use crate::events::JobFailed;
use crate::storage::{Job, Recording, StoreError, StoreResult};

/// What the voice notes' worker is made of.
pub struct TranscriberWiring {
    pub repository: Mailbox<RepositoryActor>,
    pub worker: Mailbox<AiWorkerActor>,
    pub hub: Mailbox<Hub>,
    pub server: Transcription,
    pub clock: SharedClock,
    pub rules: TranscriberRules,
    /// `transcription.keep_audio`.
    pub keep_audio: bool,
    /// `transcription.max_audio_bytes`, for the status.
    pub max_audio_bytes: u64,
}

pub struct TranscriberActor {
    core: TranscriberCore,
    with: TranscriberWiring,
    /// The recording read for the call in flight.
    recording: Option<Recording>,
    health: Option<ProviderHealth>,
    wake: Option<SpawnHandle>,
    /// The stored jobs are being read.
    loading: bool,
}

impl TranscriberActor {
    pub fn new(with: TranscriberWiring) -> Self {
        TranscriberActor {
            core: TranscriberCore::new(with.rules.clone()),
            with,
            recording: None,
            health: None,
            wake: None,
            loading: false,
        }
    }

    fn now(&self) -> DateTime<Utc> {
        self.with.clock.now()
    }

    fn run(&mut self, effects: Vec<Effect>, ctx: &mut Context<Self>) {
        for effect in effects {
            self.carry_out(effect, ctx);
        }
    }

    fn carry_out(&mut self, effect: Effect, ctx: &mut Context<Self>) {
        match effect {
            Effect::WakeAt(at) => self.set_wake(at, ctx),
            Effect::ReadRecording { note_id } => {
                let read = self.with.repository.send(GetRecording {
                    note_id: note_id.clone(),
                });
                ctx.spawn(read.into_actor(self).map(move |read, act, ctx| {
                    let read = match read {
                        Ok(Ok(recording)) => {
                            let found = recording.is_some();
                            act.recording = recording;
                            Ok(found)
                        }
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    let effects = act.core.recording_read(&note_id, read, act.now());
                    act.run(effects, ctx);
                }));
            }
            Effect::Transcribe {
                note_id,
                deadline,
                language,
            } => {
                let Some(recording) = self.recording.take() else {
                    let effects = self.core.recording_read(
                        &note_id,
                        Err("the recording read is not in hand".into()),
                        self.now(),
                    );
                    return self.run(effects, ctx);
                };
                let call = self.with.server.transcribe.transcribe(TranscribePlan {
                    deadline,
                    audio: recording.audio,
                    format: recording.format,
                    language,
                });
                ctx.spawn(call.into_actor(self).map(move |answer, act, ctx| {
                    if answer.is_ok() {
                        act.health = Some(ProviderHealth::Ready);
                    }
                    let answer = answer.map(|transcript| transcript.text);
                    let effects = act.core.transcribed(&note_id, answer, act.now());
                    act.run(effects, ctx);
                }));
            }
            Effect::CheckHealth => self.check_health(ctx),
            Effect::Save { note_id, text } => {
                let save = self.with.repository.send(SaveTranscript {
                    note_id: note_id.clone(),
                    text,
                    keep_audio: self.with.keep_audio,
                    now: self.now(),
                });
                ctx.spawn(save.into_actor(self).map(move |saved, act, ctx| {
                    let saved = match saved {
                        Ok(Ok(_)) => Ok(true),
                        Ok(Err(StoreError::Stale(_) | StoreError::NotFound(_))) => Ok(false),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    let effects = act.core.saved(&note_id, saved, act.now());
                    act.run(effects, ctx);
                }));
            }
            Effect::Enrich { note_id } => {
                tracing::info!(%note_id, "voice note transcribed");
                self.with.worker.do_send(Enqueue {
                    note_ids: vec![note_id],
                    at: self.now(),
                });
            }
            Effect::CountAttempt {
                note_id,
                next_run_at,
                error,
            } => {
                tracing::warn!(%note_id, %error, "a voice note's transcription failed; trying it again later");
                self.with.repository.do_send(IncrementJobAttempt {
                    note_id,
                    next_run_at,
                    last_error: error,
                });
            }
            Effect::MarkFailed {
                note_id,
                reason,
                error,
            } => {
                tracing::warn!(%note_id, %error, "a voice note's transcription failed for good");
                let attempts = self.with.rules.worker.max_attempts;
                let mark = self.with.repository.send(MarkAiFailed {
                    note_id: note_id.clone(),
                    error: error.clone(),
                    now: self.now(),
                });
                let hub = self.with.hub.clone();
                ctx.spawn(
                    async move {
                        if let Ok(Ok(_)) = mark.await {
                            hub.do_send(JobFailed {
                                note_id,
                                reason,
                                attempts,
                                error,
                            });
                        }
                    }
                    .into_actor(self),
                );
            }
        }
    }

    fn check_health(&mut self, ctx: &mut Context<Self>) {
        let check = self.with.server.health.health();
        ctx.spawn(check.into_actor(self).map(|health, act, ctx| {
            act.health = Some(health.clone());
            let effects = act.core.health_checked(health, act.now());
            act.run(effects, ctx);
        }));
    }

    fn set_wake(&mut self, at: DateTime<Utc>, ctx: &mut Context<Self>) {
        if let Some(handle) = self.wake.take() {
            ctx.cancel_future(handle);
        }
        let delay = (at - self.now()).to_std().unwrap_or_default();
        self.wake = Some(ctx.run_later(delay, |act, ctx| {
            act.wake = None;
            let effects = act.core.woke(act.now());
            act.run(effects, ctx);
        }));
    }

    /// The stored jobs read again (at start, after a retry or a restore).
    fn load(&mut self, ctx: &mut Context<Self>) {
        let read = self.with.repository.send(GetVoiceJobs);
        self.loading = true;
        ctx.spawn(read.into_actor(self).map(|jobs, act, ctx| {
            act.loading = false;
            act.loaded(jobs, ctx);
        }));
    }

    /// The stored jobs read: taken in, and the worker resumed at once (a retry means
    /// "try now").
    fn loaded(
        &mut self,
        jobs: Result<StoreResult<Vec<Job>>, MailboxError>,
        ctx: &mut Context<Self>,
    ) {
        match jobs {
            Ok(Ok(jobs)) => {
                let now = self.now();
                let effects = self.core.loaded(jobs, now);
                let resumed = self.core.resume(now);
                self.run(effects, ctx);
                self.run(resumed, ctx);
            }
            Ok(Err(e)) => {
                tracing::error!(error = %e, "cannot read the voice notes waiting for their words")
            }
            Err(e) => tracing::error!(error = %e, "the repository did not answer"),
        }
    }
}

impl Actor for TranscriberActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!("voice notes' worker started");
        // The server's state for the page from the start; the queue as stored.
        let check = self.with.server.health.health();
        ctx.spawn(check.into_actor(self).map(|health, act, _| {
            act.health = Some(health);
        }));
        self.load(ctx);
    }
}

impl Handler<TranscribeVoiceNote> for TranscriberActor {
    type Result = ();

    fn handle(&mut self, msg: TranscribeVoiceNote, ctx: &mut Context<Self>) {
        let _handled = handling!("TranscribeVoiceNote", actor = "transcriber");
        let effects = self.core.captured(msg.note_id, self.now());
        self.run(effects, ctx);
    }
}

impl Handler<ReloadVoiceJobs> for TranscriberActor {
    type Result = ();

    fn handle(&mut self, _: ReloadVoiceJobs, ctx: &mut Context<Self>) {
        let _handled = handling!("ReloadVoiceJobs", actor = "transcriber");
        self.load(ctx);
    }
}

/// Asked fresh each time (a cheap local GET): with no voice note waiting, nothing else
/// asks the server, and a state heard at start would be said for ever.
impl Handler<GetTranscriptionStatus> for TranscriberActor {
    type Result = ResponseActFuture<Self, TranscriptionStatus>;

    fn handle(&mut self, _: GetTranscriptionStatus, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetTranscriptionStatus", actor = "transcriber");
        let check = self.with.server.health.health();
        Box::pin(check.into_actor(self).map(|health, act, _| {
            act.health = Some(health);
            TranscriptionStatus {
                enabled: true,
                health: act.health.clone(),
                max_audio_bytes: act.with.max_audio_bytes,
                waiting: act.core.waiting() as u64,
            }
        }))
    }
}

impl Handler<IsTranscribing> for TranscriberActor {
    type Result = bool;

    fn handle(&mut self, _: IsTranscribing, _: &mut Context<Self>) -> bool {
        let _handled = handling!("IsTranscribing", actor = "transcriber");
        self.core.busy() || self.loading
    }
}
