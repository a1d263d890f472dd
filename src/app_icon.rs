//! The application's icon (`web/icon.svg`), embedded: the inbox page serves it, and the
//! autostart entry installs it for the desktop's launcher. (The tray's icons, which
//! change colour with the service's state, are drawn in code: `src/desktop/tray/icon.rs`.)

/// The icon as SVG text.
pub const APP_ICON_SVG: &str = include_str!("../web/icon.svg");
