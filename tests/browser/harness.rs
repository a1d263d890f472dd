//! A browser session per test: chromedriver on a free port, Chromium headless, and
//! the service with a fake Ollama and a fresh data dir.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use inkling::clock::SystemClock;
use inkling::configuration::Settings;
use inkling::startup::Application;
use serde_json::{json, Value};

use crate::fake_ollama::FakeOllama;
use crate::ports::free_port;
use crate::service::{start_service, test_settings};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// chromedriver, killed when dropped.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    /// chromedriver on a free port (Chromium and chromedriver must be installed).
    pub fn start() -> Driver {
        assert!(
            Path::new(CHROMEDRIVER).exists() && Path::new(CHROMIUM).exists(),
            "Chromium and chromedriver are missing: run scripts/test.sh, which installs them"
        );
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        Driver { child, port }
    }

    /// A new Chromium, headless, on the profile in `profile` (kept between browsers).
    async fn open_browser(&self, profile: &Path) -> Client {
        self.open_browser_with(profile, &[]).await
    }

    /// [`Self::open_browser`] with more of Chromium's switches (`--load-extension`);
    /// chromedriver's own `--disable-extensions` is then left out.
    pub async fn open_browser_with(&self, profile: &Path, extra: &[String]) -> Client {
        let mut args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            "--window-size=1000,1000".into(),
            format!("--user-data-dir={}", profile.display()),
        ];
        args.extend_from_slice(extra);
        let mut options = json!({ "binary": CHROMIUM, "args": args });
        if !extra.is_empty() {
            options["excludeSwitches"] = json!(["disable-extensions"]);
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), options);
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        for _ in 0..100 {
            match ClientBuilder::new(connector.clone())
                .capabilities(capabilities.clone())
                .connect(&format!("http://127.0.0.1:{}", self.port))
                .await
            {
                Ok(client) => return client,
                // chromedriver is still starting: waiting for a process, not a timed rule.
                Err(_) => actix_rt::time::sleep(Duration::from_millis(100)).await,
            }
        }
        panic!("no WebDriver session");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The two screens the page is tried on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Desktop,
    Phone,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Light,
    Dark,
}

/// A driver's own command (beyond WebDriver's): `POST session/{id}/{path}` with `body`,
/// such as chromedriver's DevTools protocol (`goog/cdp/execute`) or geckodriver's add-ons
/// and contexts (`moz/...`).
#[derive(Debug)]
pub struct SessionPost {
    pub path: &'static str,
    pub body: Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for SessionPost {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/{}",
            session_id.unwrap_or_default(),
            self.path
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// Moves the pointer over `element` (scrolled into view first), as a person's hand
/// goes to what it clicks.
async fn point_at(
    client: &Client,
    element: &fantoccini::elements::Element,
) -> Result<(), fantoccini::error::CmdError> {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    client
        .execute(
            "arguments[0].scrollIntoView({ block: 'center', inline: 'nearest' });",
            vec![serde_json::to_value(element)?],
        )
        .await?;
    let pointer = MouseActions::new("mouse".into()).then(PointerAction::MoveToElement {
        element: element.clone(),
        duration: None,
        x: 0.0,
        y: 0.0,
    });
    client.perform_actions(pointer).await
}

/// A JS expression: the URL of the page's module `name` (`"notes.js"`), under this
/// run's asset path, so that `import()` gives the page's own instance of it.
pub fn module(name: &str) -> String {
    format!("new URL('./{name}', document.querySelector('script[type=module]').src)")
}

/// A script: the session the page holds in this origin's IndexedDB, as
/// `{id, key: {type, extractable, algorithm, usages}}`, or null.
pub const HELD_SESSION: &str = "return new Promise((done) => {
  const opening = indexedDB.open('inkling');
  opening.onerror = () => done(null);
  opening.onupgradeneeded = () => { opening.transaction.abort(); };
  opening.onsuccess = () => {
    const db = opening.result;
    if (!db.objectStoreNames.contains('page')) { db.close(); return done(null); }
    const got = db.transaction('page').objectStore('page').get('session');
    got.onerror = () => done(null);
    got.onsuccess = () => {
      db.close();
      const held = got.result;
      done(held ? { id: held.id, key: { type: held.key.type, extractable: held.key.extractable,
        algorithm: held.key.algorithm.name, usages: held.key.usages } } : null);
    };
  };
});";

