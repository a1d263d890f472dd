//! The desktop layer: what inkling does on the person's desktop, above the use cases
//! and calling them directly, as the HTTP routes do (the two are beside each other).
//!
//! - [`tray`]: the tray icon and its menu (`TrayActor`, its menu model, icons and D-Bus
//!   backend), whose Process AI now is `Inbox::retry_all_failed` itself;
//! - [`autostart`]: start at login (an XDG autostart entry or a systemd user unit);
//! - [`opener`]: a URL or a folder handed to the desktop's default application;
//! - [`reminders`]: reminders as desktop notifications (`ReminderActor`, its
//!   notifications' words and buttons, `org.freedesktop.Notifications`).
//!
//! The coming global-shortcut quick capture goes here too, as a module of its own
//! beside [`tray`]: the shortcut's registration with the desktop (a portal or the
//! window system), and on a press the text captured through `Inbox::capture`, the
//! same use case `POST /api/notes` calls, so a note captured this way is committed,
//! queued and announced like any other. `tests/layers.rs` keeps this layer above the
//! use cases and below start-up, which wires it.

pub mod autostart;
pub mod opener;
pub mod reminders;
pub mod tray;

pub use opener::open;
