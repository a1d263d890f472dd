//! The real model: inkling's OpenAI-compatible provider against llama.cpp's own
//! `llama-server` running Gemma 3 270M (issue #25, point 3). No fake anywhere: a real
//! tokenizer and context limit, real latency on this CPU, real grammar-constrained JSON,
//! real errors, and a real process killed in the middle of a call.
//!
//! Needs the tools `scripts/real-model-tools.sh` provides, named by the environment it
//! writes (`LLAMA_SERVER`, `GEMMA_MODEL`, `GEMMA_CHAT_TEMPLATE`; `scripts/test.sh` loads
//! it). Without them every test fails saying what is missing: none skips.
//!
//! - `tools`: the three tools, from the environment.
//! - `llama`: `llama-server` as a child process on a port of the test's.
//! - `scene`: a server and the `inkling` binary configured for it, reached over HTTP.
//! - `texts`: the notes, and an article longer than the server's context.
//! - `notes`: five notes of every kind end done, titled and tagged.
//! - `outages`: the server killed during a call; the server serving another model.
//! - `ask`: a question asked of the notes, the real model's answer streamed, its
//!   citations only of the notes retrieved.
//! - `related`: the notes' vectors from the real model (one server with `--embeddings
//!   --pooling mean` for the chat and the vectors), and a server without them.
//!
//! The tests run one at a time whatever the harness is told: each starts a model server,
//! and two at once on two cores would make every call twice as slow for nothing.

mod ask;
#[path = "../support/eventually.rs"]
mod eventually;
mod llama;
mod notes;
mod outages;
#[path = "../support/ports.rs"]
mod ports;
mod related;
mod scene;
mod search;
#[path = "../support/service_process.rs"]
mod service_process;
mod texts;
mod tools;
#[path = "../support/xorshift.rs"]
mod xorshift;

/// Held by each test for its whole run (see above).
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
