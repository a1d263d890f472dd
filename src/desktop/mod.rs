//! The desktop layer: what inkling does on the person's desktop, above the use cases
//! and calling them directly, as the HTTP routes do (the two are beside each other).
//!
//! - [`tray`]: the tray icon and its menu (`TrayActor`, its menu model, icons and D-Bus
//!   backend), whose Process AI now is `Inbox::retry_all_failed` itself;
//! - [`autostart`]: start at login (an XDG autostart entry or a systemd user unit);
//! - [`opener`]: a URL or a folder handed to the desktop's default application;
//! - [`reminders`]: reminders as desktop notifications (`ReminderActor`, its
//!   notifications' words and buttons, `org.freedesktop.Notifications`);
//! - [`quick`]: the quick-capture window, the page's `/quick` in a browser app window
//!   (its note goes through `POST /api/notes`, so it is committed, queued and announced
//!   like any other);
//! - [`shortcut`]: the desktop shortcut that opens it, as data (which desktop, the
//!   key's notations, the exact commands that bind it);
//! - [`portal`]: the same key bound by the running service through the desktop
//!   portal's GlobalShortcuts (`quick.portal`), the window opened at each press.
//!
//! `tests/layers.rs` keeps this layer above the use cases and below start-up, which
//! wires it.

pub mod autostart;
pub mod opener;
pub mod portal;
pub mod quick;
pub mod reminders;
pub mod shortcut;
pub mod tray;

pub use opener::open;
