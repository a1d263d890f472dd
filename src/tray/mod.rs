//! The system tray (docs/DESIGN.md, "Tray"): what the menu says, and how it reaches the desktop.
//!
//! - [`menu`]: the menu as plain data, rebuilt from the failed count and the
//!   provider's health: pure, unit-tested, no D-Bus;
//! - [`icon`]: the tray icons, drawn in code (so they are in the binary);
//! - [`backend`]: [`TrayBackend`], whatever shows the menu;
//! - [`ksni_backend`]: the StatusNotifierItem over D-Bus (ksni 0.3), one such backend.
//!
//! The `TrayActor` (`crate::actors::tray`) owns the state and wires clicks to the same
//! typed messages the API uses.

pub mod backend;
pub mod icon;
pub mod ksni_backend;
pub mod menu;

pub use backend::TrayBackend;
pub use menu::{MenuModel, TrayAction};
