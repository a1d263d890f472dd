//! `Inbox`: the use cases, as plain async code over the actors' addresses.
//!
//! What the person asks for (the HTTP routes, the tray) is one `async fn` here: a
//! short sequence over the actors that own the resources, with nothing of its own to
//! protect. Not an actor: one whose every handler only awaited others would serialise
//! nothing and cost a mailbox hop per request, so the routes call these functions
//! directly.
//!
//! Who says what: the repository writes and announces what the write changed (the
//! counts, and the notes as stored: `crate::actors::repository`); a use case adds
//! what only it knows: the worker's queue (`Enqueue`, `TrackJob`, `Forget`,
//! `ResumeNow`) and the usage events. By group:
//!
//! - [`capture`]: a thought stored at once, then queued for the AI;
//! - [`ai`]: retry every failed note, one note's AI asked for again;
//! - [`edit`]: a note edited by hand, a checklist item ticked, a tag renamed;
//! - [`lifecycle`]: trash, restore, keep, the expired to the trash, deletion for good,
//!   and the hourly purge of old trash (an interval task, [`lifecycle::purge_hourly`]);
//! - [`search`]: the hybrid search (the words and the meaning, merged);
//! - [`transfer`]: an import;
//! - [`ask`]: a question asked of the notes: the notes that match at once, then the
//!   model's answer streamed by the worker.

pub mod ai;
pub mod ask;
pub mod capture;
pub mod edit;
pub mod lifecycle;
pub mod search;
pub mod transfer;

use actix::MailboxError;

use crate::actors::ai_worker::AiWorkerActor;
use crate::actors::mailbox::Mailbox;
use crate::actors::repository::{Captures, RepositoryActor};
use crate::actors::telemetry::TelemetryActor;
use crate::clock::SharedClock;
use crate::storage::StoreError;

pub use edit::TickError;

/// The use cases, with the addresses they talk to. Cheap to clone: a route, the tray
/// and the purge each hold one.
#[derive(Clone)]
pub struct Inbox {
    repository: Mailbox<RepositoryActor>,
    /// Captures waiting for the repository's next commit (shared by the clones).
    captures: Captures,
    worker: Mailbox<AiWorkerActor>,
    telemetry: Mailbox<TelemetryActor>,
    clock: SharedClock,
    /// How long a note stays in the trash before the purge deletes it for good.
    trash_retention: chrono::Duration,
    /// The largest body (`http.max_body_bytes`): a ticked checklist is a body edit,
    /// held to the same limit as any other.
    max_body_bytes: usize,
}

/// What an `Inbox` is made of.
pub struct InboxWiring {
    pub repository: Mailbox<RepositoryActor>,
    pub worker: Mailbox<AiWorkerActor>,
    pub telemetry: Mailbox<TelemetryActor>,
    pub clock: SharedClock,
    pub trash_retention_days: u32,
    pub max_body_bytes: usize,
}

impl Inbox {
    pub fn new(wiring: InboxWiring) -> Self {
        Inbox {
            repository: wiring.repository,
            captures: Captures::default(),
            worker: wiring.worker,
            telemetry: wiring.telemetry,
            clock: wiring.clock,
            trash_retention: chrono::Duration::days(i64::from(wiring.trash_retention_days)),
            max_body_bytes: wiring.max_body_bytes,
        }
    }
}

/// The repository did not answer: it is stopping (or its thread is gone). Nothing was
/// written that the caller can rely on; the route says "try again later".
fn unavailable(e: MailboxError) -> StoreError {
    StoreError::Unavailable(format!("the repository is not running ({e})"))
}
