//! The HTTP server: actix-web's `App` served by actix-http on one thread, with the
//! HTTP service built on the first connection and dropped with the last one.
//!
//! Why not `actix_web::HttpServer`: actix-http keeps its cached `Date` header fresh with
//! a 500 ms interval for as long as a service configuration exists, requests or not.
//! Under `HttpServer` that is the whole life of the process: ~4 wake-ups a second of an
//! otherwise idle desktop service, four times the idle budget (docs/PERFORMANCE.md).
//! Here the service, and that interval with it, exists only while a client is
//! connected; idle, the HTTP thread sleeps in `accept` with no timer at all.
//!
//! What `HttpServer` did that this keeps:
//! - one worker thread of its own, so HTTP parsing never delays an actor;
//! - a cap on open connections. Unlike `HttpServer`, a newcomer at the cap evicts the
//!   oldest connection that has shown no credential (`connection.rs`), so silent
//!   connections from anybody on the machine cannot lock the user out; only when every
//!   open connection is signed in does accepting pause (the kernel's backlog holds
//!   newcomers) until one closes;
//! - an accept error such as EMFILE pauses accepting for 100 ms, never ends the server;
//! - SIGINT/SIGTERM → graceful stop (a second signal stops at once);
//! - a graceful stop closes the listening socket and idle kept-alive connections, lets
//!   long responses that watch [`ServerHandle::stopping`] end (the live feed), gives the
//!   requests in hand up to the grace period, then drops what is left.
//!
//! Request-head and keep-alive timeouts are actix-http's (5 s each, as under
//! `HttpServer`); the body has its deadline in `body.rs`. A client that closes its
//! side is not kept half-open: its connection ends at once, a live feed's included.

use std::collections::HashMap;
use std::fmt;
use std::future::{poll_fn, Future};
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use actix_http::body::MessageBody;
use actix_http::error::DispatchError;
use actix_http::{HttpService, Request, Response};
use actix_rt::net::TcpListener;
use actix_service::boxed::BoxService;
use actix_service::{map_config, IntoServiceFactory, Service, ServiceFactory, ServiceFactoryExt};
use actix_web::dev::AppConfig;
use futures_util::future::LocalBoxFuture;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{AbortHandle, JoinSet};

use super::connection::{oldest_unproven, ClientStream, Connection};

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
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            // A browser holds at most six per host plus the live feed; the CLI one.
            max_connections: 256,
            shutdown_grace: Duration::from_secs(5),
            keep_alive: Duration::from_secs(5),
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
    /// A stop was asked for: the listening socket is closed.
    pub stopping: bool,
}

/// Stops the server, from any thread.
#[derive(Clone)]
pub struct ServerHandle {
    commands: mpsc::UnboundedSender<Stop>,
    status: watch::Receiver<ServerStatus>,
}

struct Stop {
    graceful: bool,
    done: oneshot::Sender<()>,
}

impl ServerHandle {
    /// Stops the server: at once, or gracefully (see the module docs). The future
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

/// A server bound to its socket, not yet serving: its handle can go into the app (the
/// live feed ends its streams when the server stops).
pub struct Server {
    listener: std::net::TcpListener,
    options: ServerOptions,
    handle: ServerHandle,
    commands: mpsc::UnboundedReceiver<Stop>,
    status: watch::Sender<ServerStatus>,
}

/// A serving server; `run` waits for its end.
pub struct RunningServer {
    handle: ServerHandle,
    finished: oneshot::Receiver<io::Result<()>>,
    thread: actix_rt::Arbiter,
}

impl Server {
    pub fn new(listener: std::net::TcpListener, options: ServerOptions) -> Server {
        let (commands, command_receiver) = mpsc::unbounded_channel();
        let (status_sender, status) = watch::channel(ServerStatus::default());
        Server {
            listener,
            options,
            handle: ServerHandle { commands, status },
            commands: command_receiver,
            status: status_sender,
        }
    }

    pub fn handle(&self) -> ServerHandle {
        self.handle.clone()
    }

