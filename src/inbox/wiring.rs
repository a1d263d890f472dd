//! [`Inbox`]: the addresses the use cases talk to, the clock and the settings they
//! need, as one value every route, the tray and the purge hold a clone of.

use std::sync::Arc;

use actix::MailboxError;

use crate::actors::ai_worker::AiWorkerActor;
use crate::actors::mailbox::Mailbox;
use crate::actors::repository::{Captures, RepositoryActor};
use crate::actors::search_indexer::SearchIndexer;
use crate::actors::telemetry::TelemetryActor;
use crate::actors::transcriber::TranscriberActor;
use crate::clock::{ConfirmedClock, SharedClock};
use crate::search::retrieve::Retriever;
use crate::storage::StoreError;

/// The use cases, with the addresses they talk to. Cheap to clone: a route, the tray
/// and the purge each hold one.
#[derive(Clone)]
pub struct Inbox {
    pub(super) repository: Mailbox<RepositoryActor>,
    /// Captures waiting for the repository's next commit (shared by the clones).
    pub(super) captures: Captures,
    /// Told of each commit of captures asked for: it writes their search entries once
    /// captures pause.
    pub(super) indexer: Mailbox<SearchIndexer>,
    pub(super) worker: Mailbox<AiWorkerActor>,
    /// The voice notes' worker, when voice notes are on.
    pub(super) transcriber: Option<Mailbox<TranscriberActor>>,
    pub(super) telemetry: Mailbox<TelemetryActor>,
    /// How notes are found (the search, a question's notes).
    pub(super) retriever: Retriever,
    /// "Now" as confirmed: a jump of the wall clock dates nothing and purges nothing.
    pub(super) clock: Arc<ConfirmedClock>,
    /// How long a note stays in the trash before the purge deletes it for good.
    pub(super) trash_retention: chrono::Duration,
    /// The largest body (`http.max_body_bytes`): a ticked checklist is a body edit,
    /// held to the same limit as any other.
    pub(super) max_body_bytes: usize,
}

/// What an `Inbox` is made of.
pub struct InboxWiring {
    pub repository: Mailbox<RepositoryActor>,
    pub indexer: Mailbox<SearchIndexer>,
    pub worker: Mailbox<AiWorkerActor>,
    pub transcriber: Option<Mailbox<TranscriberActor>>,
    pub telemetry: Mailbox<TelemetryActor>,
    pub clock: Arc<ConfirmedClock>,
    pub trash_retention_days: u32,
    pub max_body_bytes: usize,
}

impl Inbox {
    pub fn new(wiring: InboxWiring) -> Self {
        Inbox {
            retriever: Retriever::new(
                wiring.repository.clone(),
                wiring.worker.clone(),
                wiring.clock.clone() as SharedClock,
            ),
            repository: wiring.repository,
            captures: Captures::default(),
            indexer: wiring.indexer,
            worker: wiring.worker,
            transcriber: wiring.transcriber,
            telemetry: wiring.telemetry,
            clock: wiring.clock,
            trash_retention: chrono::Duration::days(i64::from(wiring.trash_retention_days)),
            max_body_bytes: wiring.max_body_bytes,
        }
    }
}

/// The repository did not answer: it is stopping (or its thread is gone). Nothing was
/// written that the caller can rely on; the route says "try again later".
pub(super) fn unavailable(e: MailboxError) -> StoreError {
    StoreError::Unavailable(format!("the repository is not running ({e})"))
}
