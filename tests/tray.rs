//! The tray on a real D-Bus session bus: a private `dbus-daemon`, a stand-in
//! StatusNotifierWatcher, and the service with a fake Ollama. The menu is read the way a
//! desktop reads it (`com.canonical.dbusmenu.GetLayout`) and clicked the way a desktop
//! clicks it (`Event(id, "clicked")`).
//!
//! One test in this binary: ksni finds the bus through `DBUS_SESSION_BUS_ADDRESS`,
//! which is process-wide. Needs `dbus-daemon` (scripts/test.sh installs it).

#[path = "support/eventually.rs"]
mod eventually;
#[path = "support/fake_http.rs"]
mod fake_http;
#[path = "support/fake_ollama.rs"]
mod fake_ollama;
#[path = "support/ports.rs"]
mod ports;
#[path = "support/service.rs"]
mod service;
#[path = "support/session_bus.rs"]
mod session_bus;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fake_ollama::{FakeOllama, Reply};
use inkling::clock::SystemClock;

use serde_json::{json, Value};
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Structure, Value as DbusValue};

/// Just enough of `org.kde.StatusNotifierWatcher` for an item to register.
struct FakeWatcher {
    items: Arc<Mutex<Vec<String>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl FakeWatcher {
    fn register_status_notifier_item(&self, service: String) {
        self.items.lock().unwrap().push(service);
    }
    fn register_status_notifier_host(&self, _service: String) {}
    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items.lock().unwrap().clone()
    }
    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }
    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }
}

#[derive(Debug, Clone)]
struct Item {
    id: i32,
    label: String,
    enabled: bool,
}

fn parse_node(value: &DbusValue<'_>, out: &mut Vec<Item>) {
    let node: &Structure = match value {
        DbusValue::Structure(s) => s,
        DbusValue::Value(inner) => return parse_node(inner, out),
        other => panic!("unexpected menu node {other:?}"),
    };
    let fields = node.fields();
    let id = i32::try_from(&fields[0]).unwrap();
    let props: HashMap<String, OwnedValue> =
        HashMap::try_from(fields[1].try_clone().unwrap()).unwrap();
    let label = props
        .get("label")
        .map(|v| String::try_from(v.try_clone().unwrap()).unwrap())
        .unwrap_or_default();
    // dbusmenu leaves out default values: no "enabled" means enabled.
    let enabled = props
        .get("enabled")
        .map(|v| bool::try_from(v).unwrap())
        .unwrap_or(true);
    if id != 0 {
        out.push(Item { id, label, enabled });
    }
    if let DbusValue::Array(children) = &fields[2] {
        for child in children.iter() {
            parse_node(child, out);
        }
    }
}

async fn menu_proxy<'a>(bus: &'a zbus::Connection, item: &str) -> zbus::Proxy<'a> {
    let sni = zbus::Proxy::new(
        bus,
        item.to_string(),
        "/StatusNotifierItem",
        "org.kde.StatusNotifierItem",
    )
    .await
    .unwrap();
    let path: OwnedObjectPath = sni.get_property("Menu").await.unwrap();
    zbus::Proxy::new(bus, item.to_string(), path, "com.canonical.dbusmenu")
        .await
        .unwrap()
}

async fn read_menu(bus: &zbus::Connection, item: &str) -> Vec<Item> {
    type Node = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);
    let menu = menu_proxy(bus, item).await;
    let (_revision, (_root, _props, children)): (u32, Node) = menu
        .call("GetLayout", &(0i32, -1i32, Vec::<String>::new()))
        .await
        .unwrap();
    let mut items = Vec::new();
    for child in &children {
        parse_node(child, &mut items);
    }
    items
}

/// Clicks the item with this label (ids change with every layout: read them first).
async fn click(bus: &zbus::Connection, item: &str, label: &str) {
    let menu = read_menu(bus, item).await;
    let id = menu
        .iter()
        .find(|i| i.label.starts_with(label))
        .unwrap_or_else(|| panic!("no {label} in {menu:?}"))
        .id;
    let proxy = menu_proxy(bus, item).await;
    let _: () = proxy
        .call("Event", &(id, "clicked", DbusValue::from(0i32), 0u32))
        .await
        .unwrap();
}