/// A JS expression: the element takes up space on the page.
pub fn shown(id: &str) -> String {
    format!("document.getElementById('{id}').getClientRects().length > 0")
}

pub struct Browser {
    pub client: Client,
    settings: Settings,
    handle: inkling::http::server::ServerHandle,
    pub app_url: String,
    pub token: String,
    pub fake: FakeOllama,
    _data_dir: tempfile::TempDir,
    _profile: tempfile::TempDir,
    _driver: Driver,
}

/// Starts the service (with `extra` settings) and a browser, not yet on the page.
pub async fn start(extra: &[(&str, &str)]) -> Browser {
    start_with_notes(extra, 0).await
}

/// Like [`start`], the browser started with more of Chromium's switches (a fake
/// microphone: `--use-file-for-fake-audio-capture`).
pub async fn start_with_browser_args(extra: &[(&str, &str)], args: &[String]) -> Browser {
    start_with(extra, 0, true, chrono::Duration::hours(1), args).await
}

/// Like [`start`], with `notes` notes already in the database (done, so the AI is idle).
pub async fn start_with_notes(extra: &[(&str, &str)], notes: usize) -> Browser {
    start_with(extra, notes, true, chrono::Duration::hours(1), &[]).await
}

/// Like [`start_with_notes`], the notes written `age` ago (a month of use, say).
pub async fn start_with_old_notes(
    extra: &[(&str, &str)],
    notes: usize,
    age: chrono::Duration,
) -> Browser {
    start_with(extra, notes, true, age, &[]).await
}

/// Like [`start`], with `notes` notes already in the database waiting for the AI: a
/// backlog the worker works through once the service starts.
pub async fn start_with_backlog(notes: usize) -> Browser {
    start_with(&[], notes, false, chrono::Duration::hours(1), &[]).await
}

async fn start_with(
    extra: &[(&str, &str)],
    notes: usize,
    enriched: bool,
    age: chrono::Duration,
    browser_args: &[String],
) -> Browser {
    let driver = Driver::start();
    let fake = FakeOllama::start_new().await;
    let data_dir = tempfile::tempdir().unwrap();
    // Not port 0: restart_service listens on the same port again, and a port from
    // below the ephemeral range cannot be taken by an outgoing connection meanwhile.
    let port = free_port().to_string();
    let url = fake.url();
    let mut env = vec![
        ("INKLING_HTTP__PORT", port.as_str()),
        ("INKLING_OLLAMA__URL", url.as_str()),
        ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0"),
    ];
    env.extend_from_slice(extra);
    let settings = test_settings(data_dir.path(), &env);
    if notes > 0 {
        let mut store = inkling::storage::Store::open(&settings.database_path(), 30).unwrap();
        let start = chrono::Utc::now() - age;
        for i in 0..notes {
            let body = inkling::domain::NoteBody::parse(format!("stored note {i}"), 1000).unwrap();
            let id = store
                .capture(&body, start + chrono::Duration::milliseconds(i as i64))
                .unwrap()
                .id;
            if !enriched {
                continue;
            }
            let enrichment = inkling::domain::Enrichment {
                title: format!("Note {i}"),
                tags: vec!["bulk".into()],
                summary: "Stored before the test.".into(),
                read_chars: None,
                remind_phrase: None,
            };
            store
                .save_enrichment(&id, body.as_str(), &enrichment, start)
                .unwrap();
        }
    }
    let service = start_service(&settings, Arc::new(SystemClock)).await;
    let (app_url, handle, token) = (service.address, service.handle, service.token);

    let profile = tempfile::tempdir().unwrap();
    let client = if browser_args.is_empty() {
        driver.open_browser(profile.path()).await
    } else {
        driver.open_browser_with(profile.path(), browser_args).await
    };
    Browser {
        client,
        settings,
        handle,
        app_url,
        token,
        fake,
        _data_dir: data_dir,
        _profile: profile,
        _driver: driver,
    }
}

