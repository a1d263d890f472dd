//! inkling: a tray-resident, local-first thought-capture service.
//!
//! # Layout
//!
//! - [`configuration`]: the `Settings` tree and its layers (embedded defaults, user
//!   file, environment).
//! - [`startup`]: `Application`, which builds the service and runs it until stopped.
//! - [`services`]: the actor graph, started and wired in dependency order.
//! - [`actors`]: the actors; each owns one resource (the database, the AI queue, …).
//! - [`inbox`]: the use cases (capture, retry-all, edit, the trash, …) as plain async
//!   functions over the actors' addresses, which the routes and the tray call.
//! - [`ai`]: what a model server can do (chat, embed, health, pull; transcribe
//!   declared), the Ollama and OpenAI-compatible clients, the enrichment schema,
//!   `classify_reason`, a model's measured speed.
//! - [`api`]: the wire types: what the HTTP API takes and answers, the live events.
//! - [`expiry`]: whether notes expire: the person's choice, asked once, held in one handle.
//! - [`export`]: notes as files: the JSON export, Markdown notes, what may come in.
//! - [`events`]: notifications several actors hear (`FailedCountChanged`, …).
//! - [`telemetry`]: the local usage log: event schema, files, stats.md.
//! - [`storage`]: the SQLite schema, migrations and repository operations.
//! - [`search`]: retrieval: the one rank fusion, the similarity floors, a question's
//!   words; and the use case that finds notes by words and by meaning.
//! - [`http`]: the local API on 127.0.0.1.
//! - [`domain`]: notes, statuses, validated bodies, edits, filters.
//! - [`tags`]: what a tag may be, and how tags stay one tidy vocabulary.
//! - [`reminders`]: a note's reminder as plain rules: its state, a time in a person's
//!   words, which reminders to show when.
//! - [`cli`] and [`client`]: the command line and its client of the running service.
//! - [`mcp`]: `inkling mcp`, the Model Context Protocol server for AI tools (a client of
//!   the running service too).
//! - [`logging`]: the service log (`tracing`), per-actor targets.
//! - [`api_token`], [`sessions`], [`open_codes`], [`identity`], [`page_proof`]: the
//!   per-install token, the inbox page's sessions, the codes that open it, the service's
//!   proof to the CLI, and the proofs the page and the service exchange.
//! - [`devices`]: paired devices (the web clipper), whose tokens can only capture, and
//!   the one-time codes they are paired with.
//! - [`clock`]: injectable time.
//! - [`words`]: the sentences the tray and stats.md show, one table per language.
//! - [`instance`]: one service per data dir (the lock file).
//! - [`socket_owner`]: which user owns a TCP socket of this machine (`/proc/net/tcp`).
//! - [`desktop`]: the desktop layer above the use cases: the tray (its actor, menu
//!   model, icons and D-Bus backend), start at login, opening things, and the place of
//!   the coming global-shortcut capture.

pub mod actors;
pub mod ai;
pub mod api;
pub mod api_token;
pub mod app_icon;
pub mod cli;
pub mod client;
pub mod clock;
pub mod configuration;
pub mod desktop;
pub mod devices;
pub mod domain;
pub mod events;
pub mod expiry;
pub mod export;
pub mod http;
pub mod identity;
pub mod inbox;
pub mod instance;
pub mod logging;
pub mod mcp;
pub mod open_codes;
pub mod page_proof;
pub mod reminders;
pub mod render;
pub mod search;
pub mod services;
pub mod sessions;
pub mod shutdown;
pub mod socket_owner;
pub mod startup;
pub mod storage;
pub mod tags;
pub mod telemetry;
pub mod words;
