//! The web clipper (`extension/`) in real headless Firefox (Debian's `firefox-esr`),
//! driven by geckodriver: the same life as in Chromium (`clipper.rs`'s
//! [`pairs_and_saves`]): paired through its options page, a page saved with its
//! selection and enriched, then refused in plain words once revoked and once inkling is
//! stopped. The one manifest serves both browsers (a background `scripts` list beside the
//! `service_worker`, and the `gecko` id).
//!
//! The extension is installed as a temporary add-on (geckodriver's
//! `POST /session/{id}/moz/addon/install`, what `about:debugging` does), unsigned as any
//! add-on loaded that way. Its internal address (`moz-extension://UUID/`) is random per
//! profile unless the profile names it: the `extensions.webextensions.uuids` preference
//! gives it one. WebDriver may not navigate to such a page, so the browser's own
//! (chrome) context opens the options page (`open_options`), and presses the toolbar
//! button as a person's click does ([`press_button`]): a truer test than Chromium's,
//! whose toolbar WebDriver cannot reach.
//!
//! What it found: Firefox holds a Manifest V3 extension's requests to CORS, so inkling
//! answers an extension's preflight and names it in its answers
//! (`src/http/server/guard.rs`); and here it showed the test page's tab without its
//! address despite the host permission for its origin (a port in it), so the address
//! comes from the click's `activeTab`.
//!
//! geckodriver is not a Debian package: `scripts/test.sh` builds it from its crates.io
//! sources (`cargo install`) into the test tools' cache and exports `GECKODRIVER`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::json;

use crate::clipper::{pairs_and_saves, setup, HowToClip};
use crate::harness::SessionPost;
use crate::ports::free_port;

const FIREFOX: &str = "/usr/bin/firefox-esr";
/// The manifest's `browser_specific_settings.gecko.id`.
const ADDON_ID: &str = "clipper@inkling.invalid";
/// The extension's internal host in the test's profile.
const ADDON_UUID: &str = "0b1f6a52-5d2e-4c57-9e55-3f1c7a0d2b91";

/// geckodriver, killed when dropped.
struct Gecko {
    child: Child,
    port: u16,
}

impl Drop for Gecko {
    fn drop(&mut self) {
        // The Firefox it started first: killed, geckodriver leaves it running (its
        // content processes end with it).
        for firefox in children_of(self.child.id()) {
            let _ = Command::new("kill")
                .arg("-9")
                .arg(firefox.to_string())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes whose parent is `parent`, from `/proc/*/stat`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // "pid (name) state ppid ...": the name may hold spaces, so after its ')'.
            let ppid: u32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (ppid == parent).then_some(pid)
        })
        .collect()
}

fn geckodriver() -> PathBuf {
    let path = std::env::var_os("GECKODRIVER").map(PathBuf::from);
    match path {
        Some(path) if path.exists() && Path::new(FIREFOX).exists() => path,
        _ => panic!(
            "Firefox's test tools are missing (GECKODRIVER={:?}, {FIREFOX}): run \
             scripts/test.sh, which installs firefox-esr and builds geckodriver",
            std::env::var_os("GECKODRIVER")
        ),
    }
}

impl Gecko {
    fn start() -> Gecko {
        let port = free_port();
        let child = Command::new(geckodriver())
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("geckodriver starts");
        Gecko { child, port }
    }

    /// A new headless Firefox on a fresh profile that gives the clipper [`ADDON_UUID`].
    async fn open_browser(&self) -> Client {
        let uuids = json!({ ADDON_ID: ADDON_UUID }).to_string();
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), json!("firefox"));
        capabilities.insert(
            "moz:firefoxOptions".into(),
            json!({
                "binary": FIREFOX,
                // The chrome context opens the options page (below).
                "args": ["-headless", "-remote-allow-system-access"],
                "prefs": { "extensions.webextensions.uuids": uuids },
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        for _ in 0..100 {
            match ClientBuilder::new(connector.clone())
                .capabilities(capabilities.clone())
                .connect(&format!("http://127.0.0.1:{}", self.port))
                .await
            {
                Ok(client) => return client,
                // geckodriver still starting: waiting for a process.
                Err(_) => actix_rt::time::sleep(Duration::from_millis(100)).await,
            }
        }
        panic!("geckodriver on port {} never took a session", self.port);
    }
}

/// geckodriver's own command: scripts run in the browser's own (chrome) context, or back
/// in the page's.
fn set_context(chrome: bool) -> SessionPost {
    let context = if chrome { "chrome" } else { "content" };
    SessionPost {
        path: "moz/context",
        body: json!({ "context": context }),
    }
}

/// Opens `url` (an extension's page, which WebDriver may not navigate to) in the current
/// tab, as the browser itself does when the add-ons manager opens its options.
async fn open_options(client: &Client, url: &str) {
    client.issue_cmd(set_context(true)).await.unwrap();
    client
        .execute(
            "const [url] = arguments;
             const browser = Services.wm.getMostRecentWindow('navigator:browser').gBrowser;
             browser.selectedBrowser.loadURI(Services.io.newURI(url), {
               triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal(),
             });",
            vec![json!(url)],
        )
        .await
        .unwrap();
    client.issue_cmd(set_context(false)).await.unwrap();
}

/// Presses the clipper's toolbar button in the current tab, as a person's click does
/// (`activeTab` granted for the tab, then the action's `onClicked`).
pub async fn press_button(client: &Client) {
    client.issue_cmd(set_context(true)).await.unwrap();
    let pressed = client
        .execute(
            "const [id] = arguments;
             const { ExtensionParent } = ChromeUtils.importESModule(
               'resource://gre/modules/ExtensionParent.sys.mjs');
             const extension = WebExtensionPolicy.getByID(id).extension;
             const window = Services.wm.getMostRecentWindow('navigator:browser');
             ExtensionParent.apiManager.global.browserActionFor(extension).triggerAction(window);
             return true;",
            vec![json!(ADDON_ID)],
        )
        .await;
    client.issue_cmd(set_context(false)).await.unwrap();
    assert_eq!(pressed.expect("the button is pressed"), json!(true));
}

#[actix_rt::test]
async fn in_firefox_the_extension_pairs_and_saves_a_page_with_its_selection() {
    let setup = setup().await;
    let gecko = Gecko::start();
    let client = gecko.open_browser().await;
    let installed = client
        .issue_cmd(SessionPost {
            // geckodriver's own: the add-on in a folder, installed for this session.
            path: "moz/addon/install",
            body: json!({ "path": setup.extension.display().to_string(), "temporary": true }),
        })
        .await
        .expect("Firefox installs the clipper");
    assert_eq!(installed, json!(ADDON_ID));
    let options = format!("moz-extension://{ADDON_UUID}/options.html");
    open_options(&client, &options).await;
    pairs_and_saves(
        &client,
        setup,
        None,
        "Firefox clipper",
        HowToClip::PressTheButton,
    )
    .await;
    let _ = client.close().await;
    drop(gecko);
}
