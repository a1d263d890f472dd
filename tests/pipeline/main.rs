//! The AI pipeline: the worker's retry policy, health and instant resume, restart,
//! retry-all, and the provider client's failure modes, against a fake Ollama server
//! (and a fake OpenAI-compatible one).
//!
//! - `harness`: the actor graph on a paused tokio clock (virtual time) with a fake
//!   provider on the same runtime.
//! - `provider`: `OllamaClient` against every failure mode, classified (real time).
//! - `worker`: the worker policy end to end, on virtual time.
//! - `outage`: a 24-hour outage, instant resume, restart.
//! - `retry_all`: the retry-all use case.
//! - `enrich`: one note's AI asked for again.
//! - `edit`: notes edited while the AI works, user-set fields, tidy tags.
//! - `lifecycle`: trash and restore as the worker sees them.
//! - `model`: a model that is slow, missing, cold or wrong (a slow note, a model not
//!   pulled, the load first, retries that are different requests).
//! - `day`: a compressed day with a slow, missing, cold and wrong model: the issue's
//!   goals on virtual time (the table in docs/PERFORMANCE.md).
//! - `fresh_first`: a slow CPU's day with a backlog from before the model was pulled:
//!   fresh notes first, the backlog within its fair share (docs/PERFORMANCE.md).
//! - `openai`: an OpenAI-compatible server (llama.cpp's, faked): the output format it
//!   takes, its model loading, its context, its API key.
//! - `related`: the notes' vectors (a new note's before its title, the older notes'
//!   after every title, again after an edit or a change of model, never a note's
//!   failure) and the related notes they give.
//! - `reminders`: the reminder actor on virtual time (on time, after a stop, after a
//!   sleep, the buttons), with a recording notifier.
//! - `neighbours`: a note's prompt carries its neighbours' tags.
//! - `sprawl`: the tag-sprawl bench's measure of near-duplicate tags
//!   (`tests/support/sprawl.rs`).
//! - `chaos`: a provider that switches at random between every failure mode.
//! - `disk`: a full disk (a real tmpfs) under the worker.
//! - `tray`: the tray's menu model and clicks (a recording backend, no D-Bus).
//! - `voice`: voice notes on virtual time (their words, the speech-to-text server's
//!   outage, bad answers, the recording kept or not); `transcription_client`: its
//!   client against the fake whisper-server.
//! - `ask`: a person's question against the background work (waits for the call in
//!   flight, goes before the next note, its model time accounted).

mod ask;
mod chaos;
mod day;
mod disk;
mod edit;
mod enrich;
#[path = "../support/fake_http.rs"]
mod fake_http;
#[path = "../support/fake_ollama.rs"]
mod fake_ollama;
#[path = "../support/fake_openai.rs"]
mod fake_openai;
#[path = "../support/fake_whisper.rs"]
mod fake_whisper;
mod fresh_first;
mod harness;
mod hybrid;
mod lifecycle;
mod long_notes;
mod model;
mod neighbours;
mod openai;
mod outage;
#[path = "../support/ports.rs"]
mod ports;
mod provider;
mod related;
mod reminders;
mod retry_all;
mod search_entries;
#[path = "../support/service.rs"]
mod service;
#[path = "../support/small_disk.rs"]
mod small_disk;
mod sprawl;
#[path = "../support/sprawl.rs"]
mod sprawl_measure;
mod suggestions;
mod transcription_client;
mod tray;
mod voice;
mod worker;
#[path = "../support/xorshift.rs"]
mod xorshift;
