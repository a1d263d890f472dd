//! Reminders' desktop notifications on a real D-Bus session bus: a private
//! `dbus-daemon`, and a stand-in `org.freedesktop.Notifications` served by the test
//! (zbus) that records each `Notify` call and sends the signals a desktop sends when a
//! button is clicked (`ActionInvoked`) or a notification closed
//! (`NotificationClosed`). The notifier (`inkling::desktop::reminders::DbusNotifier`)
//! is given the bus's address, so nothing here reads the process's environment.
//! Needs `dbus-daemon` (scripts/test.sh installs it).

#[path = "support/session_bus.rs"]
mod session_bus;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use inkling::desktop::reminders::notification::{notification, Notification};
use inkling::desktop::reminders::{DbusNotifier, DesktopEvent, Notifier};
use inkling::reminders::due::Notice;
use inkling::words::{words, Locale};
use zbus::zvariant::OwnedValue;

use session_bus::SessionBus;

const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";

/// One `Notify` call as the desktop received it.
#[derive(Debug, Clone)]
struct Notified {
    app_name: String,
    summary: String,
    body: String,
    actions: Vec<String>,
    hints: HashMap<String, OwnedValue>,
    expire_timeout: i32,
}

/// Just enough of a notification daemon: records `Notify`, answers ids 1, 2, …
struct FakeNotifications {
    calls: Arc<Mutex<Vec<Notified>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl FakeNotifications {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        hints: HashMap<String, OwnedValue>,
        expire_timeout: i32,
    ) -> u32 {
        let mut calls = self.calls.lock().unwrap();
        calls.push(Notified {
            app_name,
            summary,
            body,
            actions,
            hints,
            expire_timeout,
        });
        calls.len() as u32
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".into(), "body".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "fake".into(),
            "inkling tests".into(),
            "1".into(),
            "1.2".into(),
        )
    }

    fn close_notification(&self, _id: u32) {}
}

fn due(title: &str) -> Notification {
    let at = chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    notification(
        &Notice::Due {
            note_id: "n1".into(),
            title: title.into(),
            at,
        },
        words(Locale::En),
        &chrono::Utc,
    )
}

#[actix_rt::test]
async fn a_reminder_is_a_notification_with_its_buttons_and_the_clicks_come_back() {
    let bus = SessionBus::start();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let daemon = zbus::connection::Builder::address(bus.address.as_str())
        .unwrap()
        .name(INTERFACE)
        .unwrap()
        .serve_at(
            PATH,
            FakeNotifications {
                calls: calls.clone(),
            },
        )
        .unwrap()
        .build()
        .await
        .expect("the stand-in notification daemon is on the bus");

    let (events, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let notifier = DbusNotifier::connect(Some(&bus.address), events)
        .await
        .expect("the notifier connects");
    let id = notifier
        .show(&due("call the plumber"))
        .await
        .expect("shown");
    assert_eq!(id, 1);
    let notified = calls.lock().unwrap().clone();
    assert_eq!(notified.len(), 1);
    let call = &notified[0];
    assert_eq!(call.app_name, "inkling");
    assert_eq!(call.summary, "Reminder");
    assert_eq!(call.body, "call the plumber");
    assert_eq!(
        call.actions,
        ["default", "Open", "done", "Done", "snooze", "Snooze 1 h"]
    );
    assert_eq!(call.expire_timeout, 0, "it stays until dealt with");
    assert_eq!(
        u8::try_from(call.hints.get("urgency").expect("an urgency")).unwrap(),
        1
    );

    // The person clicks Done, then the desktop closes it.
    daemon
        .emit_signal(
            None::<&str>,
            PATH,
            INTERFACE,
            "ActionInvoked",
            &(id, "done"),
        )
        .await
        .unwrap();
    daemon
        .emit_signal(
            None::<&str>,
            PATH,
            INTERFACE,
            "NotificationClosed",
            &(id, 2u32),
        )
        .await
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), heard.recv())
        .await
        .expect("the click comes back within 10 s");
    assert_eq!(
        first,
        Some(DesktopEvent::Action {
            id,
            key: "done".into()
        })
    );
    let second = tokio::time::timeout(Duration::from_secs(10), heard.recv())
        .await
        .expect("the close comes back within 10 s");
    assert_eq!(second, Some(DesktopEvent::Closed { id }));
}

#[actix_rt::test]
async fn without_a_notification_daemon_showing_is_an_error_that_says_so() {
    let bus = SessionBus::start();
    let (events, _heard) = tokio::sync::mpsc::unbounded_channel();
    let notifier = DbusNotifier::connect(Some(&bus.address), events)
        .await
        .expect("the bus is there");
    let error = notifier
        .show(&due("nobody listens"))
        .await
        .expect_err("no daemon");
    assert!(error.contains("notification service"), "{error}");
    // No bus at all: connecting says so.
    let (events, _heard) = tokio::sync::mpsc::unbounded_channel();
    let missing = DbusNotifier::connect(Some("unix:path=/nonexistent/bus"), events).await;
    assert!(
        missing
            .as_ref()
            .err()
            .is_some_and(|e| e.contains("no D-Bus session bus")),
        "{:?}",
        missing.err()
    );
}
