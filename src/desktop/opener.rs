//! Handing things to the desktop: opening a URL or a folder with the user's default
//! application (`xdg-open`; `open` on macOS).

/// Opens `target` (a URL or a path) without waiting for it. Returns why it could not.
pub fn open(target: &str) -> Result<(), String> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(target)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot start {opener}: {e}"))
}
