//! One client connection, as the server and the routes both see it: what it is doing
//! (so that, at the connection cap, a stranger's connection goes before the user's),
//! and a way for a route to end it after its answer.
//!
//! Why this exists: a few hundred silent connections (a request head, then no body; a
//! chunked body that never ends; live feeds left open) would otherwise fill the
//! server's 256 slots, and every capture, page load and CLI call would wait for as long
//! as they stayed. Three rules, written here and in `listener.rs`, make that impossible:
//!
//! - **At the cap, the oldest connection that has shown no credential goes.** A
//!   connection is [`Stage::Unproven`] from its accept until a request on it passes the
//!   credential check, and again between requests. A newcomer at the cap evicts the
//!   oldest such connection instead of waiting behind it; a request that carried the
//!   token or a session, and the live feed, are never evicted (the feeds have their own
//!   cap, `routes/live.rs`, well below the connection cap). Whoever floods the port only pushes
//!   out their own connections.
//! - **A refused request ends its connection.** After 401, 403, 408 or 413 the
//!   server stops reading ([`Connection::close_after_response`]): it neither drains a
//!   body nobody wants nor waits for the next request.
//! - **A client that hangs up is gone at once**: the server reads the end of its stream
//!   even while it streams an answer (half-closed connections are not kept, see
//!   `listener.rs`), so a departed live feed frees its slot when the client leaves.
//!
//! - **Pipelined requests cannot pile up in memory.** actix-http reads up to 32 KiB at a
//!   time and parses every request in it before answering any: 256 connections of
//!   pipelined `GET /assets/app.js` (600 requests a read) took the service from 23 MB
//!   to 3.4 GB in 10 s (heaptrack: the parsed requests queued in its dispatcher), kept
//!   until restart. [`ClientStream`] hands it at most [`READ_PER_TURN`] bytes a turn,
//!   then lets it answer before reading on; and it reads nothing while the client leaves
//!   its answers unread (the last write found the socket full).
//!
//! [`ClientStream`] is the socket as actix-http sees it: it reads nothing more once the
//! connection is to close, reads as above, and gives the answers actix-http makes
//! itself (431 for an oversized head, 400 for one that is not HTTP) a JSON body like
//! every other answer.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use actix_rt::net::TcpStream;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::ConnectionType;
use actix_web::middleware::Next;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::api::replies::Refusal;

/// The most a connection's task reads before it lets actix-http answer what came (see
/// the module header): a request head or two from a browser, a capture's body in a few
/// turns; a few dozen pipelined requests at most.
pub const READ_PER_TURN: usize = 2048;

/// What a connection is doing, for the choice of whom to evict at the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Accepted and not yet past the credential check, or idle between requests:
    /// anybody on the machine could be holding it. Evicted first, oldest first.
    Unproven,
    /// Handling a request that carried the token or a session.
    Authenticated,
    /// Streaming the live feed to a signed-in page.
    LiveFeed,
}

struct Shared {
    /// Accept order: the oldest unproven connection is the one evicted.
    accepted: u64,
    stage: Cell<Stage>,
    closing: Cell<bool>,
    /// The connection's task, woken when it is to close (it may be waiting to read).
    reader: RefCell<Option<Waker>>,
    /// The server's accept loop, told when a connection moves in or out of unproven:
    /// whether it may take a newcomer at the cap depends on it, and it must decide
    /// again before it accepts (else a connection signed in while the loop was waiting
    /// to accept would let a newcomer in past the cap with nobody to evict).
    stage_changed: Rc<tokio::sync::Notify>,
}

/// A handle on one connection, shared by the server's accept loop and (through
/// actix-http's connection data, `HttpRequest::conn_data`) the routes.
#[derive(Clone)]
pub struct Connection(Rc<Shared>);

impl Connection {
    pub fn new(accepted: u64, stage_changed: Rc<tokio::sync::Notify>) -> Connection {
        Connection(Rc::new(Shared {
            accepted,
            stage: Cell::new(Stage::Unproven),
            closing: Cell::new(false),
            reader: RefCell::new(None),
            stage_changed,
        }))
    }

    pub fn accepted(&self) -> u64 {
        self.0.accepted
    }

    pub fn stage(&self) -> Stage {
        self.0.stage.get()
    }

