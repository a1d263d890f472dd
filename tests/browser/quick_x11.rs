//! The quick-capture window as `inkling quick` opens it on a real X server (Xvfb): the
//! real command, with `quick.browser` a Chromium (not headless) that starts with
//! `--app=URL --window-size=520,220`, so the window, its focus and its close are the
//! window system's. WebDriver attaches to that browser afterwards (chromedriver's
//! `debuggerAddress`) only to read the page and type; the times are the page's own
//! clock, so attaching late changes nothing. Measured twice: the browser not running
//! (a cold start), then running (the address handed to it, a new window).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fantoccini::wd::WindowHandle;
use fantoccini::{Client, ClientBuilder};
use serde_json::json;

use inkling::desktop::quick::{running_program_in, LAUNCHERS};

use crate::harness::{start, Browser};
use crate::ports::free_port;
use crate::x_server::XServer;

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// A script that starts Chromium on `profile`, reachable by WebDriver on `debug_port`,
/// keeping what it says in `profile/browser.log`: what `quick.browser` names.
fn browser_script(profile: &Path, debug_port: u16) -> String {
    use std::os::unix::fs::PermissionsExt;
    let script = profile.join("browser.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec /usr/bin/chromium --no-sandbox --disable-gpu --disable-dev-shm-usage \
             --no-first-run --disable-background-networking --disable-component-update \
             --disable-sync --remote-debugging-port={debug_port} --user-data-dir='{}' \"$@\" \
             >>'{}' 2>&1\n",
            profile.display(),
            profile.join("browser.log").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

/// The proportional set size (KiB) of every process of the browser running on
/// `profile`: its memory as the kernel shares it out, so a new window's cost is the
/// difference.
fn profile_memory_kib(profile: &Path) -> u64 {
    let marker = format!("--user-data-dir={}", profile.display());
    let mut total = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let dir = entry.path();
        let Ok(command) = std::fs::read(dir.join("cmdline")) else {
            continue;
        };
        let command = String::from_utf8_lossy(&command).replace('\0', " ");
        // Its helpers (renderers, GPU, utility) are started with the same profile.
        if !command.contains(&marker) && !command.contains("--type=") {
            continue;
        }
        if !command.contains(&marker) && !is_child_of_profile(&dir, &marker) {
            continue;
        }
        let rollup = std::fs::read_to_string(dir.join("smaps_rollup")).unwrap_or_default();
        for line in rollup.lines() {
            if let Some(kib) = line.strip_prefix("Pss:") {
                total += kib
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .unwrap_or(0);
            }
        }
    }
    total
}

/// Whether a process descends from one started on the profile (a zygote's children
/// do not repeat `--user-data-dir`).
fn is_child_of_profile(dir: &Path, marker: &str) -> bool {
    let mut at = dir.to_path_buf();
    for _ in 0..8 {
        let Ok(status) = std::fs::read_to_string(at.join("status")) else {
            return false;
        };
        let Some(parent) = status
            .lines()
            .find_map(|line| line.strip_prefix("PPid:"))
            .map(|pid| pid.trim().to_string())
        else {
            return false;
        };
        at = Path::new("/proc").join(&parent);
        let command = std::fs::read(at.join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&command).contains(marker) {
            return true;
        }
    }
    false
}

/// Runs the real `inkling quick` against the test's service. Returns when it pressed
/// (epoch ms) and how long the command itself took.
fn inkling_quick(service: &Browser, display: &str, browser: &str) -> (f64, f64) {
    let port = service.app_url.rsplit(':').next().unwrap().to_string();
    let pressed = epoch_ms();
    let output = Command::new(env!("CARGO_BIN_EXE_inkling"))
        .env("DISPLAY", display)
        .env("INKLING_DATA_DIR", service.data_dir())
        .env("INKLING_HTTP__PORT", &port)
        .env("INKLING_QUICK__BROWSER", browser)
        .arg("quick")
        .output()
        .expect("inkling quick runs");
    let took = epoch_ms() - pressed;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (pressed, took)
}

/// Waits for a quick window not in `known` whose box has the focus; switches to it.
/// Returns it, when its page began (`performance.timeOrigin`) and when its box took the
/// focus (epoch ms, the page's clock).
async fn focused_quick_window(
    client: &Client,
    known: &[WindowHandle],
    profile: &Path,
) -> (WindowHandle, f64, f64) {
    for _ in 0..300 {
        for handle in client.windows().await.unwrap() {
            if known.contains(&handle) {
                continue;
            }
            client.switch_to_window(handle.clone()).await.unwrap();
            let at = client
                .execute(
                    "return location.pathname === '/quick' && document.activeElement \
                     && document.activeElement.id === 'quick-body' \
                     && document.documentElement.dataset.focusedAt \
                     ? [performance.timeOrigin, Number(document.documentElement.dataset.focusedAt)] \
                     : null;",
                    vec![],
                )
                .await
                .unwrap();
            if let (Some(origin), Some(focused)) = (at[0].as_f64(), at[1].as_f64()) {
                return (handle, origin, origin + focused);
            }
        }
        actix_rt::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "no quick window took the focus; the browser said:\n{}",
        std::fs::read_to_string(profile.join("browser.log")).unwrap_or_default()
    );
}

#[actix_rt::test]
async fn on_a_real_x_server_inkling_quick_opens_a_focused_window_that_saves_korean_with_enter() {
    let service = start(&[]).await;
    let x = XServer::start("1280x800x24");
    let display = x.display.clone();
    // The browser's profile where Chromium keeps its default one, under a config
    // directory of the test's own: how inkling tells the browser is running.
    let config = tempfile::tempdir().unwrap();
    let profile = config.path().join("chromium");
    std::fs::create_dir(&profile).unwrap();
    let profile = profile.as_path();
    let debug_port = free_port();
    let browser = browser_script(profile, debug_port);
    let chromium = &LAUNCHERS[0];
    assert!(
        !running_program_in(config.path(), chromium),
        "not running before it starts"
    );

    // Cold: no browser running; `inkling quick` starts it.
    let (pressed, command) = inkling_quick(&service, &display, &browser);
    let driver_port = free_port();
    let _driver = Killed(
        Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({ "debuggerAddress": format!("127.0.0.1:{debug_port}") }),
    );
    let mut client = None;
    for _ in 0..100 {
        // chromedriver or the browser still starting: waiting for processes.
        match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{driver_port}"))
            .await
        {
            Ok(connected) => {
                client = Some(connected);
                break;
            }
            Err(_) => actix_rt::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let client = client.expect("WebDriver attached to the browser `inkling quick` started");
    let (cold, began, at) = focused_quick_window(&client, &[], profile).await;
    eprintln!(
        "quick window on X, browser not running: key press to focused box {:.0} ms (the command {command:.0} ms, the page began at {:.0} ms)",
        at - pressed,
        began - pressed
    );
    let rect = client.get_window_rect().await.unwrap();
    assert_eq!((rect.2, rect.3), (520, 220), "the window's size");

    // Running, as its profile's lock says: unnamed, inkling would hand the address over
    // with Chromium's own program, not Debian's script (src/desktop/quick.rs; as root
    // Chromium refuses a process without --no-sandbox, so this test names the browser).
    assert!(
        running_program_in(config.path(), chromium)
            == std::path::Path::new(chromium.program).exists(),
        "the running browser is seen by its profile's lock"
    );

    // Warm: the browser running; the address is handed to it, a new window opens.
    let known = client.windows().await.unwrap();
    let before = profile_memory_kib(profile);
    let (pressed, command) = inkling_quick(&service, &display, &browser);
    let (warm, began, at) = focused_quick_window(&client, &known, profile).await;
    let after = profile_memory_kib(profile);
    eprintln!(
        "quick window on X, browser running: key press to focused box {:.0} ms (the command {command:.0} ms, the page began at {:.0} ms); the browser's processes {} → {} KiB PSS ({:+} KiB)",
        at - pressed,
        began - pressed,
        before,
        after,
        after as i64 - before as i64
    );
    // Esc closes it, nothing saved.
    let active = client.active_element().await.unwrap();
    active.send_keys("\u{E00C}").await.unwrap();

    // The first one: typed into as it is, Enter saves and closes.
    client.switch_to_window(cold.clone()).await.unwrap();
    let active = client.active_element().await.unwrap();
    active.send_keys("엑스에서 쓴 생각").await.unwrap();
    active.send_keys("\u{E007}").await.unwrap();
    service
        .wait_for_api("the note is saved", "/api/notes", |notes| {
            notes.as_array().is_some_and(|all| !all.is_empty())
        })
        .await;
    let notes = service.api("GET", "/api/notes", None).await;
    assert_eq!(notes.as_array().map(Vec::len), Some(1), "Esc saved nothing");
    assert_eq!(notes[0]["body"], "엑스에서 쓴 생각");
    // Both windows closed themselves (the browser may have quit with its last one).
    let mut closed = false;
    for _ in 0..100 {
        match client.windows().await {
            Ok(handles) if handles.contains(&cold) || handles.contains(&warm) => {
                actix_rt::time::sleep(Duration::from_millis(50)).await;
            }
            _ => {
                closed = true;
                break;
            }
        }
    }
    assert!(closed, "the windows closed");
    let _ = client.close().await;
    service.close().await;
}
