//! The web clipper (`extension/`) loaded in real headless Chromium (`--load-extension`
//! needs `--headless=new`): paired through its options page with a code from the API
//! (`inkling pair`'s), then a local page with selected text saved through the
//! extension's service worker, exactly as its toolbar button does (`clipTab`), and the
//! note read back through the API, enriched by the fake model like any note. Then its
//! plain-words errors: revoked, and inkling not running.
//!
//! WebDriver cannot click a toolbar button, and `activeTab` (what the click grants) is
//! not granted without one; so the test's copy of the extension also names the test
//! page's origin in `host_permissions`, and its options page asks the worker to clip
//! the page's tab, the same function the click calls.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use fantoccini::{Client, Locator};
use inkling::clock::SystemClock;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::eventually::eventually_within;
use crate::fake_http::FakeListener;
use crate::fake_ollama::FakeOllama;
use crate::harness::Driver;
use crate::ports::free_port;
use crate::service::{start_service, test_settings};

const PAGE: &str = "<!doctype html><html><head><meta charset=utf-8><title>Clip test page</title>\
</head><body><h1>A page to clip</h1><p id=quote>the words worth keeping</p>\
<p>and the rest of the page</p></body></html>";

/// A local web page, served on a port of its own (not inkling's).
async fn serve_page() -> FakeListener {
    FakeListener::start_new("test page", |mut stream| async move {
        let mut request = Vec::new();
        let mut buffer = [0u8; 1024];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => request.extend_from_slice(&buffer[..n]),
            }
        }
        let answer = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
            PAGE.len()
        );
        let _ = stream.write_all(answer.as_bytes()).await;
    })
    .await
}

/// The extension copied into `into`, its `host_permissions` naming the service's port
/// (as a person whose `http.port` is not 7373 edits it) and the test page's origin.
fn extension_copy(into: &Path, service_port: u16, page_origin: &str) -> std::path::PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension");
    let copy = into.join("extension");
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(&source).expect("extension/ is in the repository") {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let manifest_path = copy.join("manifest.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    assert_eq!(
        manifest["host_permissions"],
        json!(["http://127.0.0.1:7373/*"]),
        "the shipped extension may reach inkling's default port alone"
    );
    manifest["host_permissions"] = json!([
        format!("http://127.0.0.1:{service_port}/*"),
        format!("{page_origin}/*"),
    ]);
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    copy.canonicalize().unwrap()
}

/// Chromium's id for an unpacked extension: the SHA-256 of its absolute path, the
/// first 32 hex digits written with the letters a to p.
fn unpacked_extension_id(path: &Path) -> String {
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    digest
        .iter()
        .take(16)
        .flat_map(|b| [b >> 4, b & 0x0f])
        .map(|nibble| (b'a' + nibble) as char)
        .collect()
}

async fn api(base: &str, token: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    let client = awc::Client::new();
    let url = format!("{base}{path}");
    let request = match method {
        "POST" => client.post(url),
        "DELETE" => client.delete(url),
        _ => client.get(url),
    }
    .bearer_auth(token);
    let mut response = match body {
        Some(body) => request.send_json(&body).await.unwrap(),
        None => request.send().await.unwrap(),
    };
    response.json().await.unwrap_or(Value::Null)
}

async fn eval(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.unwrap()
}

/// Asks the extension's worker, from its options page, to save the tab showing `url`:
/// what the toolbar button does. (The tab is found among all of them: Firefox's match
/// patterns, which `tabs.query`'s `url` takes, have no port.)
async fn clip_tab_of(client: &Client, url: &str) -> Value {
    let script = format!(
        "const done = arguments[arguments.length - 1];
         chrome.tabs.query({{}})
           .then((all) => all.filter((tab) => tab.url === {url:?}))
           .then((tabs) => chrome.runtime.sendMessage({{ kind: 'clip-tab', tabId: tabs[0].id }}))
           .then(done, (e) => done({{ ok: false, error: 'test: ' + e }}));"
    );
    client.execute_async(&script, vec![]).await.unwrap()
}

/// How the test has the extension save the page's tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HowToClip {
    /// Its options page asks its worker to (`clip-tab`), the function the button calls:
    /// WebDriver cannot click Chromium's toolbar, and `activeTab` comes only with a click.
    AskTheWorker,
    /// Its toolbar button, pressed in the browser's own window (Firefox's chrome context,
    /// `clipper_firefox::press_button`): `activeTab` granted as by a person's click.
    PressTheButton,
}

/// The two tabs of the test: the extension's options page and the page to clip.
pub struct Tabs {
    pub options: fantoccini::wd::WindowHandle,
    pub page: fantoccini::wd::WindowHandle,
}

