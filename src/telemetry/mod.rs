//! Usage telemetry: the local event log (SPEC §7). Nothing here ever leaves the machine.
//!
//! - [`events`]: the strict schema of every event kind.
//!
//! The `TelemetryActor` (`crate::actors::telemetry`) is the one writer of the log.

pub mod events;
