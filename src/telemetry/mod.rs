//! Usage telemetry: the local event log and its report (docs/DESIGN.md, "Usage telemetry"). Nothing here ever
//! leaves the machine.
//!
//! - [`events`]: the strict schema of every event kind;
//! - [`log`]: the files on disk: reading (torn lines skipped), pruning, exporting;
//! - [`stats`]: the per-day aggregation and `stats.md`.
//!
//! The `TelemetryActor` (`crate::actors::telemetry`) is the one writer of the log.

pub mod events;
pub mod log;
pub mod stats;
