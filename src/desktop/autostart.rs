//! Start at login: an XDG autostart entry (the default, understood by every desktop)
//! or a systemd user unit (`--systemd`).
//!
//! - `$XDG_CONFIG_HOME/autostart/inkling.desktop` (default `~/.config/autostart/`),
//!   with the embedded icon written to `$XDG_DATA_HOME/icons/hicolor/scalable/apps/`;
//! - `$XDG_CONFIG_HOME/systemd/user/inkling.service`, `Restart=on-failure`.
//!
//! Both start the binary that wrote them (`std::env::current_exe`), with the same
//! `--config` when one was given. Every file carries a marker line; `off` removes a file
//! only if it has the marker, so it never deletes something the user wrote, and `on`
//! refuses to overwrite such a file. Running `on` twice writes the same file twice.

use std::fs;
use std::path::{Path, PathBuf};

/// The line that marks a file as written by `inkling autostart on`.
pub const MARKER: &str = "X-Inkling-Autostart=true";
const SYSTEMD_MARKER: &str =
    "# X-Inkling-Autostart=true (written by `inkling autostart on --systemd`)";

/// Which kind of start-at-login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Xdg,
    Systemd,
}

/// Where things go: the user's config and data homes.
#[derive(Debug, Clone)]
pub struct Paths {
    pub config_home: PathBuf,
    pub data_home: PathBuf,
}

impl Paths {
    /// `$XDG_CONFIG_HOME` / `$XDG_DATA_HOME`, else `~/.config` / `~/.local/share`.
    pub fn from_environment() -> anyhow::Result<Self> {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("HOME is not set"))?;
        let from = |var: &str, default: &str| {
            std::env::var_os(var)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(default))
        };
        Ok(Paths {
            config_home: from("XDG_CONFIG_HOME", ".config"),
            data_home: from("XDG_DATA_HOME", ".local/share"),
        })
    }

    pub fn entry(&self, kind: Kind) -> PathBuf {
        match kind {
            Kind::Xdg => self.config_home.join("autostart").join("inkling.desktop"),
            Kind::Systemd => self
                .config_home
                .join("systemd")
                .join("user")
                .join("inkling.service"),
        }
    }

    pub fn icon(&self) -> PathBuf {
        self.data_home
            .join("icons/hicolor/scalable/apps")
            .join("inkling.svg")
    }
}

/// Quotes one argument for a desktop entry's `Exec` key (Desktop Entry spec, "The Exec
/// key"): inside double quotes, `"`, `` ` ``, `$` and `\` are escaped.
fn exec_quote(arg: &str) -> String {
    let mut quoted = String::from("\"");
    for c in arg.chars() {
        if matches!(c, '"' | '`' | '$' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// The command line that starts the service.
fn command(exe: &Path, config: Option<&Path>, quote: fn(&str) -> String) -> String {
    let mut parts = vec![quote(&exe.to_string_lossy())];
    if let Some(config) = config {
        parts.push("--config".into());
        parts.push(quote(&config.to_string_lossy()));
    }
    parts.push("run".into());
    parts.join(" ")
}

/// systemd splits `ExecStart` like a shell: double quotes, `\` and `"` escaped.
fn systemd_quote(arg: &str) -> String {
    format!("\"{}\"", arg.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The XDG autostart entry.
pub fn desktop_entry(exe: &Path, config: Option<&Path>, icon: &Path) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=inkling\n\
         Comment=Capture a thought in a second; a local LLM titles and tags it\n\
         Exec={}\n\
         Icon={}\n\
         Terminal=false\n\
         Categories=Utility;\n\
         X-GNOME-Autostart-enabled=true\n\
         {MARKER}\n",
        command(exe, config, exec_quote),
        icon.display()
    )
}

/// The systemd user unit.
pub fn systemd_unit(exe: &Path, config: Option<&Path>) -> String {
    format!(
        "{SYSTEMD_MARKER}\n\
         [Unit]\n\
         Description=inkling: local-first thought capture\n\
         \n\
         [Service]\n\
         ExecStart={}\n\
         Restart=on-failure\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        command(exe, config, systemd_quote)
    )
}

fn ours(path: &Path) -> bool {
    fs::read_to_string(path).is_ok_and(|text| text.contains("X-Inkling-Autostart=true"))
}

/// Writes the entry (and, for XDG, the icon). Returns the entry's path.
pub fn turn_on(
    paths: &Paths,
    kind: Kind,
    exe: &Path,
    config: Option<&Path>,
    icon_svg: &str,
) -> anyhow::Result<PathBuf> {
    let entry = paths.entry(kind);
    if entry.exists() && !ours(&entry) {
        anyhow::bail!(
            "{} exists and was not written by inkling; remove it yourself first",
            entry.display()
        );
    }
    let text = match kind {
        Kind::Xdg => {
            let icon = paths.icon();
            write(&icon, icon_svg)?;
            desktop_entry(exe, config, &icon)
        }
        Kind::Systemd => systemd_unit(exe, config),
    };
    write(&entry, &text)?;
    Ok(entry)
}

/// Removes the entry if inkling wrote it. Returns its path when something was removed.
pub fn turn_off(paths: &Paths, kind: Kind) -> anyhow::Result<Option<PathBuf>> {
    let entry = paths.entry(kind);
    if !entry.exists() {
        return Ok(None);
    }
    if !ours(&entry) {
        anyhow::bail!(
            "{} was not written by inkling; leaving it alone",
            entry.display()
        );
    }
    fs::remove_file(&entry)
        .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", entry.display()))?;
    Ok(Some(entry))
}

/// The entries inkling wrote that are in place.
pub fn status(paths: &Paths) -> Vec<(Kind, PathBuf)> {
    [Kind::Xdg, Kind::Systemd]
        .into_iter()
        .map(|kind| (kind, paths.entry(kind)))
        .filter(|(_, path)| ours(path))
        .collect()
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
    }
    fs::write(path, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
