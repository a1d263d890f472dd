//! Durable storage: the SQLite schema, its migrations, and the repository operations.
//!
//! - [`migrations`]: `migrations/*.sql` applied in order at start-up.
//! - [`store`]: [`Store`], every repository operation as plain synchronous code.
//!
//! Only the `RepositoryActor` holds a `Store` at run time (one writing connection).

pub mod migrations;
pub mod store;

pub use crate::domain::WaitReason;
pub use store::{Changed, Job, NoteCounts, Store, StoreError, StoreResult};
