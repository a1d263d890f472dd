//! The desktop shortcut through the XDG desktop portal (`src/desktop/portal.rs`),
//! against a stand-in portal on a private session bus (`dbus-daemon`): it serves
//! `org.freedesktop.portal.GlobalShortcuts` at the portal's name and path and answers
//! each call through a Request object at the path the caller predicted, as
//! xdg-desktop-portal does. Needs `dbus-daemon` (scripts/test.sh installs it).

#[path = "support/eventually.rs"]
mod eventually;
#[path = "support/session_bus.rs"]
mod session_bus;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use inkling::desktop::portal::{listen, request_path, start};
use inkling::desktop::shortcut::Key;
use zbus::zvariant::{ObjectPath, OwnedObjectPath, OwnedValue, Value};

/// What the stand-in portal was asked to bind: (id, description, preferred trigger).
type Bound = Arc<Mutex<Vec<(String, String, String)>>>;

struct FakePortal {
    bound: Bound,
    /// The answer it gives to BindShortcuts: 0 allowed, 1 the person said no.
    bind_answer: u32,
}

fn text(options: &HashMap<String, OwnedValue>, name: &str) -> String {
    options
        .get(name)
        .and_then(|value| String::try_from(value.try_clone().ok()?).ok())
        .unwrap_or_default()
}

async fn respond(
    connection: &zbus::Connection,
    path: &str,
    code: u32,
    results: HashMap<&str, Value<'_>>,
) {
    connection
        .emit_signal(
            None::<&str>,
            path,
            "org.freedesktop.portal.Request",
            "Response",
            &(code, results),
        )
        .await
        .expect("the Response is sent");
}

#[zbus::interface(name = "org.freedesktop.portal.GlobalShortcuts")]
impl FakePortal {
    async fn create_session(
        &self,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] connection: &zbus::Connection,
        options: HashMap<String, OwnedValue>,
    ) -> OwnedObjectPath {
        let sender = header.sender().expect("a sender").to_string();
        let path = request_path(&sender, &text(&options, "handle_token"));
        let session = format!(
            "/org/freedesktop/portal/desktop/session/{}/{}",
            sender.trim_start_matches(':').replace('.', "_"),
            text(&options, "session_handle_token")
        );
        respond(
            connection,
            &path,
            0,
            HashMap::from([("session_handle", Value::from(session))]),
        )
        .await;
        OwnedObjectPath::try_from(path).expect("a path")
    }

    async fn bind_shortcuts(
        &self,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(connection)] connection: &zbus::Connection,
        _session_handle: OwnedObjectPath,
        shortcuts: Vec<(String, HashMap<String, OwnedValue>)>,
        _parent_window: String,
        options: HashMap<String, OwnedValue>,
    ) -> OwnedObjectPath {
        let sender = header.sender().expect("a sender").to_string();
        let path = request_path(&sender, &text(&options, "handle_token"));
        for (id, properties) in &shortcuts {
            self.bound.lock().unwrap().push((
                id.clone(),
                text(properties, "description"),
                text(properties, "preferred_trigger"),
            ));
        }
        respond(connection, &path, self.bind_answer, HashMap::new()).await;
        OwnedObjectPath::try_from(path).expect("a path")
    }
}

async fn portal_on(address: &str, bind_answer: u32) -> (zbus::Connection, Bound) {
    let bound = Bound::default();
    let connection = zbus::connection::Builder::address(address)
        .unwrap()
        .name("org.freedesktop.portal.Desktop")
        .unwrap()
        .serve_at(
            "/org/freedesktop/portal/desktop",
            FakePortal {
                bound: bound.clone(),
                bind_answer,
            },
        )
        .unwrap()
        .build()
        .await
        .expect("the stand-in portal is on the bus");
    (connection, bound)
}

async fn press(portal: &zbus::Connection, id: &str) {
    portal
        .emit_signal(
            None::<&str>,
            "/org/freedesktop/portal/desktop",
            "org.freedesktop.portal.GlobalShortcuts",
            "Activated",
            &(
                ObjectPath::try_from("/org/freedesktop/portal/desktop/session/x/y").unwrap(),
                id,
                0u64,
                HashMap::<&str, Value>::new(),
            ),
        )
        .await
        .expect("Activated is sent");
}

#[actix_rt::test]
async fn the_service_binds_the_key_at_the_portal_and_opens_the_window_on_each_press() {
    let bus = session_bus::SessionBus::start();
    let address = bus.address.clone();
    let (portal, bound) = portal_on(&address, 0).await;
    let opened = Arc::new(AtomicUsize::new(0));
    let count = opened.clone();
    // As the service starts it (`quick.portal = true`), on this bus.
    start(Some(address.clone()), "<Control><Alt>n", move || {
        count.fetch_add(1, Ordering::SeqCst);
    })
    .expect("the listener starts");

    let shortcuts = eventually::eventually("the shortcut bound at the portal", || {
        let now = bound.lock().unwrap().clone();
        async move { (!now.is_empty()).then_some(now) }
    })
    .await;
    assert_eq!(
        shortcuts,
        [(
            "quick-note".to_string(),
            "Quick note (inkling)".to_string(),
            "CTRL+ALT+n".to_string()
        )]
    );

    // Another application's shortcut is not inkling's; inkling's opens the window.
    press(&portal, "something-else").await;
    press(&portal, "quick-note").await;
    eventually::eventually("the window opened once", || {
        let n = opened.load(Ordering::SeqCst);
        async move { (n == 1).then_some(()) }
    })
    .await;
    press(&portal, "quick-note").await;
    eventually::eventually("and again at the next press", || {
        let n = opened.load(Ordering::SeqCst);
        async move { (n == 2).then_some(()) }
    })
    .await;
}

#[actix_rt::test]
async fn a_shortcut_the_person_did_not_allow_is_an_error_in_plain_words() {
    let bus = session_bus::SessionBus::start();
    let address = bus.address.clone();
    let (_portal, _bound) = portal_on(&address, 1).await;
    let service = zbus::connection::Builder::address(address.as_str())
        .unwrap()
        .build()
        .await
        .unwrap();
    let key = Key::parse("<Control><Alt>n").unwrap();
    let refused = listen(service, &key, "Quick note (inkling)", || {})
        .await
        .expect_err("a refused shortcut is an error");
    assert!(
        format!("{refused:#}").contains("the shortcut was not allowed"),
        "{refused:#}"
    );
}

#[actix_rt::test]
async fn without_a_portal_listening_fails_saying_so() {
    let bus = session_bus::SessionBus::start();
    let address = bus.address.clone();
    let service = zbus::connection::Builder::address(address.as_str())
        .unwrap()
        .build()
        .await
        .unwrap();
    let key = Key::parse("<Control><Alt>n").unwrap();
    let failed = listen(service, &key, "Quick note (inkling)", || {})
        .await
        .expect_err("no portal on the bus");
    assert!(!format!("{failed:#}").is_empty());
}