/// Has the extension save the tab showing `url`, `how`; answers its outcome, `{ok,
/// error}`, with the options page's tab current again.
async fn clip(client: &Client, how: HowToClip, tabs: &Tabs, url: &str) -> Value {
    match how {
        HowToClip::AskTheWorker => {
            client.switch_to_window(tabs.options.clone()).await.unwrap();
            clip_tab_of(client, url).await
        }
        HowToClip::PressTheButton => {
            client.switch_to_window(tabs.options.clone()).await.unwrap();
            let before = client.execute_async(LAST_CLIP, vec![]).await.unwrap();
            client.switch_to_window(tabs.page.clone()).await.unwrap();
            crate::clipper_firefox::press_button(client).await;
            client.switch_to_window(tabs.options.clone()).await.unwrap();
            eventually_within(Duration::from_secs(20), "the button's outcome", || {
                let (client, before) = (client.clone(), before.clone());
                async move {
                    let last = client.execute_async(LAST_CLIP, vec![]).await.unwrap();
                    (last != before && !last.is_null()).then_some(last)
                }
            })
            .await
        }
    }
}

/// The outcome the worker kept of its last clip (`chrome.storage.local`'s `lastClip`).
const LAST_CLIP: &str = "const done = arguments[arguments.length - 1];
    chrome.storage.local.get('lastClip').then((kept) => done(kept.lastClip || null));";

/// The button's badge and tooltip on the tab showing `url`: how the button says what
/// happened.
async fn badge_of(client: &Client, url: &str) -> (String, String) {
    let script = format!(
        "const done = arguments[arguments.length - 1];
         chrome.tabs.query({{}})
           .then((all) => all.filter((tab) => tab.url === {url:?}))
           .then((tabs) => Promise.all([
             chrome.action.getBadgeText({{ tabId: tabs[0].id }}),
             chrome.action.getTitle({{ tabId: tabs[0].id }}),
           ]))
           .then(done, (e) => done(['test: ' + e, '']));"
    );
    let badge = client.execute_async(&script, vec![]).await.unwrap();
    (
        badge[0].as_str().unwrap_or_default().to_owned(),
        badge[1].as_str().unwrap_or_default().to_owned(),
    )
}

/// The service, the test page and the extension's copy, the same for either browser.
pub struct Setup {
    pub service: crate::service::RunningService,
    pub service_port: u16,
    pub page: FakeListener,
    pub page_url: String,
    pub extension: std::path::PathBuf,
    pub work: tempfile::TempDir,
    _fake: FakeOllama,
    _data_dir: tempfile::TempDir,
}

pub async fn setup() -> Setup {
    let fake = FakeOllama::start_new().await;
    let data_dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let ollama = fake.url();
    let settings = test_settings(
        data_dir.path(),
        &[
            ("INKLING_HTTP__PORT", port.as_str()),
            ("INKLING_OLLAMA__URL", ollama.as_str()),
            ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0"),
        ],
    );
    let service = start_service(&settings, Arc::new(SystemClock)).await;
    let service_port: u16 = service.address.rsplit(':').next().unwrap().parse().unwrap();
    let page = serve_page().await;
    let page_url = format!("{}/article.html", page.url());
    let work = tempfile::tempdir().unwrap();
    let extension = extension_copy(work.path(), service_port, &page.url());
    Setup {
        service,
        service_port,
        page,
        page_url,
        extension,
        work,
        _fake: fake,
        _data_dir: data_dir,
    }
}

#[actix_rt::test]
async fn the_extension_pairs_and_saves_a_page_with_its_selection() {
    let setup = setup().await;
    let id = unpacked_extension_id(&setup.extension);
    let driver = Driver::start();
    let profile = setup.work.path().join("profile");
    let client = driver
        .open_browser_with(
            &profile,
            &[
                format!("--load-extension={}", setup.extension.display()),
                format!("--disable-extensions-except={}", setup.extension.display()),
            ],
        )
        .await;
    let options = format!("chrome-extension://{id}/options.html");
    pairs_and_saves(
        &client,
        setup,
        Some(&options),
        "Chromium clipper",
        HowToClip::AskTheWorker,
    )
    .await;
    let _ = client.close().await;
    drop(driver);
}

