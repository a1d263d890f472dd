//! What other threads hold of the server: [`ServerHandle`], which stops it and watches
//! it, the [`ServerStatus`] it watches, and the [`ServerOptions`] the server runs with.

use std::future::Future;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

/// Limits of the server. `Default` is what the service runs with.
#[derive(Debug, Clone, Copy)]
pub struct ServerOptions {
    /// Open connections at most: at the cap a newcomer evicts the oldest connection
    /// with no credential shown, or waits when every one is signed in.
    pub max_connections: usize,
    /// How long open connections get to finish after a graceful stop.
    pub shutdown_grace: Duration,
    /// How long an idle kept-alive connection stays open.
    pub keep_alive: Duration,
    /// The only user whose programs may connect (`peer.rs`); `None`: anyone (where the
    /// socket tables cannot be read).
    pub only_user: Option<u32>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            // A browser holds at most six per host plus the live feed; the CLI one.
            max_connections: 256,
            shutdown_grace: Duration::from_secs(5),
            keep_alive: Duration::from_secs(5),
            only_user: Some(crate::socket_owner::own_uid()),
        }
    }
}

/// What the server is doing (tests watch it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerStatus {
    /// Connections open now.
    pub connections: usize,
    /// Whether the HTTP service (and actix-http's date timer) exists now.
    pub service_built: bool,
    /// Connections accepted since start.
    pub accepted: u64,
    /// Connections closed at the cap to make room for a newcomer, since start.
    pub evicted: u64,
    /// Connections from another user's program closed at their accept, since start.
    pub refused: u64,
    /// A stop was asked for: the listening socket is closed.
    pub stopping: bool,
}

/// Stops the server, from any thread.
#[derive(Clone)]
pub struct ServerHandle {
    pub(super) commands: mpsc::UnboundedSender<Stop>,
    pub(super) status: watch::Receiver<ServerStatus>,
}

/// A stop asked for, sent to the accept loop; `done` is told when the server has stopped.
pub(super) struct Stop {
    pub(super) graceful: bool,
    pub(super) done: oneshot::Sender<()>,
}

impl ServerHandle {
    /// Stops the server: at once, or gracefully (see `listener.rs`). The future
    /// resolves when the server has stopped; stopping a stopped server is a no-op.
    pub fn stop(&self, graceful: bool) -> impl Future<Output = ()> {
        let (done, stopped) = oneshot::channel();
        let sent = self.commands.send(Stop { graceful, done });
        async move {
            if sent.is_ok() {
                let _ = stopped.await;
            }
        }
    }

    /// What the server is doing now.
    pub fn status(&self) -> ServerStatus {
        *self.status.borrow()
    }

    /// Resolves once a stop is asked for (or the server is gone). Long responses (the
    /// live feed) end on it, so that a graceful stop need not wait out its grace period.
    pub fn stopping(&self) -> impl Future<Output = ()> + 'static {
        let mut status = self.status.clone();
        async move {
            let _ = status.wait_for(|status| status.stopping).await;
        }
    }

    /// A receiver that sees every change of [`ServerStatus`].
    pub fn watch_status(&self) -> watch::Receiver<ServerStatus> {
        self.status.clone()
    }
}
