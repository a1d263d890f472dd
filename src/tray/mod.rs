//! The system tray (docs/DESIGN.md, "Tray"): what the menu says, and how it reaches the desktop.
//!
//! - [`menu`]: the menu as plain data, rebuilt from the failed count and the
//!   provider's health: pure, unit-tested, no D-Bus;
//! - [`icon`]: the tray icons, drawn in code (so they are in the binary);
//! - [`ksni_backend`]: the StatusNotifierItem over D-Bus (ksni 0.3), behind
//!   [`TrayBackend`].
//!
//! The `TrayActor` (`crate::actors::tray`) owns the state and wires clicks to the same
//! typed messages the API uses.

pub mod icon;
pub mod ksni_backend;
pub mod menu;

use futures_util::future::LocalBoxFuture;

pub use menu::{MenuModel, TrayAction};

/// Whatever shows the menu: the D-Bus tray, or a recorder in tests.
pub trait TrayBackend: Send + Sync {
    /// Shows this menu (and icon) from now on.
    fn show(&self, model: MenuModel) -> LocalBoxFuture<'static, ()>;
}
