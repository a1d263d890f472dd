//! The quick-capture window (`inkling quick`, the tray's "Quick note…", the desktop
//! shortcut): the page at `/quick` opened as a browser *app window*, one without tabs
//! or address bar, sized for a few lines (docs/DESIGN.md, "Quick capture", says why a
//! browser window rather than a native toolkit: Korean input works as in any page, and
//! a browser that is already running opens a window in a few hundred milliseconds).
//!
//! Which command opens it is a plain function of the configured browser, what is on
//! PATH and whether the browser is running ([`window_command`]); [`open_window`] only
//! finds those facts and runs it.

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

/// A launcher script a distribution puts on PATH in front of a browser's program, and
/// the program it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launcher {
    /// The name on PATH.
    pub name: &'static str,
    /// The program the script ends by starting.
    pub program: &'static str,
    /// The browser's default profile, under `$XDG_CONFIG_HOME` (`~/.config`): where its
    /// `SingletonLock` says it is running.
    pub profile: &'static str,
}

/// The launchers whose program may be started directly. Debian's `/usr/bin/chromium`
/// reads `/etc/chromium.d` and probes the memory before every start, 60–120 ms of a
/// 300 ms budget (docs/PERFORMANCE.md, "The quick-capture window"), even when the second
/// process it starts only hands the address to the browser already running; Google's
/// `google-chrome` is a script too.
pub const LAUNCHERS: &[Launcher] = &[
    Launcher {
        name: "chromium",
        program: "/usr/lib/chromium/chromium",
        profile: "chromium",
    },
    Launcher {
        name: "google-chrome",
        program: "/opt/google/chrome/chrome",
        profile: "google-chrome",
    },
    Launcher {
        name: "google-chrome-stable",
        program: "/opt/google/chrome/chrome",
        profile: "google-chrome",
    },
];

/// The command (program first) that opens `url` as the quick window: the configured
/// browser if any (`quick.browser`, words split at white space), else the first of
/// [`APP_BROWSERS`] that `on_path` finds, as an app window; else the default browser.
///
/// A found browser behind a [`Launcher`] script is started by its program directly when
/// `running_program` gives it (the browser is running, so the new process only hands the
/// address over: the script's flags are the running browser's already). A browser that
/// is not running goes through the script, flags and all.
pub fn window_command(
    url: &str,
    configured: &str,
    on_path: impl Fn(&str) -> bool,
    running_program: impl Fn(&Launcher) -> bool,
) -> Vec<String> {
    let configured: Vec<String> = configured.split_whitespace().map(String::from).collect();
    let browser = if configured.is_empty() {
        match APP_BROWSERS.iter().find(|name| on_path(name)) {
            Some(name) => {
                let direct = LAUNCHERS
                    .iter()
                    .find(|launcher| launcher.name == *name)
                    .filter(|launcher| running_program(launcher));
                vec![direct
                    .map_or(*name, |launcher| launcher.program)
                    .to_string()]
            }
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

/// Whether `launcher`'s browser is running on its default profile and its program is
/// there to start: the profile's `SingletonLock` (a link to `host-pid`) names a process of
/// this machine that is alive.
pub fn running_program(launcher: &Launcher) -> bool {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")));
    config.is_some_and(|config| running_program_in(&config, launcher))
}

/// [`running_program`] with the profiles under `config` (the person's
/// `$XDG_CONFIG_HOME`).
pub fn running_program_in(config: &Path, launcher: &Launcher) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let program_there = std::fs::metadata(launcher.program)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0);
    if !program_there {
        return false;
    }
    let Ok(lock) = std::fs::read_link(config.join(launcher.profile).join("SingletonLock")) else {
        return false;
    };
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    lock_names_a_live_process(&lock.to_string_lossy(), host.trim(), |pid| {
        Path::new("/proc").join(pid.to_string()).exists()
    })
}

/// Whether a `SingletonLock`'s target (`host-pid`) names a live process of `host`.
pub fn lock_names_a_live_process(target: &str, host: &str, alive: impl Fn(u32) -> bool) -> bool {
    let Some((lock_host, pid)) = target.rsplit_once('-') else {
        return false;
    };
    lock_host == host && pid.parse::<u32>().is_ok_and(alive)
}

/// Opens the quick window on `url` (an address with a one-time code) without waiting
/// for the browser. Returns why it could not.
pub fn open_window(url: &str, configured_browser: &str) -> Result<(), String> {
    let command = window_command(url, configured_browser, on_path, running_program);
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
mod tests;
