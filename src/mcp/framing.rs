//! The protocol's lines, checked before rmcp reads them.
//!
//! rmcp ignores a line that is not JSON (the official SDKs do, for fear of an error
//! storm with a peer that echoes), and its parser takes the last of two equal keys.
//! JSON-RPC 2.0 answers the first with a parse error (-32700), and a request whose
//! keys repeat says two things at once (`"name"` twice in a tool call: which one did
//! the model mean?), which is refused as an invalid request (-32600) instead of
//! guessed. So standard input goes through [`check_line`] (a plain function) line by
//! line: a sound line is passed to rmcp unchanged, any other is answered here. What
//! rmcp writes and these answers share standard output one whole line at a time.
//!
//! A line longer than [`MAX_LINE`] (rmcp's own limit) is not kept in memory: it is
//! read to its end and answered as an invalid request.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;

/// The longest line read, as rmcp's `DEFAULT_MAX_LINE_LENGTH`.
pub const MAX_LINE: usize = 16 << 20;

/// JSON-RPC 2.0's codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// What to do with one line of standard input.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Sound JSON with no repeated key: rmcp reads it.
    Pass,
    /// A blank line: nothing to read, nothing to answer.
    Skip,
    /// Answered here with this JSON-RPC error (one line, no newline).
    Answer(String),
}

/// The verdict on one line (without its newline).
pub fn check_line(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    let scan = Scan { top: true }
        .deserialize(&mut deserializer)
        .and_then(|scan| deserializer.end().map(|()| scan));
    match scan {
        Err(e) => Verdict::Answer(error_line(
            Value::Null,
            PARSE_ERROR,
            &format!("Parse error: the line is not JSON ({e})"),
        )),
        Ok(Scanned {
            duplicate: Some(key),
            id,
        }) => Verdict::Answer(error_line(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            &format!("Invalid request: the key {key:?} appears twice in one object"),
        )),
        Ok(_) => Verdict::Pass,
    }
}

/// The answer to a line longer than [`MAX_LINE`].
pub fn too_long() -> String {
    error_line(
        Value::Null,
        INVALID_REQUEST,
        &format!(
            "Invalid request: the line is longer than {} MiB",
            MAX_LINE >> 20
        ),
    )
}

fn error_line(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// What a scan of a JSON value found: the first repeated key, and the request's `id`
/// when the top level has exactly one (so the client can match the refusal).
#[derive(Debug, Default)]
struct Scanned {
    duplicate: Option<String>,
    id: Option<Value>,
}

/// A JSON value walked without keeping it: only repeated keys are noted.
struct Scan {
    top: bool,
}

impl<'de> DeserializeSeed<'de> for Scan {
    type Value = Scanned;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Scanned, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan {
    type Value = Scanned;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Scanned, E> {
        Ok(Scanned::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Scanned, E> {
        Ok(Scanned::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Scanned, E> {
        Ok(Scanned::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Scanned, E> {
        Ok(Scanned::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<Scanned, E> {
        Ok(Scanned::default())
    }
    fn visit_unit<E>(self) -> Result<Scanned, E> {
        Ok(Scanned::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scanned, A::Error> {
        let mut found = Scanned::default();
        while let Some(item) = seq.next_element_seed(Scan { top: false })? {
            found.duplicate = found.duplicate.or(item.duplicate);
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scanned, A::Error> {
        let mut found = Scanned::default();
        let mut seen = HashSet::new();
        let mut ids = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.top && key == "id" {
                ids.push(map.next_value::<Value>()?);
            } else {
                let inner = map.next_value_seed(Scan { top: false })?;
                found.duplicate = found.duplicate.or(inner.duplicate);
            }
            if !seen.insert(key.clone()) {
                found.duplicate = found.duplicate.or(Some(key));
            }
        }
        if let [id @ (Value::String(_) | Value::Number(_))] = ids.as_slice() {
            found.id = Some(id.clone());
        }
        Ok(found)
    }
}

/// The two ends rmcp serves on, and the task that ends once standard output has
/// everything rmcp wrote.
pub struct CheckedStdio {
    pub read: DuplexStream,
    pub write: DuplexStream,
    pub written: actix_rt::task::JoinHandle<()>,
}

/// Standard input and output with every line checked. Must run inside the runtime.
pub fn checked_stdio() -> CheckedStdio {
    let (to_rmcp, read) = tokio::io::duplex(64 << 10);
    let (write, from_rmcp) = tokio::io::duplex(64 << 10);
    let (answers, answered) = mpsc::unbounded_channel();
    actix_rt::spawn(read_in(
        BufReader::new(tokio::io::stdin()),
        to_rmcp,
        answers,
    ));
    let written = actix_rt::spawn(write_out(from_rmcp, answered, tokio::io::stdout()));
    CheckedStdio {
        read,
        write,
        written,
    }
}

/// Reads `input` line by line: sound lines to rmcp, answers to the writer. Ends (and
/// so ends rmcp's input) at the end of `input`.
async fn read_in(
    mut input: impl AsyncBufRead + Unpin,
    mut to_rmcp: DuplexStream,
    answers: mpsc::UnboundedSender<String>,
) {
    let mut line = Vec::new();
    loop {
        let fits = match next_line(&mut input, &mut line).await {
            Ok(Some(fits)) => fits,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(error = %e, "cannot read standard input");
                return;
            }
        };
        let verdict = if fits {
            check_line(line.strip_suffix(b"\n").unwrap_or(&line))
        } else {
            Verdict::Answer(too_long())
        };
        match verdict {
            Verdict::Pass => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if to_rmcp.write_all(&line).await.is_err() {
                    return;
                }
            }
            Verdict::Skip => {}
            Verdict::Answer(answer) => {
                tracing::debug!(%answer, "a line refused before the MCP server");
                if answers.send(answer).is_err() {
                    return;
                }
            }
        }
    }
}

/// The next line of `input` into `line`, newline included: `Some(true)` when it fits
/// in [`MAX_LINE`], `Some(false)` when it did not (read to its end, not kept), `None`
/// at the end of the input (a last line without its newline is incomplete: dropped,
/// as rmcp does).
async fn next_line(
    input: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    line.clear();
    let mut fits = true;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(None);
        }
        let (taken, ended) = match available.iter().position(|b| *b == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        if fits && line.len() + taken <= MAX_LINE {
            line.extend_from_slice(&available[..taken]);
        } else {
            fits = false;
            line.clear();
        }
        input.consume(taken);
        if ended {
            return Ok(Some(fits));
        }
    }
}

/// Copies rmcp's lines and the answers to `output`, each whole, until both are done.
async fn write_out(
    from_rmcp: DuplexStream,
    mut answers: mpsc::UnboundedReceiver<String>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let (mut rmcp_open, mut answers_open) = (true, true);
    while rmcp_open || answers_open {
        let out = tokio::select! {
            // Cancel-safe: a line read in part stays in `line` for the next turn.
            read = from_rmcp.read_until(b'\n', &mut line), if rmcp_open => match read {
                Ok(0) | Err(_) => {
                    rmcp_open = false;
                    continue;
                }
                Ok(_) => std::mem::take(&mut line),
            },
            answer = answers.recv(), if answers_open => match answer {
                Some(answer) => (answer + "\n").into_bytes(),
                None => {
                    answers_open = false;
                    continue;
                }
            },
        };
        let wrote = output.write_all(&out).await;
        if wrote.and(output.flush().await).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
