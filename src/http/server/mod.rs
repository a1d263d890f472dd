//! The transport: how bytes get from a client to a route and back, knowing nothing of
//! notes. It owns
//!
//! - [`listener`]: the listener and its thread, the HTTP service built on the first
//!   connection and dropped with the last one, the connection cap, graceful stop;
//! - [`connection`]: one client connection: what it is doing (eviction at the cap),
//!   closing it after a refusal;
//! - [`body`]: request bodies read whole, within a deadline and a size limit;
//! - [`guard`]: the Host/Origin guard in front of everything.
//!
//! What a request means, and who may send it, is the routes' and `auth.rs`'s.

pub mod body;
pub mod connection;
pub mod guard;
pub mod listener;

pub use listener::{RunningServer, Server, ServerHandle, ServerOptions, ServerStatus};