    pub fn set_stage(&self, stage: Stage) {
        let was = self.0.stage.replace(stage);
        if (stage == Stage::Unproven) != (was == Stage::Unproven) {
            self.0.stage_changed.notify_one();
        }
    }

    /// Ends the connection once the answer in hand is written: nothing more is read
    /// from it, neither the rest of a body nor another request.
    pub fn close_after_response(&self) {
        self.0.closing.set(true);
        if let Some(waker) = self.0.reader.borrow_mut().take() {
            waker.wake();
        }
    }

    fn closing(&self) -> bool {
        self.0.closing.get()
    }

    fn remember_reader(&self, waker: &Waker) {
        let mut reader = self.0.reader.borrow_mut();
        if !reader.as_ref().is_some_and(|known| known.will_wake(waker)) {
            *reader = Some(waker.clone());
        }
    }
}

/// Of the open connections (each with what the caller needs to end it), the one to
/// evict for a newcomer at the cap: the oldest unproven one.
pub fn oldest_unproven<'a, T>(open: impl IntoIterator<Item = (&'a Connection, T)>) -> Option<T> {
    open.into_iter()
        .filter(|(connection, _)| connection.stage() == Stage::Unproven)
        .min_by_key(|(connection, _)| connection.accepted())
        .map(|(_, handle)| handle)
}

/// Whether an answer with this status ends its connection: the request was refused
/// (no credential, a foreign host or origin, a body too slow or too large), and
/// whatever the client sends next on it is not wanted.
pub fn ends_the_connection(status: actix_web::http::StatusCode) -> bool {
    matches!(status.as_u16(), 401 | 403 | 408 | 413)
}

/// The outermost middleware: ends the connection after a refusal
/// ([`ends_the_connection`]), saying so with `Connection: close`.
pub async fn end_after_refusal(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // Not the request itself: a second handle on it would stop the router.
    let connection = req.conn_data::<Connection>().cloned();
    let end = |status| {
        let ends = ends_the_connection(status);
        if let (true, Some(connection)) = (ends, &connection) {
            connection.close_after_response();
        }
        ends
    };
    match next.call(req).await {
        Ok(mut response) => {
            if end(response.status()) {
                response
                    .response_mut()
                    .head_mut()
                    .set_connection_type(ConnectionType::Close);
            }
            Ok(response.map_into_boxed_body())
        }
        // A middleware's error (routes answer theirs themselves) becomes its answer
        // in actix-http.
        Err(error) => {
            end(error.as_response_error().status_code());
            Err(error)
        }
    }
}

/// Marks the connection signed in while `work` runs (the credential check calls this
/// once a request has passed it), and unproven again after, unless it became a live
/// feed meanwhile.
pub async fn signed_in<F: std::future::Future>(
    connection: Option<Connection>,
    work: F,
) -> F::Output {
    if let Some(connection) = &connection {
        connection.set_stage(Stage::Authenticated);
    }
    let output = work.await;
    if let Some(connection) = connection {
        if connection.stage() == Stage::Authenticated {
            connection.set_stage(Stage::Unproven);
        }
    }
    output
}

/// How long a connection that is to close still reads (and throws away) what the
/// client sends, at most, and how much. Closing a socket with unread data makes the
/// kernel send a reset, and a client still sending its body when the refusal came
/// would lose the answer to it; a client that has read the answer and hung up ends
/// the wait at once.
const LINGER: std::time::Duration = std::time::Duration::from_secs(2);
const LINGER_BYTES: usize = 1 << 20;

/// The socket as actix-http reads and writes it (see the module docs).
pub struct ClientStream {
    io: TcpStream,
    connection: Connection,
    /// Once the connection is to close: until when, and how much, it still reads.
    linger: Option<(Pin<Box<tokio::time::Sleep>>, usize)>,
    /// A JSON answer written in place of one of actix-http's bare ones, not yet sent.
    replacement: Option<(Vec<u8>, usize)>,
    /// Bytes read in this turn of the connection's task (see [`READ_PER_TURN`]).
    read_this_turn: usize,
    /// The last write found the socket full: the client is not reading its answers,
    /// so none of its requests are read until a write goes through (the write's
    /// readiness wakes the connection's task, which then reads again).
    answers_unread: bool,
}