impl Browser {
    /// The service's data dir (its token is there: what the CLI reads).
    pub fn data_dir(&self) -> std::path::PathBuf {
        self.settings.data_dir()
    }

    /// Stops the service and starts it again on the same port and data dir.
    pub async fn restart_service(&mut self) {
        self.stop_service().await;
        self.start_service_again().await;
    }

    /// Stops the service (gracefully, as SIGTERM does); the page stays open.
    pub async fn stop_service(&self) {
        self.handle.stop(true).await;
    }

    /// Starts the stopped service again on its port and data dir.
    pub async fn start_service_again(&mut self) {
        let port: u16 = self.app_url.rsplit(':').next().unwrap().parse().unwrap();
        let mut settings = self.settings.clone();
        settings.http.port = port;
        let mut app = None;
        for _ in 0..100 {
            match Application::build(settings.clone(), Arc::new(SystemClock)).await {
                Ok(built) => {
                    app = Some(built);
                    break;
                }
                // The old listener is still closing: waiting for the OS, not a timed rule.
                Err(_) => actix_rt::time::sleep(Duration::from_millis(50)).await,
            }
        }
        let app = app.expect("the service starts again");
        self.handle = app.handle();
        actix_rt::spawn(app.run_until_stopped());
    }

    /// Opens the page as `inkling open` does, with a fresh one-time code in the URL.
    pub async fn open_inbox(&self) {
        let code = self.api("POST", "/api/open-code", Some(json!({}))).await;
        let code = code["code"].as_str().expect("a one-time code");
        self.client
            .goto(&format!("{}/?code={code}", self.app_url))
            .await
            .unwrap();
        self.wait_visible("app").await;
    }

    /// Captures `bodies` through the API (the last is the newest), then opens the page
    /// and waits until it lists them.
    pub async fn open_inbox_with_notes(&self, bodies: &[&str]) {
        for body in bodies {
            self.api("POST", "/api/notes", Some(json!({ "body": body })))
                .await;
        }
        self.open_inbox().await;
        self.wait_until(
            "the notes are listed",
            &format!(
                "document.querySelectorAll('#notes .note').length === {}",
                bodies.len()
            ),
        )
        .await;
    }

    /// Calls the API as the CLI would.
    pub async fn api(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let client = awc::Client::new();
        let url = format!("{}{path}", self.app_url);
        let request = match method {
            "POST" => client.post(url),
            "PATCH" => client.patch(url),
            _ => client.get(url),
        }
        .bearer_auth(&self.token);
        let mut response = match body {
            Some(body) => request.send_json(&body).await.unwrap(),
            None => request.send().await.unwrap(),
        };
        response.json().await.unwrap_or(Value::Null)
    }

    /// Asks the API for `path` until `done` says yes, and returns that answer; the
    /// service works asynchronously (the AI, the counts).
    pub async fn wait_for_api(
        &self,
        what: &str,
        path: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        for _ in 0..200 {
            let answer = self.api("GET", path, None).await;
            if done(&answer) {
                return answer;
            }
            actix_rt::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("never happened: {what} ({path})");
    }

    /// Runs a script in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.client.execute(script, vec![]).await.unwrap()
    }

