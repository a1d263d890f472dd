//! inkling: a tray-resident, local-first thought-capture service.
//!
//! # Layout
//!
//! - [`configuration`]: the `Settings` tree and its layers (embedded defaults, user
//!   file, environment).
//! - [`startup`]: `Application`, which builds the service and runs it until stopped.
//! - [`actors`]: the actors; each owns one resource (the database, …).
//! - [`storage`]: the SQLite schema, migrations and repository operations.
//! - [`http`]: the local API on 127.0.0.1.
//! - [`domain`]: notes, statuses, validated bodies, filters.
//! - [`cli`] and [`client`]: the command line and its client of the running service.
//! - [`logging`]: the service log (`tracing`), per-actor targets.
//! - [`api_token`], [`clock`]: the per-install token; injectable time.

pub mod actors;
pub mod api_token;
pub mod cli;
pub mod client;
pub mod clock;
pub mod configuration;
pub mod domain;
pub mod http;
pub mod logging;
pub mod startup;
pub mod storage;