/// The clipper's whole life in a browser whose extension's options page is at
/// `options` (`None`: the browser shows it already): paired, a page saved with its selection and enriched, then refused in
/// plain words once revoked and once inkling is stopped. `device`: the name the options
/// page gives the browser.
pub async fn pairs_and_saves(
    client: &Client,
    setup: Setup,
    options: Option<&str>,
    device: &str,
    how: HowToClip,
) {
    let (base, token) = (setup.service.address.clone(), setup.service.token.clone());
    let (service_port, page_url) = (setup.service_port, setup.page_url.clone());
    // Pair: the code `inkling pair` shows, entered in the options page.
    let code = api(
        &base,
        &token,
        "POST",
        "/api/devices/pairing-code",
        Some(json!({})),
    )
    .await;
    let code = code["code"].as_str().expect("a pairing code").to_owned();
    if let Some(options) = options {
        client.goto(options).await.unwrap();
    }
    eventually_within(Duration::from_secs(20), "the options page is ready", || {
        let client = client.clone();
        async move {
            let ready = eval(&client, "return document.body.dataset.ready === 'true'").await;
            (ready == true).then_some(())
        }
    })
    .await;
    let field = |css: &'static str| {
        let client = client.clone();
        async move { client.find(Locator::Css(css)).await.unwrap() }
    };
    field("#port").await.clear().await.unwrap();
    field("#port")
        .await
        .send_keys(&service_port.to_string())
        .await
        .unwrap();
    field("#code").await.send_keys(&code).await.unwrap();
    field("button[type=submit]").await.click().await.unwrap();
    let result = eventually_within(Duration::from_secs(20), "the options page pairs", || {
        let client = client.clone();
        async move {
            let text = eval(
                &client,
                "return document.getElementById('result').textContent",
            )
            .await;
            let text = text.as_str().unwrap_or("").to_owned();
            (text != "Pairing…" && !text.is_empty()).then_some(text)
        }
    })
    .await;
    assert!(result.starts_with("Paired."), "{result}");
    let devices = api(&base, &token, "GET", "/api/devices", None).await;
    assert_eq!(devices[0]["name"], device, "{devices}");

    // The page, with words selected, in a tab of its own.
    let options_tab = client.window().await.unwrap();
    let page_tab = client.new_window(true).await.unwrap();
    client
        .switch_to_window(page_tab.handle.clone())
        .await
        .unwrap();
    client.goto(&page_url).await.unwrap();
    eval(
        client,
        "const range = document.createRange();
         range.selectNodeContents(document.getElementById('quote'));
         getSelection().removeAllRanges(); getSelection().addRange(range);
         return String(getSelection());",
    )
    .await;

    // The button's work.
    let tabs = Tabs {
        options: options_tab.clone(),
        page: page_tab.handle.clone(),
    };
    let outcome = clip(client, how, &tabs, &page_url).await;
    assert_eq!(outcome["ok"], true, "{outcome}");
    let expected = format!("[Clip test page]({page_url})\n\n> the words worth keeping");
    let notes = api(&base, &token, "GET", "/api/notes", None).await;
    assert_eq!(notes.as_array().unwrap().len(), 1, "{notes}");
    let note_id = notes[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(notes[0]["body"], expected.as_str());
    assert_eq!(
        badge_of(client, &page_url).await,
        ("✓".to_owned(), "Saved to inkling".to_owned())
    );

    // The AI enriches it like any note.
    eventually_within(Duration::from_secs(20), "the clip is enriched", || {
        let (base, token, note_id) = (base.clone(), token.clone(), note_id.clone());
        async move {
            let note = api(&base, &token, "GET", &format!("/api/notes/{note_id}"), None).await;
            (note["ai_status"] == "done").then_some(())
        }
    })
    .await;

    // Revoked: the button says so in plain words, and nothing is saved.
    let device = devices[0]["id"].as_str().unwrap();
    api(
        &base,
        &token,
        "DELETE",
        &format!("/api/devices/{device}"),
        None,
    )
    .await;
    let outcome = clip(client, how, &tabs, &page_url).await;
    assert_eq!(outcome["ok"], false);
    let error = outcome["error"].as_str().unwrap();
    assert!(
        error.contains("no longer paired") && error.contains("inkling pair"),
        "{error}"
    );
    assert_eq!(
        badge_of(client, &page_url).await,
        ("!".to_owned(), error.to_owned())
    );
    assert_eq!(
        api(&base, &token, "GET", "/api/notes", None)
            .await
            .as_array()
            .map(Vec::len),
        Some(1),
        "nothing saved"
    );

    // inkling stopped: says how to start it.
    setup.service.handle.stop(true).await;
    let outcome = clip(client, how, &tabs, &page_url).await;
    let error = outcome["error"].as_str().unwrap();
    assert!(error.contains("inkling isn't running"), "{error}");

    drop(setup.page);
}
