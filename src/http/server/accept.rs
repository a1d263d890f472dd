//! The accept loop on the HTTP thread and the connections it serves: the HTTP
//! service built for the first client and dropped after the last one, the connection
//! cap with its eviction of the oldest unproven connection (`connection.rs`), the pause
//! after an accept error, and the graceful stop (see `listener.rs` for the rules).

use std::collections::HashMap;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use actix_http::error::DispatchError;
use actix_rt::net::TcpListener;
use actix_service::boxed::BoxService;
use actix_service::Service;
use futures_util::future::LocalBoxFuture;
use tokio::sync::{mpsc, watch};
use tokio::task::{AbortHandle, JoinSet};

use super::connection::{oldest_unproven, ClientStream, Connection};
use super::handle::{ServerOptions, ServerStatus, Stop};

/// One connection's HTTP/1.1 service, type-erased.
pub(super) type ConnectionService =
    BoxService<(ClientStream, Option<SocketAddr>), (), DispatchError>;

/// Builds a [`ConnectionService`] around a fresh `App`.
pub(super) type BuildService =
    Box<dyn Fn() -> LocalBoxFuture<'static, Result<ConnectionService, String>> + Send>;

/// The accept loop and the connections it serves, on the HTTP thread.
pub(super) struct Connections {
    pub(super) build: BuildService,
    pub(super) options: ServerOptions,
    pub(super) status: watch::Sender<ServerStatus>,
}

/// Why accepting can pause: the process or system is out of file descriptors or memory.
fn is_resource_exhaustion(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(code) if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    )
}

// errno values, the same on every Linux architecture.
const EMFILE: i32 = 24;
const ENFILE: i32 = 23;
const ENOBUFS: i32 = 105;
const ENOMEM: i32 = 12;

/// Serves one connection to its end.
async fn serve_connection(service: Rc<ConnectionService>, stream: ClientStream, peer: SocketAddr) {
    if poll_fn(|cx| service.poll_ready(cx)).await.is_ok() {
        if let Err(e) = service.call((stream, Some(peer))).await {
            tracing::debug!(target: "inkling::http", %peer, error = ?e, "connection ended with an error");
        }
    }
}

/// The next connection on any of the listening sockets (127.0.0.1 and [::1]).
async fn accept_any(listeners: &[TcpListener]) -> io::Result<(tokio::net::TcpStream, SocketAddr)> {
    poll_fn(|cx| {
        for listener in listeners {
            if let std::task::Poll::Ready(incoming) = listener.poll_accept(cx) {
                return std::task::Poll::Ready(incoming);
            }
        }
        std::task::Poll::Pending
    })
    .await
}

/// How long accepting pauses after running out of file descriptors.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

impl Connections {
    /// The service a new connection is served by: the one built, or a new one when
    /// this is the only client. `None` (the connection is closed) if it cannot be built.
    async fn service_for_new_connection(
        &self,
        service: &mut Option<Rc<ConnectionService>>,
    ) -> Option<Rc<ConnectionService>> {
        if let Some(built) = service {
            return Some(Rc::clone(built));
        }
        match (self.build)().await {
            Ok(built) => {
                tracing::debug!(target: "inkling::http", "client connected; HTTP service built");
                Some(Rc::clone(service.insert(Rc::new(built))))
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot build the HTTP service; connection closed");
                None
            }
        }
    }

    /// Whether a new connection is another user's (`peer.rs`), to be closed at once.
    fn refuses(&self, stream: &tokio::net::TcpStream, peer: SocketAddr) -> bool {
        let Some(own_uid) = self.options.only_user else {
            return false;
        };
        let verdict = match stream.local_addr() {
            Ok(local) => super::peer::check(peer, local, own_uid),
            Err(_) => super::peer::PeerVerdict::Refused { uid: None },
        };
        verdict != super::peer::PeerVerdict::Allowed
    }

