//! Moved: `GET /api/status`'s type is `crate::api::status` now; this name stays until
//! the CLI reads it from there.

pub use crate::api::status::ServiceStatus;
