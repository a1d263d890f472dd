//! The quick-capture window (`inkling quick`, the tray's "Quick note…", the desktop
//! shortcut): the page at `/quick` opened as a browser *app window*, one without tabs
//! or address bar, sized for a few lines (docs/DESIGN.md, "Quick capture", says why a
//! browser window rather than a native toolkit: Korean input works as in any page, and
//! a browser that is already running opens a window in a few hundred milliseconds).
//!
//! Which command opens it is a plain function of the configured browser and what is on
//! PATH ([`window_command`]); [`open_window`] only runs it.

use std::path::Path;

/// The window's size in CSS pixels: a few lines of text and the status line under them.
pub const WINDOW_SIZE: (u32, u32) = (520, 220);

/// Browsers whose `--app=URL` opens an app window, most common first. Firefox has no
/// such mode (its `--kiosk` is full screen), so it gets a tab through `xdg-open`.
pub const APP_BROWSERS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "brave-browser",
    "microsoft-edge",
    "vivaldi",
];

/// The command (program first) that opens `url` as the quick window: the configured
/// browser if any (`quick.browser`, words split at white space), else the first of
/// [`APP_BROWSERS`] that `on_path` finds, as an app window; else the default browser.
pub fn window_command(url: &str, configured: &str, on_path: impl Fn(&str) -> bool) -> Vec<String> {
    let configured: Vec<String> = configured.split_whitespace().map(String::from).collect();
    let browser = if configured.is_empty() {
        match APP_BROWSERS.iter().find(|name| on_path(name)) {
            Some(name) => vec![name.to_string()],
            None => return vec![default_opener().to_string(), url.to_string()],
        }
    } else {
        configured
    };
    let (width, height) = WINDOW_SIZE;
    let mut command = browser;
    command.push(format!("--app={url}"));
    command.push(format!("--window-size={width},{height}"));
    command
}

fn default_opener() -> &'static str {
    if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    }
}

/// Whether `name` is an executable file in one of PATH's directories.
pub fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(Path::new(&dir).join(name))
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// Opens the quick window on `url` (an address with a one-time code) without waiting
/// for the browser. Returns why it could not.
pub fn open_window(url: &str, configured_browser: &str) -> Result<(), String> {
    let command = window_command(url, configured_browser, on_path);
    let (program, arguments) = command
        .split_first()
        .ok_or_else(|| "no command to open the window with".to_string())?;
    std::process::Command::new(program)
        .args(arguments)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot start {program}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "http://127.0.0.1:7373/quick?code=abc";

    #[test]
    fn the_first_chromium_family_browser_on_path_opens_an_app_window() {
        let command = window_command(URL, "", |name| name == "google-chrome");
        assert_eq!(
            command,
            [
                "google-chrome",
                "--app=http://127.0.0.1:7373/quick?code=abc",
                "--window-size=520,220"
            ]
        );
        let both = window_command(URL, "", |name| {
            name == "chromium" || name == "brave-browser"
        });
        assert_eq!(both[0], "chromium");
    }

    #[test]
    fn a_configured_browser_wins_with_its_own_arguments() {
        let command = window_command(URL, "  flatpak run org.chromium.Chromium ", |_| true);
        assert_eq!(
            command,
            [
                "flatpak",
                "run",
                "org.chromium.Chromium",
                "--app=http://127.0.0.1:7373/quick?code=abc",
                "--window-size=520,220"
            ]
        );
    }

    #[test]
    fn without_an_app_browser_the_default_browser_gets_a_tab() {
        let command = window_command(URL, "", |_| false);
        assert_eq!(command, [default_opener(), URL]);
    }
}
