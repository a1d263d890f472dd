//! A streamed answer to a question (`POST /api/ask`), as both fake model servers send
//! it: Ollama's `/api/chat` with `"stream": true` as NDJSON lines, the OpenAI API's
//! `/chat/completions` with `"stream": true` as server-sent events, each ending as the
//! real server ends it. What the answer says is set by the test (`set_pieces`: it may
//! cite a note the question was not given, `[7]`); its pieces can be paced on virtual
//! time (`set_pace_seconds`), or the answer held after some pieces until the client
//! hangs up (`hold_after`), as a model keeps generating until its client goes, or go
//! on for ever after its pieces (`set_endless`), as a server that ignores the token
//! limit, counting the bytes it got written (`sent_bytes`). The
//! requests are recorded with how many enrichment calls came before them (the order
//! against the background work), and the streams still open and those the client
//! dropped are counted.
//!
//! A note's enrichment is streamed too ([`answer_chat`]): each fake makes the answer
//! its server sends unstreamed, and it goes out as that server streams it (its content
//! in pieces, then the end with the counts), or whole when the request did not ask.
//! [`is_question`] tells the two kinds of chat apart, as the fakes route them.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::fake_http::until_hung_up;

/// One question the fake was asked.
#[derive(Debug, Clone)]
pub struct AskCall {
    pub request: Value,
    /// Enrichment calls the fake had taken before it.
    pub calls_before: usize,
    pub at: tokio::time::Instant,
}

#[derive(Debug)]
struct Script {
    pieces: Vec<String>,
    pace_seconds: u64,
    hold_after: Option<usize>,
    endless: Option<String>,
    endless_bytes: usize,
    sent_bytes: usize,
    calls: Vec<AskCall>,
    open: usize,
    dropped: usize,
}

/// The answers a fake streams, shared by its connections.
#[derive(Debug, Clone)]
pub struct Answers(Arc<Mutex<Script>>);

/// The answer a fake gives at first: it cites note 1.
pub const DEFAULT_PIECES: [&str; 3] = ["From your notes: ", "water them on Sunday [", "1]."];

impl Default for Answers {
    fn default() -> Self {
        Answers(Arc::new(Mutex::new(Script {
            pieces: DEFAULT_PIECES.iter().map(|p| p.to_string()).collect(),
            pace_seconds: 0,
            hold_after: None,
            endless: None,
            endless_bytes: usize::MAX,
            sent_bytes: 0,
            calls: Vec::new(),
            open: 0,
            dropped: 0,
        })))
    }
}

/// How the answer goes on the wire.
#[derive(Debug, Clone, Copy)]
pub enum Wire {
    Ollama,
    OpenAi,
}

/// Counts an answer's stream as open until dropped.
struct Open(Answers);

impl Drop for Open {
    fn drop(&mut self) {
        self.0 .0.lock().unwrap().open -= 1;
    }
}

impl Answers {
    /// What the next answers say, piece by piece.
    pub fn set_pieces(&self, pieces: &[&str]) {
        self.0.lock().unwrap().pieces = pieces.iter().map(|p| p.to_string()).collect();
    }

    /// Seconds (virtual under a paused runtime) between two pieces.
    pub fn set_pace_seconds(&self, seconds: u64) {
        self.0.lock().unwrap().pace_seconds = seconds;
    }

    /// After this many pieces the answer is held, the stream open, until the client
    /// hangs up (`None`: the answer goes to its end).
    pub fn hold_after(&self, pieces: Option<usize>) {
        self.0.lock().unwrap().hold_after = pieces;
    }

    /// After its pieces the answer goes on with `piece` (at the pace set) until the
    /// client hangs up, or until `most_bytes` are written, when it is held as
    /// `hold_after` holds it (a test that fails must not take the machine's memory
    /// with it). `None`: the answer ends after its pieces.
    pub fn set_endless(&self, piece: Option<&str>, most_bytes: usize) {
        let mut script = self.0.lock().unwrap();
        script.endless = piece.map(str::to_string);
        script.endless_bytes = most_bytes;
    }

