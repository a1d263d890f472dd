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

use std::fmt;
use std::io;

use actix_http::body::MessageBody;
use actix_http::{HttpService, Request, Response};
use actix_rt::net::TcpListener;
use actix_service::{map_config, IntoServiceFactory, Service, ServiceFactory, ServiceFactoryExt};
use actix_web::dev::AppConfig;
use tokio::sync::{mpsc, oneshot, watch};

use super::accept::{BuildService, Connections};
use super::connection::ClientStream;
use super::handle::{ServerHandle, ServerOptions, ServerStatus, Stop};

/// A server bound to its socket, not yet serving: its handle can go into the app (the
/// live feed ends its streams when the server stops).
pub struct Server {
    /// The first is the address the service is known by; others (`[::1]` beside
    /// 127.0.0.1) are served alike.
    listeners: Vec<std::net::TcpListener>,
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
    /// A server on `listeners` (at least one; the first is the one it is known by).
    pub fn new(listeners: Vec<std::net::TcpListener>, options: ServerOptions) -> Server {
        let (commands, command_receiver) = mpsc::unbounded_channel();
        let (status_sender, status) = watch::channel(ServerStatus::default());
        Server {
            listeners,
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
            listeners,
            options,
            handle,
            commands,
            status,
        } = self;
        let local_addr = listeners
            .first()
            .ok_or_else(|| io::Error::other("no socket to listen on"))?
            .local_addr()?;
        for listener in &listeners {
            listener.set_nonblocking(true)?;
        }
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
                let result = match listeners
                    .into_iter()
                    .map(TcpListener::from_std)
                    .collect::<io::Result<Vec<_>>>()
                {
                    Ok(listeners) => {
                        let connections = Connections {
                            build,
                            options,
                            status,
                        };
                        connections.serve(listeners, commands).await;
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