    pub(super) async fn serve(
        self,
        listeners: Vec<TcpListener>,
        mut commands: mpsc::UnboundedReceiver<Stop>,
    ) {
        let mut open = JoinSet::new();
        // The open connections by task, with what each is doing (for eviction).
        let mut connections: HashMap<tokio::task::Id, (Connection, AbortHandle)> = HashMap::new();
        let mut service: Option<Rc<ConnectionService>> = None;
        let mut accepted = 0u64;
        let mut evicted = 0u64;
        let mut refused = 0u64;
        let stage_changed = Rc::new(tokio::sync::Notify::new());
        // After EMFILE and the like, accepting waits until then; a stop does not.
        let mut accept_paused_until: Option<tokio::time::Instant> = None;
        let stop = loop {
            let at_cap = open.len() >= self.options.max_connections;
            // At the cap, a newcomer is taken only if someone unproven can make room;
            // when every connection is signed in, the next one to end or to become
            // unproven (its request done) lets accepting resume.
            let may_accept = accept_paused_until.is_none()
                && (!at_cap
                    || oldest_unproven(connections.values().map(|(c, _)| (c, ()))).is_some());
            let resume_at = accept_paused_until.unwrap_or_else(tokio::time::Instant::now);
            tokio::select! {
                // A stop first: once asked, no new connection is taken.
                biased;
                command = commands.recv() => break command,
                Some(ended) = open.join_next_with_id(), if !open.is_empty() => {
                    let id = match ended {
                        Ok((id, ())) => id,
                        Err(e) => e.id(),
                    };
                    connections.remove(&id);
                    if open.is_empty() {
                        // The last client left: drop the service and its date timer.
                        service = None;
                        tracing::debug!(target: "inkling::http", "no connection open; HTTP service dropped");
                    }
                }
                // Before the accept: a connection signed in or unproven again changes
                // whether the cap leaves room, so the loop decides again first.
                () = stage_changed.notified() => {}
                () = tokio::time::sleep_until(resume_at), if accept_paused_until.is_some() => {
                    accept_paused_until = None;
                }
                incoming = accept_any(&listeners), if may_accept => match incoming {
                    Ok((stream, peer)) if self.refuses(&stream, peer) => {
                        // Dropped: closed before a byte of it is read.
                        drop(stream);
                        refused += 1;
                        // The 1st, 2nd, 4th, 8th…: enough to notice, never a flood.
                        if refused.is_power_of_two() {
                            tracing::info!(%peer, refused, "a connection from another user's program closed (this many so far)");
                        }
                    }
                    Ok((stream, peer)) => {
                        if open.len() >= self.options.max_connections {
                            if let Some(victim) = oldest_unproven(connections.values().map(|(c, abort)| (c, abort))) {
                                // Dropping its task closes the socket.
                                victim.abort();
                                evicted += 1;
                                tracing::debug!(target: "inkling::http", %peer, "at the connection cap; evicted the oldest unproven connection");
                            }
                        }
                        if let Some(built) = self.service_for_new_connection(&mut service).await {
                            accepted += 1;
                            // Responses are small and whole: no reason to wait for Nagle.
                            let _ = stream.set_nodelay(true);
                            let connection = Connection::new(accepted, stage_changed.clone());
                            let client = ClientStream::new(stream, connection.clone());
                            let task = open.spawn_local(serve_connection(built, client, peer));
                            connections.insert(task.id(), (connection, task));
                        }
                    }
                    Err(e) if is_resource_exhaustion(&e) => {
                        tracing::warn!(error = %e, "cannot accept connections; pausing 100 ms");
                        accept_paused_until = Some(tokio::time::Instant::now() + ACCEPT_ERROR_PAUSE);
                    }
                    Err(e) => tracing::debug!(target: "inkling::http", error = %e, "accept failed"),
                },
            }
            self.status.send_replace(ServerStatus {
                connections: open.len(),
                service_built: service.is_some(),
                accepted,
                evicted,
                refused,
                stopping: false,
            });
        };

        // Stopping: no new connections from here on.
        drop(listeners);
        self.status.send_modify(|status| status.stopping = true);
        let (graceful, done) = match stop {
            Some(Stop { graceful, done }) => (graceful, Some(done)),
            None => (false, None), // every handle is gone
        };
        if graceful && !open.is_empty() {
            let grace = self.options.shutdown_grace;
            tracing::info!(
                connections = open.len(),
                ?grace,
                "waiting for open connections"
            );
            let drained =
                tokio::time::timeout(grace, async { while open.join_next().await.is_some() {} });
            if drained.await.is_err() {
                tracing::info!(
                    connections = open.len(),
                    "grace period over; closing connections"
                );
            }
        }
        open.shutdown().await;
        drop(service);
        self.status.send_replace(ServerStatus {
            connections: 0,
            service_built: false,
            accepted,
            evicted,
            refused,
            stopping: true,
        });
        tracing::info!("HTTP server stopped");
        if let Some(done) = done {
            let _ = done.send(());
        }
        // Later stop requests find the channel closed and return at once.
        commands.close();
        while let Some(Stop { done, .. }) = commands.recv().await {
            let _ = done.send(());
        }
    }
}
