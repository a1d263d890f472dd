//! What every fake model server in the tests shares: a loopback listener that can be
//! stopped (connection refused) and started again on the same port, and just enough
//! HTTP/1.1 to read one request and answer it on a connection that then closes.
//!
//! The fakes run on the test's own runtime, so they follow tokio's paused clock. Ports
//! come from `ports::free_port`, below the kernel's ephemeral range, so while a fake
//! is stopped no outgoing connection can take its port (or connect to itself on it).
#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::ports::free_port;

pub const JSON: &str = "application/json; charset=utf-8";

type Handler = Rc<dyn Fn(TcpStream) -> LocalBoxFuture<'static, ()>>;

/// A listening socket whose every connection goes to one handler.
pub struct FakeListener {
    pub addr: SocketAddr,
    handler: Handler,
    accept: Option<JoinHandle<()>>,
    /// The listening socket, while serving: `stop` closes it there and then.
    socket: Option<std::os::fd::RawFd>,
}

impl FakeListener {
    /// Listens on a free loopback port; each connection is handed to `handler` on a
    /// task of its own. `what` names the fake in the failure when no port is free.
    pub async fn start_new<F, Fut>(what: &str, handler: F) -> FakeListener
    where
        F: Fn(TcpStream) -> Fut + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        // A port free a moment ago can be taken by the time it is bound (another test
        // binary's service, say): then the next one.
        let mut listener = None;
        for _ in 0..20 {
            if let Ok(bound) = TcpListener::bind(("127.0.0.1", free_port())).await {
                listener = Some(bound);
                break;
            }
        }
        let listener = listener.unwrap_or_else(|| panic!("a free port for the {what}"));
        let mut fake = FakeListener {
            addr: listener.local_addr().unwrap(),
            handler: Rc::new(move |stream| handler(stream).boxed_local()),
            accept: None,
            socket: None,
        };
        fake.serve(listener);
        fake
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn is_listening(&self) -> bool {
        self.accept.is_some()
    }

    /// Closes the listening socket: connections are refused from now on.
    ///
    /// At once, not when the aborted accept task is next polled: until then the
    /// kernel would still take connections into the listener's backlog, and a call
    /// made meanwhile would hang there instead of being refused (seen: a test's call
    /// hung a virtual second and failed after the fake was back, so the worker, told
    /// "ready" by no change of health, waited out its 30 s park). On Linux, shutting a
    /// listening socket down stops it listening; the file is closed with the task.
    pub fn stop(&mut self) {
        if let Some(socket) = self.socket.take() {
            // SAFETY: the listener's own descriptor, still open (its task holds it);
            // shutdown changes no memory.
            unsafe { libc::shutdown(socket, libc::SHUT_RDWR) };
        }
        if let Some(task) = self.accept.take() {
            task.abort();
        }
    }

    /// Listens again on the same port.
    pub async fn start(&mut self) {
        if self.accept.is_some() {
            return;
        }
        // The aborted accept task drops its listener when the runtime next polls it.
        for _ in 0..1000 {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => return self.serve(listener),
                Err(_) => tokio::task::yield_now().await,
            }
        }
        panic!("cannot listen on {} again", self.addr);
    }

    fn serve(&mut self, listener: TcpListener) {
        use std::os::fd::AsRawFd;
        self.socket = Some(listener.as_raw_fd());
        let handler = self.handler.clone();
        self.accept = Some(tokio::task::spawn_local(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                tokio::task::spawn_local(handler(stream));
            }
        }));
    }
}

impl Drop for FakeListener {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The request line and headers, as sent.
    pub head: String,
    pub body: Vec<u8>,
}

impl Request {
    /// A header's value (the first of that name, any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }

    /// The body as JSON (`null` when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }
}

/// Reads one request; `None` when the client hung up first.
pub async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_string();
    let mut words = head.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next()?.to_string();
    let mut request = Request {
        method,
        path,
        head,
        body: buffer[header_end..].to_vec(),
    };
    let length = request
        .header("content-length")
        .and_then(|value| value.parse::<usize>().ok())
        .unwrap_or(0);
    while request.body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        request.body.extend_from_slice(&chunk[..n]);
    }
    Some(request)
}

/// Answers and closes the connection.
pub async fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Waits until the client hangs up (what a server does with a request it never
/// answers).
pub async fn until_hung_up(stream: &mut TcpStream) {
    let mut rest = [0u8; 512];
    while matches!(stream.read(&mut rest).await, Ok(n) if n > 0) {}
}

/// How many requests a fake is holding open (a call it works on, or never answers):
/// the pipeline's barrier does not wait for those.
#[derive(Debug, Clone, Default)]
pub struct HeldCount(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl HeldCount {
    pub fn now(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Counts one more until the guard is dropped.
    pub fn hold(&self) -> HeldGuard {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        HeldGuard(self.0.clone())
    }
}

pub struct HeldGuard(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Drop for HeldGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}