    /// Starts serving on a new thread, with `app` making the actix-web `App` each time
    /// the service is built. Must be called inside an actix `System`.
    pub fn start<F, I, S, B>(self, app: F) -> io::Result<RunningServer>
    where
        F: Fn() -> I + Send + Clone + 'static,
        I: IntoServiceFactory<S, Request> + 'static,
        S: ServiceFactory<Request, Config = AppConfig> + 'static,
        S::Error: Into<actix_web::Error> + 'static,
        S::InitError: fmt::Debug,
        S::Response: Into<Response<B>> + 'static,
        <S::Service as Service<Request>>::Future: 'static,
        S::Service: 'static,
        B: MessageBody + 'static,
    {
        let Server {
            listener,
            options,
            handle,
            commands,
            status,
        } = self;
        let local_addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let keep_alive = options.keep_alive;
        let stop_signal = handle.clone();
        // Builds actix-http's HTTP/1.1 service around a fresh `App`, as `HttpServer` does
        // for each of its workers. The graceful-shutdown signal is actix-http's
        // `#[doc(hidden)]` builder method that `HttpServer` itself calls: on a stop, idle
        // kept-alive connections close at once and busy ones after their response;
        // without it a stop would wait out every idle browser connection's keep-alive.
        // (Pinned by Cargo.lock; `a_graceful_stop_closes_idle_kept_alive_connections_at_once`
        // notices a change.)
        let build: BuildService = Box::new(move || {
            let app = app().into_factory().map_err(|e| e.into().error_response());
            let server = stop_signal.clone();
            Box::pin(async move {
                let service = HttpService::build()
                    .local_addr(local_addr)
                    .keep_alive(keep_alive)
                    // A client that closes its side has left: end the connection even
                    // while an answer streams (a departed live feed frees its slot).
                    .h1_allow_half_closed(false)
                    // The routes reach their connection through `conn_data`.
                    .on_connect_ext(|stream: &ClientStream, data| {
                        data.insert(stream.connection().clone());
                    })
                    .graceful_shutdown_signal(move || server.stopping())
                    .h1(map_config(app, |_| AppConfig::default()))
                    .new_service(())
                    .await
                    .map_err(|e| format!("{e:?}"))?;
                Ok(actix_service::boxed::service(service))
            })
        });
        let (finish, finished) = oneshot::channel();
        let thread = actix_rt::Arbiter::new();
        let spawned = thread.spawn_fn(move || {
            actix_rt::spawn(async move {
                let result = match TcpListener::from_std(listener) {
                    Ok(listener) => {
                        let connections = Connections {
                            build,
                            options,
                            status,
                        };
                        connections.serve(listener, commands).await;
                        Ok(())
                    }
                    Err(e) => Err(e),
                };
                let _ = finish.send(result);
            });
        });
        if !spawned {
            return Err(io::Error::other("the HTTP thread did not start"));
        }
        Ok(RunningServer {
            handle,
            finished,
            thread,
        })
    }
}

impl RunningServer {
    pub fn handle(&self) -> ServerHandle {
        self.handle.clone()
    }

    /// Serves until stopped by a handle or by SIGINT/SIGTERM (a second signal while
    /// stopping gracefully stops at once).
    pub async fn run(self) -> io::Result<()> {
        let RunningServer {
            handle,
            mut finished,
            thread,
        } = self;
        let mut stop_signals = StopSignals::install()?;
        let result = tokio::select! {
            result = &mut finished => result,
            signal = stop_signals.next() => {
                tracing::info!(signal, "stop signal received; stopping gracefully");
                let stopping = handle.stop(true);
                tokio::pin!(stopping);
                tokio::select! {
                    () = &mut stopping => {}
                    signal = stop_signals.next() => {
                        tracing::info!(signal, "second stop signal; stopping now");
                        handle.stop(false).await;
                    }
                }
                finished.await
            }
        };
        thread.stop();
        result.unwrap_or_else(|_| Err(io::Error::other("the HTTP thread ended unexpectedly")))
    }
}

/// SIGINT and SIGTERM, as a stream of names.
struct StopSignals {
    interrupt: actix_rt::signal::unix::Signal,
    terminate: actix_rt::signal::unix::Signal,
}

impl StopSignals {
    fn install() -> io::Result<Self> {
        use actix_rt::signal::unix::{signal, SignalKind};
        Ok(StopSignals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
        }
    }
}

/// One connection's HTTP/1.1 service, type-erased.
type ConnectionService = BoxService<(ClientStream, Option<SocketAddr>), (), DispatchError>;

/// Builds a [`ConnectionService`] around a fresh `App`.
type BuildService =
    Box<dyn Fn() -> LocalBoxFuture<'static, Result<ConnectionService, String>> + Send>;

/// The accept loop and the connections it serves, on the HTTP thread.
struct Connections {
    build: BuildService,
    options: ServerOptions,
    status: watch::Sender<ServerStatus>,
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

    async fn serve(self, listener: TcpListener, mut commands: mpsc::UnboundedReceiver<Stop>) {
        let mut open = JoinSet::new();
        // The open connections by task, with what each is doing (for eviction).
        let mut connections: HashMap<tokio::task::Id, (Connection, AbortHandle)> = HashMap::new();
        let mut service: Option<Rc<ConnectionService>> = None;
        let mut accepted = 0u64;
        let mut evicted = 0u64;
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
                incoming = listener.accept(), if may_accept => match incoming {
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
                stopping: false,
            });
        };

        // Stopping: no new connections from here on.
        drop(listener);
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
