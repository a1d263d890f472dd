//! The actors: each owns one resource and is reached only through typed messages.
//!
//! | actor | file | owns |
//! |---|---|---|
//! | `RepositoryActor` | [`repository`] | the only writing SQLite connection (own thread) |
//! | `AiWorkerActor` | [`ai_worker`] | the one wake-up timer, around the worker's pure core (queue, outage park, disk wait) |
//! | `ProviderMonitorActor` | [`provider_monitor`] | the provider's health and its check timer |
//! | `ModelPullActor` | [`model_pull`] | the model download asked for by the person, one at a time |
//! | `TelemetryActor` | [`telemetry`] | the usage events' schema and timestamps |
//! | `UsageLogActor` | [`usage_log`] | the usage log's files (own thread) |
//! | `Hub` | [`hub`] | the subscribers of the shared notifications |
//!
//! The use cases over them (capture, retry-all, the trash, …) are not an actor: they
//! are plain async code, `crate::inbox`. The tray's actor (`crate::desktop::tray`) sits
//! above them, in the desktop layer, and uses `handling!` and `Mailbox` from here.
//!
//! Mailbox traffic: every handler starts with `handling!`, which logs the message it
//! handled at `debug`, under the actor's own target (`inkling::actors::repository`, …), with the time it took, so
//! `RUST_LOG=info,inkling::actors::repository=debug` shows one actor's mailbox, and
//! [`mailbox_stats`] counts them for `/api/status`.

pub mod ai_worker;
pub mod hub;
pub mod mailbox;
pub mod mailbox_stats;
pub mod model_pull;
pub mod provider_monitor;
pub mod repository;
pub mod search_indexer;
pub mod telemetry;
pub mod transcriber;
pub mod usage_log;

/// The first line of every handler: `let _handled = handling!("MessageType");`. When the
/// handler returns, the guard counts the message as handled (with the time it took) for
/// the actor of the calling module, and logs it at `debug` under that module's target.
///
/// A macro, not a function: tracing's target is fixed at the call site, and the call
/// site must be the actor's own module for per-actor filtering to work. The test
/// `every_handler_counts_what_it_handles` (`mailbox_stats.rs`) finds a handler without it.
/// A handler in a file of its own below the actor's folder names its actor:
/// `handling!("EmbedQuery", actor = "ai_worker")` (its target stays under the actor's).
macro_rules! handling {
    ($message_type:expr) => {
        $crate::actors::handling!(
            $message_type,
            actor = $crate::actors::mailbox_stats::actor_name(module_path!())
        )
    };
    ($message_type:expr, actor = $actor:expr) => {
        $crate::actors::mailbox_stats::Handling::new(
            $actor,
            |took: std::time::Duration, ok: bool| {
                tracing::debug!(
                    message_type = $message_type,
                    elapsed_us = took.as_micros() as u64,
                    ok,
                    "handled"
                )
            },
        )
    };
}
pub(crate) use handling;
