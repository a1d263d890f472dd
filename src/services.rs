//! `Services`: the actor graph, started in dependency order and wired together, and
//! the use cases over it (`Inbox`) with their hourly upkeep (the old trash purged, the
//! change log compacted).
//!
//! `Application` starts it behind the HTTP server; tests start it alone (on virtual
//! time, with a fake provider).

use std::path::PathBuf;
use std::sync::Arc;

use actix::Actor;

use crate::actors::ai_worker::{AiWorkerActor, EmbeddingRules, WorkerRules, WorkerWiring};
use crate::actors::hub::{Hub, Subscribe};
use crate::actors::mailbox::Mailbox;
use crate::actors::model_pull::{models_to_pull, ModelPullActor};
use crate::actors::provider_monitor::ProviderMonitorActor;
use crate::actors::repository::RepositoryActor;
use crate::actors::search_indexer::{NotesCaptured, SearchIndexer};
use crate::actors::telemetry::TelemetryActor;
use crate::actors::transcriber::core::TranscriberRules;
use crate::actors::transcriber::{TranscriberActor, TranscriberWiring};
use crate::ai::Capabilities;
use crate::clock::{ConfirmedClock, SharedClock};
use crate::configuration::Settings;
use crate::events::{JobFailed, ProviderStatusChanged};
use crate::inbox::{Inbox, InboxWiring};
use crate::storage::{Store, StoreResult, Verdict};

/// The running actors, and the use cases over them.
#[derive(Clone)]
pub struct Services {
    pub repository: Mailbox<RepositoryActor>,
    pub hub: Mailbox<Hub>,
    pub telemetry: Mailbox<TelemetryActor>,
    pub monitor: Mailbox<ProviderMonitorActor>,
    pub worker: Mailbox<AiWorkerActor>,
    pub inbox: Inbox,
    pub model_pull: Mailbox<ModelPullActor>,
    /// Whether notes expire (the person's choice), as every answer reads it.
    pub expiry: crate::expiry::Expiry,
    /// The voice notes' worker; `None` when `[transcription]` names no server.
    pub transcriber: Option<Mailbox<TranscriberActor>>,
    /// The settings of voice notes (whether on, the largest recording).
    pub voice: crate::configuration::TranscriptionSettings,
    /// The one clock of the service: the wall clock as confirmed
    /// (`crate::clock::confirmed`), which the routes read too.
    pub clock: SharedClock,
}

impl Services {
    /// Starts every actor, the worker with the queue as `store` has it. A queue that
    /// cannot be read is an error, not an empty worker: every pending note would stay
    /// pending for good. Must run inside an actix `System`.
    pub fn start(
        settings: &Settings,
        clock: SharedClock,
        store: Store,
        db_path: PathBuf,
        capabilities: Capabilities,
    ) -> StoreResult<Self> {
        let jobs = store.all_jobs()?;
        let expiry = store.expiry();
        let integrity = store.integrity();
        // Every timestamp and every purge goes by the confirmed clock: a wall clock
        // that jumps ahead neither dates notes in the future nor purges the trash.
        let confirmed = Arc::new(ConfirmedClock::new(clock, store.newest_time()?));
        let clock: SharedClock = confirmed.clone();
        let hub = Mailbox::from(Hub::default().start());
        let repository = Mailbox::from(RepositoryActor::start(store, db_path, hub.clone()));
        let telemetry = Mailbox::from(TelemetryActor::new(settings, clock.clone()).start());
        let monitor = Mailbox::from(
            ProviderMonitorActor::new(
                capabilities.health.clone(),
                hub.clone(),
                telemetry.clone(),
                settings.provider_calls().health_interval,
            )
            .start(),
        );
        let model_pull = Mailbox::from(
            ModelPullActor::new(
                capabilities.pull.clone(),
                models_to_pull(&settings.ollama.model, &settings.ollama.embedding_model),
                hub.clone(),
                monitor.clone(),
            )
            .start(),
        );
        let worker = Mailbox::from(
            AiWorkerActor::new(
                WorkerWiring {
                    repository: repository.clone(),
                    chat: capabilities.chat,
                    embedder: capabilities.embed,
                    monitor: monitor.clone(),
                    telemetry: telemetry.clone(),
                    hub: hub.clone(),
                    clock: clock.clone(),
                },
                WorkerRules::new(settings.worker.clone(), &settings.provider_calls())
                    .with_embedding(settings.embedding_calls().map(|calls| EmbeddingRules {
                        model: calls.model,
                        context_tokens: calls.context_tokens,
                        in_process: calls.in_process,
                    })),
                jobs,
            )
            .start(),
        );
        let transcriber = capabilities.transcription.map(|server| {
            let voice = &settings.transcription;
            Mailbox::from(
                TranscriberActor::new(TranscriberWiring {
                    repository: repository.clone(),
                    worker: worker.clone(),
                    hub: hub.clone(),
                    server,
                    clock: clock.clone(),
                    rules: TranscriberRules {
                        deadline: voice.request_timeout(),
                        health_interval: voice.health_interval(),
                        language: voice.language(),
                        worker: settings.worker.clone(),
                    },
                    keep_audio: voice.keep_audio,
                    max_audio_bytes: voice.max_audio_bytes,
                })
                .start(),
            )
        });
        hub.do_send(Subscribe(worker.recipient::<ProviderStatusChanged>()));
        hub.do_send(Subscribe(telemetry.recipient::<JobFailed>()));
        let indexer = Mailbox::from(SearchIndexer::new(repository.recipient()).start());
        let told = indexer.clone();
        let inbox = Inbox::new(InboxWiring {
            repository: repository.clone(),
            indexer,
            worker: worker.clone(),
            transcriber: transcriber.clone(),
            telemetry: telemetry.clone(),
            clock: confirmed,
            trash_retention_days: settings.trash.retention_days,
            max_body_bytes: settings.http.max_body_bytes,
        });
        // The service's own housekeeping writes start once the check at start has
        // decided: the search entries a last run left waiting, and the hourly upkeep.
        // Sent before, each write would wait for the check on the repository's thread,
        // and every read queued behind it. A damaged file takes no write: none then.
        let upkeep = inbox.clone();
        actix_rt::spawn(async move {
            if integrity.decided().await == Verdict::Sound {
                told.do_send(NotesCaptured);
                crate::inbox::lifecycle::hourly_upkeep(upkeep);
            }
        });
        Ok(Services {
            expiry,
            repository,
            hub,
            telemetry,
            monitor,
            worker,
            inbox,
            model_pull,
            transcriber,
            voice: settings.transcription.clone(),
            clock,
        })
    }
}