impl ClientStream {
    pub fn new(io: TcpStream, connection: Connection) -> ClientStream {
        ClientStream {
            io,
            connection,
            linger: None,
            replacement: None,
            read_this_turn: 0,
            answers_unread: false,
        }
    }

    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Writes what is left of a replacement answer; ready once it is all out.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.replacement {
            if *written == bytes.len() {
                self.replacement = None;
                break;
            }
            let n = std::task::ready!(Pin::new(&mut self.io).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for ClientStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.connection.closing() {
            this.connection.remember_reader(cx.waker());
            if this.answers_unread {
                return Poll::Pending;
            }
            if this.read_this_turn >= READ_PER_TURN {
                // Enough for one turn: actix-http answers what it has, and this task
                // comes back at once to read on.
                this.read_this_turn = 0;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            let room = buf.remaining().min(READ_PER_TURN - this.read_this_turn);
            // Read through a small piece of memory of the turn's size (a copy of at
            // most 2 KiB, no unsafe code), then hand it over.
            let mut scratch = [0u8; READ_PER_TURN];
            let mut piece = ReadBuf::new(&mut scratch[..room]);
            let read = Pin::new(&mut this.io).poll_read(cx, &mut piece);
            if read.is_ready() {
                buf.put_slice(piece.filled());
                this.read_this_turn += piece.filled().len();
            } else {
                this.read_this_turn = 0;
            }
            return read;
        }
        // To close: what arrives is thrown away, and the end of the stream comes when
        // the client hangs up or the linger is over. actix-http then finishes the
        // answer in hand and closes.
        let (deadline, discarded) = this
            .linger
            .get_or_insert_with(|| (Box::pin(tokio::time::sleep(LINGER)), 0));
        let mut scratch = [0u8; 8192];
        loop {
            if *discarded > LINGER_BYTES || deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ok(()));
            }
            let mut thrown = ReadBuf::new(&mut scratch);
            match Pin::new(&mut this.io).poll_read(cx, &mut thrown) {
                Poll::Ready(Ok(())) if thrown.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => *discarded += thrown.filled().len(),
                // Gone or broken: either way, the end.
                Poll::Ready(Err(_)) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl AsyncWrite for ClientStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_replacement(cx))?;
        if let Some(answer) = json_for_bare_error(buf) {
            // actix-http writes its own error answers whole, and closes after them.
            this.replacement = Some((answer, 0));
            std::task::ready!(this.poll_replacement(cx))?;
            return Poll::Ready(Ok(buf.len()));
        }
        let written = Pin::new(&mut this.io).poll_write(cx, buf);
        let was_unread = this.answers_unread;
        this.answers_unread = written.is_pending();
        if was_unread && !this.answers_unread {
            // Reads were held back, so the socket's readiness to read was never asked
            // for and nothing would wake this task for requests already waiting:
            // actix-http reads before it writes, so one more turn reads them now.
            cx.waker().wake_by_ref();
        }
        written
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
}

/// When `buf` is one of the answers actix-http makes itself, before any route runs (a
/// 4xx or 5xx head with `content-length: 0`: every answer of inkling's own routes has
/// a JSON body), the same answer with a JSON body that says what went wrong.
///
/// actix-http writes such an answer in one piece at the start of its buffer, then
/// closes the connection, so looking at the start of a write finds it; no body inkling
/// sends starts with an HTTP status line (they are JSON, event frames or the page's
/// own assets).
pub fn json_for_bare_error(buf: &[u8]) -> Option<Vec<u8>> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&buf[..head_end]).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let rest = status_line.strip_prefix("HTTP/1.1 ")?;
    let (code, reason) = rest.split_once(' ').unwrap_or((rest, ""));
    let code: u16 = code.parse().ok()?;
    if !(400..600).contains(&code) {
        return None;
    }
    let empty = lines.any(|line| line.eq_ignore_ascii_case("content-length: 0"));
    if !empty {
        return None;
    }
    let error = match code {
        431 => "the request's headers are too large; send fewer or shorter headers",
        400 => "the request is not valid HTTP",
        408 => "the request took too long to arrive",
        _ => "the request could not be handled",
    };
    let body = serde_json::to_string(&Refusal::new(error)).unwrap_or_default();
    Some(
        format!(
            "HTTP/1.1 {code} {reason}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

#[cfg(test)]
mod tests;