/// Polls until the menu satisfies `check` (the desktop sees changes asynchronously).
async fn wait_for_menu(
    bus: &zbus::Connection,
    item: &str,
    what: &str,
    check: impl Fn(&[Item]) -> bool,
) {
    let check = &check;
    eventually::eventually(&format!("the menu showing {what}"), || async move {
        check(&read_menu(bus, item).await).then_some(())
    })
    .await;
}

async fn api(url: &str, token: &str, method: &str, path: &str) -> Value {
    let client = awc::Client::new();
    let request = match method {
        "POST" => client.post(format!("{url}{path}")),
        _ => client.get(format!("{url}{path}")),
    }
    .bearer_auth(token);
    let mut response = if method == "POST" {
        request.send_json(&json!({})).await.unwrap()
    } else {
        request.send().await.unwrap()
    };
    response.json().await.unwrap_or(Value::Null)
}

#[actix_rt::test]
async fn the_tray_menu_on_a_real_bus_follows_the_service_and_its_clicks_work() {
    let dir = tempfile::tempdir().unwrap();
    let bus = session_bus::SessionBus::start();
    let address = bus.address.clone();
    // The only test in this binary, so no other test reads the variable meanwhile.
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", &address);
    let registered = Arc::new(Mutex::new(Vec::new()));
    let _watcher = zbus::connection::Builder::address(address.as_str())
        .unwrap()
        .name("org.kde.StatusNotifierWatcher")
        .unwrap()
        .serve_at(
            "/StatusNotifierWatcher",
            FakeWatcher {
                items: registered.clone(),
            },
        )
        .unwrap()
        .build()
        .await
        .unwrap();

    let mut fake = FakeOllama::start_new().await;
    fake.set_default(Reply::WrongSchema);
    let fake_url = fake.url();
    let settings = service::test_settings(
        &dir.path().join("data"),
        &[
            ("INKLING_TRAY__ENABLED", "true"),
            ("INKLING_OLLAMA__URL", fake_url.as_str()),
            ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0"),
        ],
    );
    let service = service::start_service(&settings, Arc::new(SystemClock)).await;
    let (url, running, token) = (service.address, service.stopped, service.token);

    let item = eventually::eventually("the tray registered with the watcher", || {
        let first = registered.lock().unwrap().first().cloned();
        async move { first }
    })
    .await;
    let desktop = zbus::connection::Builder::address(address.as_str())
        .unwrap()
        .build()
        .await
        .unwrap();

    // At rest: Ollama ready, nothing failed.
    wait_for_menu(&desktop, &item, "the resting menu", |menu| {
        menu.iter().map(|i| i.label.as_str()).collect::<Vec<_>>()
            == [
                "Open inbox",
                "Quick note…",
                "Export usage log…",
                "Recheck Ollama",
                "Process AI now (0 failed)",
                "Quit",
            ]
            && menu.iter().map(|i| i.enabled).collect::<Vec<_>>()
                == [true, true, true, false, false, true]
    })
    .await;

    // Two notes fail: the label counts them and the item is enabled.
    api(&url, &token, "GET", "/api/status").await;
    for body in ["one", "two"] {
        awc::Client::new()
            .post(format!("{url}/api/notes"))
            .bearer_auth(&token)
            .send_json(&json!({ "body": body }))
            .await
            .unwrap();
    }
    wait_for_menu(&desktop, &item, "two failed", |menu| {
        menu[4].label == "Process AI now (2 failed)" && menu[4].enabled
    })
    .await;

    // Ollama goes down: Recheck is enabled.
    fake.stop();
    api(&url, &token, "POST", "/api/ollama/recheck").await;
    wait_for_menu(&desktop, &item, "recheck enabled", |menu| menu[3].enabled).await;

    // "Process AI now", clicked like a desktop does: the notes go back to pending.
    click(&desktop, &item, "Process AI now").await;
    wait_for_menu(&desktop, &item, "nothing failed", |menu| {
        menu[4].label == "Process AI now (0 failed)" && !menu[4].enabled
    })
    .await;
    assert_eq!(
        api(&url, &token, "GET", "/api/inbox/failed-count").await,
        json!(0)
    );
    let pending = api(&url, &token, "GET", "/api/notes?status=pending").await;
    assert_eq!(pending.as_array().unwrap().len(), 2);

    // Quit takes the same graceful path as SIGTERM: the service stops, cleanly.
    click(&desktop, &item, "Quit").await;
    let stopped = actix_rt::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("stopped within 10 s")
        .unwrap();
    assert!(stopped.is_ok(), "{stopped:?}");
}
