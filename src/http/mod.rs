//! The local HTTP API (actix-web on 127.0.0.1), in two parts that meet only in
//! `startup.rs`:
//!
//! - [`server`]: the transport, which knows nothing of notes: the listener and its
//!   thread, each client connection, request bodies within a deadline, the Host/Origin
//!   guard;
//! - [`routes`]: the route table and the handlers, one file per resource;
//!
//! and what both sides of the table share:
//!
//! - [`state`]: `AppState`, what every route can reach;
//! - [`auth`]: the credential check (the token, a page's session, or a paired device);
//! - [`scopes`]: which routes a capture-only device may reach (the rest need full scope);
//! - [`live_feeds`]: the count of open live feeds and its cap, which `AppState` holds;
//! - [`error`]: `ApiError` and the JSON error body.

pub mod auth;
pub mod error;
pub mod live_feeds;
pub mod routes;
pub mod scopes;
pub mod server;
pub mod state;

pub use routes::configure;
pub use state::AppState;