    /// Bytes of the answers' pieces written to the clients' sockets so far.
    pub fn sent_bytes(&self) -> usize {
        self.0.lock().unwrap().sent_bytes
    }

    pub fn calls(&self) -> Vec<AskCall> {
        self.0.lock().unwrap().calls.clone()
    }

    /// Answers being streamed now.
    pub fn open(&self) -> usize {
        self.0.lock().unwrap().open
    }

    /// Answers whose client hung up before their end.
    pub fn dropped(&self) -> usize {
        self.0.lock().unwrap().dropped
    }

    /// Streams the answer to `request` on `stream`, `calls_before` enrichment calls
    /// having come before it.
    pub async fn stream(
        &self,
        stream: &mut TcpStream,
        request: Value,
        calls_before: usize,
        wire: Wire,
    ) {
        let (pieces, pace, hold_after, endless, most_bytes) = {
            let mut script = self.0.lock().unwrap();
            script.calls.push(AskCall {
                request,
                calls_before,
                at: tokio::time::Instant::now(),
            });
            script.open += 1;
            (
                script.pieces.clone(),
                script.pace_seconds,
                script.hold_after,
                script.endless.clone(),
                script.endless_bytes,
            )
        };
        let _open = Open(self.clone());
        let content_type = match wire {
            Wire::Ollama => "application/x-ndjson",
            Wire::OpenAi => "text/event-stream",
        };
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\
             Connection: close\r\n\r\n"
        );
        if stream.write_all(head.as_bytes()).await.is_err() {
            return self.hung_up();
        }
        let endless = endless.into_iter().flat_map(std::iter::repeat);
        let mut written = 0usize;
        for (index, piece) in pieces.into_iter().chain(endless).enumerate() {
            if hold_after == Some(index) || written >= most_bytes {
                // A model goes on until its client goes.
                until_hung_up(stream).await;
                return self.hung_up();
            }
            if index > 0 && pace > 0 {
                tokio::time::sleep(std::time::Duration::from_secs(pace)).await;
            }
            if stream
                .write_all(chunk(&piece_line(wire, &piece)).as_bytes())
                .await
                .is_err()
            {
                return self.hung_up();
            }
            written += piece.len();
            self.0.lock().unwrap().sent_bytes += piece.len();
        }
        let end = end_lines(wire);
        let _ = stream
            .write_all((chunk(&end) + "0\r\n\r\n").as_bytes())
            .await;
        let _ = stream.shutdown().await;
    }

    fn hung_up(&self) {
        self.0.lock().unwrap().dropped += 1;
    }
}

/// One chunk of a chunked body.
fn chunk(text: &str) -> String {
    format!("{:x}\r\n{text}\r\n", text.len())
}

fn piece_line(wire: Wire, piece: &str) -> String {
    match wire {
        Wire::Ollama => format!(
            "{}\n",
            json!({
                "model": "llama3.2", "created_at": "2026-03-01T12:00:00Z",
                "message": { "role": "assistant", "content": piece }, "done": false,
            })
        ),
        Wire::OpenAi => format!(
            "data: {}\n\n",
            json!({
                "choices": [{ "finish_reason": null, "index": 0, "delta": { "content": piece } }],
                "created": 1_780_000_000, "model": "gemma-3-270m",
                "object": "chat.completion.chunk",
            })
        ),
    }
}

fn end_lines(wire: Wire) -> String {
    match wire {
        Wire::Ollama => format!(
            "{}\n",
            json!({
                "model": "llama3.2", "created_at": "2026-03-01T12:00:01Z",
                "message": { "role": "assistant", "content": "" }, "done": true,
                "done_reason": "stop", "eval_count": 12, "eval_duration": 120_000_000,
            })
        ),
        Wire::OpenAi => format!(
            "data: {}\n\ndata: [DONE]\n\n",
            json!({
                "choices": [{ "finish_reason": "stop", "index": 0, "delta": {} }],
                "created": 1_780_000_000, "model": "gemma-3-270m",
                "object": "chat.completion.chunk",
            })
        ),
    }
}