    /// Polls `condition` (a JS expression) until true; the page updates asynchronously.
    pub async fn wait_until(&self, what: &str, condition: &str) {
        for _ in 0..200 {
            if self.eval(&format!("return Boolean({condition});")).await == json!(true) {
                return;
            }
            actix_rt::time::sleep(Duration::from_millis(50)).await;
        }
        let body = self.eval("return document.body.innerText;").await;
        panic!(
            "never happened: {what}\npage text:\n{}",
            body.as_str().unwrap_or("")
        );
    }

    /// Waits until the element is on screen (rendered with a size, not just without
    /// the `hidden` attribute: CSS can override that).
    pub async fn wait_visible(&self, id: &str) {
        self.wait_until(&format!("#{id} visible"), &shown(id)).await;
    }

    /// Whether the element is on screen now.
    pub async fn is_shown(&self, id: &str) -> bool {
        self.eval(&format!("return {};", shown(id))).await == json!(true)
    }

    /// The text of the first element matching `css` (found again if a re-render made
    /// it stale, as `click` does).
    pub async fn text(&self, css: &str) -> String {
        self.on_fresh_element(css, |element| async move { element.text().await })
            .await
    }

    /// Clicks the first element matching `css`. The page re-renders lists when live
    /// updates arrive (and reloads them when the live feed connects), so an element
    /// found a moment ago may be gone: find it again.
    ///
    /// The pointer goes over the element first, as a person's does: a card's actions
    /// show only while the card is pointed at (or holds the focus).
    pub async fn click(&self, css: &str) {
        let client = self.client.clone();
        self.on_fresh_element(css, |element| {
            let client = client.clone();
            async move {
                point_at(&client, &element).await?;
                element.click().await
            }
        })
        .await
    }

    /// Presses Ctrl+Enter in the capture box (the page's "save"), as a person would.
    pub async fn save_with_ctrl_enter(&self) {
        let textarea = self
            .client
            .find(fantoccini::Locator::Id("capture-body"))
            .await
            .unwrap();
        // WebDriver key codes: Control (held), Enter, release.
        textarea
            .send_keys("\u{E009}\u{E007}\u{E000}")
            .await
            .unwrap();
    }

    /// Replaces the text of the first field matching `css` by typing `text` into it.
    pub async fn type_into(&self, css: &str, text: &str) {
        self.on_fresh_element(css, |element| {
            let text = text.to_string();
            async move {
                element.clear().await?;
                element.send_keys(&text).await
            }
        })
        .await
    }

    async fn on_fresh_element<T, F, Fut>(&self, css: &str, action: F) -> T
    where
        F: Fn(fantoccini::elements::Element) -> Fut,
        Fut: std::future::Future<Output = Result<T, fantoccini::error::CmdError>>,
    {
        for _ in 0..50 {
            let element = self.client.find(Locator::Css(css)).await.unwrap();
            match action(element).await {
                Ok(value) => return value,
                Err(fantoccini::error::CmdError::Standard(e))
                    if e.error == fantoccini::error::ErrorStatus::StaleElementReference =>
                {
                    actix_rt::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("cannot use {css}: {e}"),
            }
        }
        panic!("{css} kept going stale");
    }

    /// Saves a screenshot to `docs/NAME` when `INKLING_SCREENSHOTS` is set.
    pub async fn screenshot(&self, name: &str) {
        if std::env::var_os("INKLING_SCREENSHOTS").is_none() {
            return;
        }
        let png = self.client.screenshot().await.unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name);
        std::fs::write(path, png).unwrap();
    }

    /// Runs a Chrome DevTools command in the page's tab (chromedriver's
    /// `goog/cdp/execute`): how a test sets the screen and the colour scheme.
    pub async fn devtools(&self, command: &str, params: Value) {
        self.client
            .issue_cmd(SessionPost {
                path: "goog/cdp/execute",
                body: json!({ "cmd": command, "params": params }),
            })
            .await
            .unwrap_or_else(|e| panic!("DevTools {command}: {e}"));
    }

