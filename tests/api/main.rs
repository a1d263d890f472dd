//! API and process tests: one test binary (zero2prod style).
//!
//! - `helpers`: `spawn_app()` (in-process service, random port, fresh data dir) and
//!   `ServiceProcess` (the real binary, for signals, kill -9 and the CLI).
//! - `notes`: capture, get, list, status over HTTP, and bad input.
//! - `auth`: the token, Host and Origin guards.
//! - `devices`: pairing a capture-only device, its scope on every route, revoking it,
//!   and `POST /api/clip`.
//! - `fuzz`: random bytes at the capture route.
//! - `process`: the binary: restart, SIGTERM, kill -9 under load, config errors.
//! - `cli`: the client subcommands against a running service.
//! - `capture_from`: a note from standard input and from the clipboard (on Xvfb).
//! - `desktop`: one instance per data dir, autostart, graceful stop.
//! - `disk`: a full disk under a running service (a real tmpfs, filled).
//! - `usage`: trash, restore, keep; the usage report and export.
//! - `delete`: notes deleted for good leave no trace in the database files.
//! - `edit`: editing notes and tidying tags over HTTP.
//! - `transfer`: the notes export and import, round trip included.
//! - `inbox`: the AI routes (retry-all, failed count, recheck, status) end to end.
//! - `server`: the HTTP server itself: no service while idle, the connection cap, stop.
//! - `security`: what other users and processes on the desktop cannot do.
//! - `damage`: a database damaged while the service was down is refused, never written.
//! - `slots`: silent connections and open feeds cannot lock the user out.
//! - `related`: a note's related notes over HTTP and from the command line.
//! - `reminders`: reminders set, listed, snoozed and done, over HTTP and the CLI.
//! - `ask`: a question asked of the notes, over HTTP and from the command line.
//! - `voice`: voice notes over HTTP (stored at once, refused with nothing stored) and
//!   `inkling capture --audio`, against the fake speech-to-text server.
//! - `model_key`: the model server's key, in a variable of any name, needed by the
//!   service alone.
//! - `shared_folders`: an export into a folder other users can write to.
//! - `changes`: the change log over HTTP, and whole after kill -9 mid-write.
//! - `other_users`: what another real user's programs cannot get (a squatted model
//!   server port, the page's session, `localhost`).

mod ask;
mod auth;
mod capture_from;
mod changes;
mod cli;
mod cli_transfer;
mod damage;
mod delete;
mod desktop;
mod devices;
mod disk;
mod edit;
#[path = "../support/eventually.rs"]
mod eventually;
#[path = "../support/fake_http.rs"]
mod fake_http;
#[path = "../support/fake_ollama.rs"]
mod fake_ollama;
#[path = "../support/fake_openai.rs"]
mod fake_openai;
#[path = "../support/fake_whisper.rs"]
mod fake_whisper;
mod flood;
mod fuzz;
mod helpers;
mod inbox;
mod model_key;
mod notes;
#[path = "../support/other_user.rs"]
mod other_user;
mod other_users;
#[path = "../support/ports.rs"]
mod ports;
mod process;
mod related;
mod reminders;
mod search;
mod security;
mod server;
#[path = "../support/service.rs"]
mod service;
#[path = "../support/service_process.rs"]
mod service_process;
mod shared_folders;
mod short_ids;
mod slots;
#[path = "../support/small_disk.rs"]
mod small_disk;
mod transfer;
mod usage;
mod voice;
#[path = "../support/x_server.rs"]
mod x_server;
#[path = "../support/xorshift.rs"]
mod xorshift;
