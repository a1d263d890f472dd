//! API and process tests: one test binary (zero2prod style).
//!
//! - `helpers`: `spawn_app()` (in-process service, random port, fresh data dir) and
//!   `ServiceProcess` (the real binary, for signals, kill -9 and the CLI).
//! - `notes`: capture, get, list, status over HTTP, and bad input.
//! - `auth`: the token, Host and Origin guards.
//! - `fuzz`: random bytes at the capture route.
//! - `process`: the binary: restart, SIGTERM, kill -9 under load, config errors.
//! - `cli`: the client subcommands against a running service.
//! - `desktop`: one instance per data dir, autostart, graceful stop.
//! - `usage`: trash, restore, keep; the usage report and export.
//! - `inbox`: the AI routes (retry-all, failed count, recheck, status) end to end.
//! - `server`: the HTTP server itself: no service while idle, the connection cap, stop.

mod auth;
mod cli;
mod desktop;
#[path = "../support/fake_ollama.rs"]
mod fake_ollama;
mod fuzz;
mod helpers;
mod inbox;
mod notes;
mod process;
mod server;
mod usage;
#[path = "../support/xorshift.rs"]
mod xorshift;