/// Whether a streamed chat request is a question (`POST /api/ask`: the Ask system
/// prompt first) rather than a note's enrichment.
pub fn is_question(request: &Value) -> bool {
    request["stream"] == json!(true)
        && request["messages"][0]["content"].as_str() == Some(inkling::ai::ask::ASK_SYSTEM_PROMPT)
}

/// Answers a chat request with `answer`, the body its server sends unstreamed: whole,
/// or streamed as that server streams it when the request asked (`"stream": true`).
/// Then closes the connection.
pub async fn answer_chat(stream: &mut TcpStream, request: &Value, answer: &str, wire: Wire) {
    answer_chat_then(stream, request, answer, wire, true).await;
}

/// [`answer_chat`], the connection kept open after the answer (`close: false`), as
/// a server that keeps its connections does.
pub async fn answer_chat_then(
    stream: &mut TcpStream,
    request: &Value,
    answer: &str,
    wire: Wire,
    close: bool,
) {
    let json = "application/json; charset=utf-8";
    let connection = if close { "Connection: close\r\n" } else { "" };
    let parsed = serde_json::from_str::<Value>(answer).ok();
    let response = match parsed {
        Some(parsed) if request["stream"] == json!(true) => {
            let content_type = match wire {
                Wire::Ollama => "application/x-ndjson",
                Wire::OpenAi => "text/event-stream",
            };
            let body: String = streamed_lines(&parsed, wire).iter().map(|l| chunk(l)).collect();
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\
                 {connection}\r\n{body}0\r\n\r\n"
            )
        }
        // Unstreamed, or no JSON at all (a page instead of an answer) sent as it is.
        _ => format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {json}\r\nContent-Length: {}\r\n{connection}\r\n{answer}",
            answer.len()
        ),
    };
    let _ = stream.write_all(response.as_bytes()).await;
    if close {
        let _ = stream.shutdown().await;
    }
}

/// The lines a server streams for the answer it would send whole as `answer`: the
/// content in three pieces, then the end carrying the rest (Ollama: the last line with
/// `done` and the counts; llama.cpp: a chunk with the `finish_reason` and `timings`,
/// one with the `usage`, then `[DONE]`).
fn streamed_lines(answer: &Value, wire: Wire) -> Vec<String> {
    let content = match wire {
        Wire::Ollama => answer["message"]["content"].as_str(),
        Wire::OpenAi => answer["choices"][0]["message"]["content"].as_str(),
    }
    .unwrap_or_default();
    let chars: Vec<char> = content.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    let pieces: Vec<String> = chars.chunks(third).map(|c| c.iter().collect()).collect();
    let mut lines: Vec<String> = pieces.iter().map(|piece| piece_line(wire, piece)).collect();
    match wire {
        Wire::Ollama => {
            let mut last = answer.clone();
            if last.get("message").is_some() {
                last["message"]["content"] = json!("");
            }
            lines.push(format!("{last}\n"));
        }
        Wire::OpenAi => {
            let mut end = json!({
                "choices": [{
                    "finish_reason": answer["choices"][0]["finish_reason"],
                    "index": 0, "delta": {},
                }],
                "object": "chat.completion.chunk",
            });
            if let Some(timings) = answer.get("timings") {
                end["timings"] = timings.clone();
            }
            lines.push(format!("data: {end}\n\n"));
            if let Some(usage) = answer.get("usage") {
                let sizes =
                    json!({ "choices": [], "usage": usage, "object": "chat.completion.chunk" });
                lines.push(format!("data: {sizes}\n\n"));
            }
            lines.push("data: [DONE]\n\n".to_string());
        }
    }
    lines
}
