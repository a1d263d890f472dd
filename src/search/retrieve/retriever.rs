//! [`Retriever`]: the addresses retrieval talks to, and the clock its reads are made at.

use actix::MailboxError;

use crate::actors::ai_worker::AiWorkerActor;
use crate::actors::mailbox::Mailbox;
use crate::actors::repository::RepositoryActor;
use crate::clock::SharedClock;
use crate::storage::StoreError;

/// Finds notes for a person's words. Cheap to clone: the inbox holds one.
#[derive(Clone)]
pub struct Retriever {
    pub(super) repository: Mailbox<RepositoryActor>,
    pub(super) worker: Mailbox<AiWorkerActor>,
    pub(super) clock: SharedClock,
}

impl Retriever {
    pub fn new(
        repository: Mailbox<RepositoryActor>,
        worker: Mailbox<AiWorkerActor>,
        clock: SharedClock,
    ) -> Self {
        Retriever {
            repository,
            worker,
            clock,
        }
    }
}

/// The repository did not answer: it is stopping (or its thread is gone); the route
/// says "try again later".
pub(super) fn unavailable(e: MailboxError) -> StoreError {
    StoreError::Unavailable(format!("the repository is not running ({e})"))
}
