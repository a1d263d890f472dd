//! The transport: how bytes get from a client to a route and back, knowing nothing of
//! notes. It owns
//!
//! - [`bind`]: the sockets it listens on, `[::1]` beside 127.0.0.1;
//! - [`listener`]: the server bound to its socket and started on a thread of its own,
//!   stopped by SIGINT/SIGTERM; why it is not actix-web's `HttpServer`;
//! - `accept`: the accept loop, the HTTP service built on the first connection and
//!   dropped with the last one, the connection cap, the graceful stop;
//! - [`handle`]: what other threads hold: the handle that stops and watches the
//!   server, its status, its options;
//! - [`connection`]: one client connection: what it is doing (eviction at the cap),
//!   closing it after a refusal;
//! - [`body`]: request bodies read whole, within a deadline and a size limit;
//! - [`guard`]: the Host/Origin guard in front of everything;
//! - [`peer`]: only the user's own programs may connect (the client socket's owner);
//! - [`service_worker`]: no service worker: a worker script's fetch gets one that
//!   unregisters itself.
//!
//! What a request means, and who may send it, is the routes' and `auth.rs`'s.

mod accept;
pub mod bind;
pub mod body;
pub mod connection;
pub mod guard;
pub mod handle;
pub mod listener;
pub mod peer;
pub mod service_worker;

pub use handle::{ServerHandle, ServerOptions, ServerStatus};
pub use listener::{RunningServer, Server};
