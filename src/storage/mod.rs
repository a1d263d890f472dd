//! Durable storage: the SQLite schema, its migrations, and the repository operations.
//!
//! - [`migrations`]: `migrations/*.sql` applied in order at start-up.
//! - [`store`]: [`Store`], every operation of SPEC §4 as plain synchronous code.
//!
//! Only the `RepositoryActor` holds a `Store` at run time (one writing connection).

pub mod migrations;
pub mod store;

pub use store::{Changed, Job, NoteCounts, Store, StoreError, StoreResult, WaitReason};