    /// The page as on `screen`, in the colour scheme `scheme`, from the next render on.
    pub async fn emulate(&self, screen: Screen, scheme: Scheme) {
        let (width, height, mobile) = match screen {
            Screen::Desktop => (1280, 800, false),
            Screen::Phone => (390, 844, true),
        };
        self.devtools(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        )
        .await;
        let scheme = match scheme {
            Scheme::Light => "light",
            Scheme::Dark => "dark",
        };
        self.devtools(
            "Emulation.setEmulatedMedia",
            json!({ "features": [{ "name": "prefers-color-scheme", "value": scheme }] }),
        )
        .await;
    }

    /// Fails the test, saying `context` and each violation, when axe-core finds any on
    /// the page as it is now (see [`Self::accessibility_violations`]).
    pub async fn assert_accessible(&self, context: &str) {
        let violations = self.accessibility_violations().await;
        assert!(
            violations.is_empty(),
            "{context}: axe-core found\n{}",
            violations.join("\n")
        );
    }

    /// Runs axe-core's WCAG 2.x A/AA rules over the page as it is now and returns each
    /// violation as "rule: what, at which elements" (none is a pass). axe-core is
    /// fetched by scripts/test.sh into target/test-tools.
    pub async fn accessibility_violations(&self) -> Vec<String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools/axe.min.js");
        let axe = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "{} is missing: run scripts/test.sh, which fetches axe-core",
                path.display()
            )
        });
        self.client.execute(&axe, vec![]).await.unwrap();
        let found = self
            .client
            .execute_async(
                r#"const done = arguments[arguments.length - 1];
                axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] } })
                  .then(r => done(r.violations.map(v => `${v.id}: ${v.help} at ${v.nodes.map(n => n.target.join(" ")).join(", ")}`)))
                  .catch(e => done([`axe failed: ${e}`]));"#,
                vec![],
            )
            .await
            .unwrap();
        serde_json::from_value(found).unwrap()
    }

    /// The page's visible words outside any "Details" section: what a person reads
    /// without asking for more.
    pub async fn plain_text(&self) -> String {
        let text = self
            .eval(
                r#"const parts = [];
                const walk = (node) => {
                  if (node.nodeType === Node.TEXT_NODE) { parts.push(node.textContent); return; }
                  if (node.nodeType !== Node.ELEMENT_NODE || node.tagName === "DETAILS" || node.tagName === "SCRIPT") return;
                  if (node.getClientRects().length === 0 && node.tagName !== "BODY") return;
                  for (const child of node.childNodes) walk(child);
                };
                walk(document.body);
                return parts.join(" ");"#,
            )
            .await;
        text.as_str().unwrap_or_default().to_string()
    }

    /// Fails when the page shows a technical message outside a "Details" section.
    pub async fn assert_plain_words(&self) {
        let text = self.plain_text().await;
        for technical in [
            "os error",
            "schema:",
            "other:",
            "HTTP 404",
            "HTTP 5",
            "undefined",
            "NaN",
        ] {
            assert!(
                !text.contains(technical),
                "the page shows {technical:?} outside Details:\n{text}"
            );
        }
    }

    /// Presses `key` as a person would, on whatever has the focus.
    pub async fn press(&self, key: &str) {
        use fantoccini::actions::{InputSource, KeyAction, KeyActions};
        let mut actions = KeyActions::new("keyboard".into());
        for c in key.chars() {
            actions = actions
                .then(KeyAction::Down { value: c })
                .then(KeyAction::Up { value: c });
        }
        self.client.perform_actions(actions).await.unwrap();
    }

    /// Quits the browser and starts a new one on the same profile, as a person closing
    /// and reopening it would.
    pub async fn restart_browser(&mut self) {
        // One browser at a time on a profile: the old one quits first.
        let _ = self.client.clone().close().await;
        self.client = self._driver.open_browser(self._profile.path()).await;
    }

    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}
