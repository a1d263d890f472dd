//! Showing a notification on the desktop: [`Notifier`], whatever shows one, and
//! [`DbusNotifier`], which speaks `org.freedesktop.Notifications` on the session bus
//! (the Desktop Notifications Specification) with zbus, on the tokio runtime actix
//! runs on. The buttons a person clicks (`ActionInvoked`) and the notifications they
//! close (`NotificationClosed`) come back as [`DesktopEvent`]s on a channel.

use std::collections::HashMap;

use futures_util::future::LocalBoxFuture;
use futures_util::{FutureExt, StreamExt};
use tokio::sync::mpsc::UnboundedSender;
use zbus::zvariant::Value;

use super::notification::Notification;

const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
/// How long the notification service may take to answer `Notify`.
const NOTIFY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What the desktop says of a notification shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DesktopEvent {
    /// A button (or the notification itself, `default`) was clicked.
    Action { id: u32, key: String },
    /// It was closed (put away, expired): its buttons are gone.
    Closed { id: u32 },
}

/// Whatever shows a notification (the session bus; a recorder in tests).
pub trait Notifier: Send + Sync + 'static {
    /// Shows `notification`; answers the desktop's id for it, or why it could not.
    fn show(&self, notification: &Notification) -> LocalBoxFuture<'static, Result<u32, String>>;
}

/// `org.freedesktop.Notifications` on a session bus.
pub struct DbusNotifier {
    connection: zbus::Connection,
}

impl DbusNotifier {
    /// Connects to the session bus at `address` (`None`: the session's own,
    /// `DBUS_SESSION_BUS_ADDRESS`) and sends what the desktop says of the
    /// notifications to `events`, for as long as the connection lives.
    pub async fn connect(
        address: Option<&str>,
        events: UnboundedSender<DesktopEvent>,
    ) -> Result<Self, String> {
        let connection = match address {
            Some(address) => match zbus::connection::Builder::address(address) {
                Ok(builder) => builder.build().await,
                Err(e) => Err(e),
            },
            None => zbus::Connection::session().await,
        }
        .map_err(|e| format!("no D-Bus session bus ({e})"))?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(SERVICE)
            .and_then(|rule| rule.path(PATH))
            .map_err(|e| format!("cannot listen to the notifications' signals ({e})"))?
            .build();
        let mut signals = zbus::MessageStream::for_match_rule(rule, &connection, None)
            .await
            .map_err(|e| format!("cannot listen to the notifications' signals ({e})"))?;
        actix_rt::spawn(async move {
            while let Some(Ok(message)) = signals.next().await {
                let header = message.header();
                let event = match header.member().map(|m| m.as_str()) {
                    Some("ActionInvoked") => message
                        .body()
                        .deserialize::<(u32, String)>()
                        .ok()
                        .map(|(id, key)| DesktopEvent::Action { id, key }),
                    Some("NotificationClosed") => message
                        .body()
                        .deserialize::<(u32, u32)>()
                        .ok()
                        .map(|(id, _reason)| DesktopEvent::Closed { id }),
                    _ => None,
                };
                if let Some(event) = event {
                    if events.send(event).is_err() {
                        break;
                    }
                }
            }
        });
        Ok(DbusNotifier { connection })
    }
}

impl Notifier for DbusNotifier {
    fn show(&self, notification: &Notification) -> LocalBoxFuture<'static, Result<u32, String>> {
        let connection = self.connection.clone();
        let summary = notification.summary.clone();
        let body = notification.body.clone();
        // The spec's actions: key, label, key, label, …
        let actions: Vec<String> = notification
            .actions
            .iter()
            .flat_map(|(key, label)| [key.clone(), label.clone()])
            .collect();
        async move {
            let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
            hints.insert("desktop-entry", Value::from("inkling"));
            // Normal urgency; it stays until the person deals with it (expire 0):
            // a reminder missed because it faded is no reminder.
            hints.insert("urgency", Value::U8(1));
            // A daemon that never answers must not hold the reminders for good: the
            // actor looks again only once this call is over.
            let arguments = (
                "inkling",
                0u32,
                "inkling",
                summary.as_str(),
                body.as_str(),
                actions,
                hints,
                0i32,
            );
            let call =
                connection.call_method(Some(SERVICE), PATH, Some(SERVICE), "Notify", &arguments);
            let reply = actix_rt::time::timeout(NOTIFY_WAIT, call)
                .await
                .map_err(|_| {
                    format!(
                        "the desktop's notification service did not answer within {NOTIFY_WAIT:?}"
                    )
                })?
                .map_err(|e| format!("the desktop's notification service refused: {e}"))?;
            reply
                .body()
                .deserialize::<u32>()
                .map_err(|e| format!("the notification service answered no id: {e}"))
        }
        .boxed_local()
    }
}
