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
//!   the hourly upkeep: old trash purged, the change log compacted (an interval task,
//!   [`lifecycle::hourly_upkeep`]);
//! - [`search`]: the hybrid search (the words and the meaning, merged: `crate::search`);
//! - [`transfer`]: an import;
//! - [`voice`]: a voice note's recording stored at once, then transcribed by the voice
//!   notes' worker;
//! - [`ask`]: a question asked of the notes: the notes that match at once, then the
//!   model's answer streamed by the worker.

pub mod ai;
pub mod ask;
pub mod capture;
pub mod edit;
pub mod lifecycle;
pub mod reminders;
pub mod search;
pub mod transfer;
pub mod voice;
mod wiring;

pub use edit::TickError;
use wiring::unavailable;
pub use wiring::{Inbox, InboxWiring};
