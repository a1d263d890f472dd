//! The wire types: everything the service sends or takes over HTTP, as plain serde
//! types, so the routes that write them and the CLI that reads them share one
//! definition (a renamed field fails to compile instead of reading as `null`).
//!
//! The ground floor: nothing here imports the actors, the HTTP layer, the CLI or
//! storage; the types are built from the domain's nouns. The worker produces
//! [`worker`]'s types but does not own them.
//!
//! - [`status`]: `GET /api/status` (`ServiceStatus`, the per-actor counters, the limits);
//! - [`provider`]: the provider's health;
//! - [`worker`]: what the AI worker is doing, its slow notes and the model's time;
//! - [`notes`]: a note as the API returns it, and a note's detail;
//! - [`search`]: `GET /api/search`'s answer (the hybrid search's hits, the quiet line);
//! - [`requests`]: the bodies and query strings the routes take;
//! - [`replies`]: the small answers (`{"count": n}`, `{"path": …}`, …);
//! - [`ask`]: `POST /api/ask`'s question and the events its answer streams;
//! - [`live`]: `LiveEvent`, the server-sent events of `GET /api/events`, written in one
//!   place;
//! - [`pull`]: a model download's progress (the NDJSON lines and the live event);
//! - [`changes`]: `GET /api/changes`, the change log a page at a time;
//! - [`devices`]: scopes, pairing a device (the web clipper), a clipped page;
//! - [`ids`]: a note named by the start of its id, and short ids;
//! - [`reminders`]: `GET /api/reminders`, the reminders up to a time;
//! - [`voice`]: a voice note's recording (its formats, why one is refused) and
//!   `GET /api/transcription`'s answer.

pub mod ask;
pub mod changes;
pub mod devices;
pub mod ids;
pub mod live;
pub mod notes;
pub mod provider;
pub mod pull;
pub mod reminders;
pub mod replies;
pub mod requests;
pub mod search;
pub mod status;
pub mod voice;
pub mod worker;
