//! `inkling shortcut on|off|status`: the desktop shortcut that opens the quick-capture
//! window, written into the desktop's own keyboard settings. What to run is decided by
//! `crate::desktop::shortcut` (plain functions); this runs it and says what happened.
//! Like `autostart`, it needs no running service.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context};

use super::arguments::{exit, ShortcutAction};
use super::output::Output;
use crate::client::ClientError;
use crate::desktop::quick::on_path;
use crate::desktop::shortcut::{self as plan, Argv, Desktop, Key};

/// Turns the shortcut on or off, or says whether it is on; returns the exit status.
pub fn run_shortcut(action: ShortcutAction, written_key: &str, config: Option<&Path>) -> u8 {
    let mut out = Output::stdout();
    let desktop = plan::desktop_from(std::env::var("XDG_CURRENT_DESKTOP").ok().as_deref());
    let outcome = (|| -> Result<(), ClientError> {
        let key = Key::parse(written_key).map_err(|e| anyhow!(e))?;
        let line = match action {
            ShortcutAction::On => {
                let exe = std::env::current_exe()
                    .map_err(|e| anyhow!("cannot find this program's path: {e}"))?;
                let config = config
                    .map(std::path::absolute)
                    .transpose()
                    .map_err(|e| anyhow!("cannot resolve the config path: {e}"))?;
                turn_on(desktop, &key, &plan::command_line(&exe, config.as_deref()))?
            }
            ShortcutAction::Off => turn_off(desktop, &key)?,
            ShortcutAction::Status => status(desktop, &key)?,
        };
        out.line(line)?;
        Ok(())
    })();
    match outcome {
        Ok(()) | Err(ClientError::OutputClosed) => exit::OK,
        Err(e) => {
            eprintln!("inkling: {e}");
            exit::FAILURE
        }
    }
}

fn turn_on(desktop: Desktop, key: &Key, command: &str) -> anyhow::Result<String> {
    let keys = key.plus();
    match desktop {
        Desktop::Gnome => {
            let list = gnome_list()?;
            run_all(&plan::gnome_on(&list, key, command))?;
            Ok(format!(
                "on: {keys} opens a quick note (GNOME's keyboard settings, \"{}\")",
                plan::NAME
            ))
        }
        Desktop::Xfce => {
            run_all(&plan::xfce_on(key, command))?;
            Ok(format!(
                "on: {keys} opens a quick note (XFCE's keyboard settings)"
            ))
        }
        Desktop::Kde => {
            let Some(kwriteconfig) = kwriteconfig() else {
                return Ok(plan::manual_instructions(key, command));
            };
            let entry = kde_entry_path()?;
            if let Some(dir) = entry.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot make {}", dir.display()))?;
            }
            std::fs::write(&entry, plan::kde_desktop_entry(command))
                .with_context(|| format!("cannot write {}", entry.display()))?;
            run(&plan::kde_write(kwriteconfig, Some(key)))?;
            Ok(format!(
                "on: {keys} opens a quick note (KDE's global shortcuts, {}); it takes effect at your next login",
                entry.display()
            ))
        }
        Desktop::Other => Ok(plan::manual_instructions(key, command)),
    }
}

fn turn_off(desktop: Desktop, key: &Key) -> anyhow::Result<String> {
    match desktop {
        Desktop::Gnome => {
            let list = gnome_list()?;
            run_all(&plan::gnome_off(&list))?;
            Ok("off".into())
        }
        // Taking off a binding that is not there fails; either way it is off.
        Desktop::Xfce => match run_all(&plan::xfce_off(key)) {
            Ok(()) => Ok("off".into()),
            Err(_) if run(&plan::xfce_read(key)).is_err() => Ok("off".into()),
            Err(e) => Err(e),
        },
        Desktop::Kde => {
            if let Some(kwriteconfig) = kwriteconfig() {
                run(&plan::kde_write(kwriteconfig, None))?;
            }
            let entry = kde_entry_path()?;
            match std::fs::remove_file(&entry) {
                Ok(()) => Ok(format!("off: removed {}", entry.display())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok("off".into()),
                Err(e) => Err(anyhow!("cannot remove {}: {e}", entry.display())),
            }
        }
        Desktop::Other => Ok(
            "off: inkling sets no shortcut on this desktop; remove yours in its keyboard settings"
                .into(),
        ),
    }
}

fn status(desktop: Desktop, key: &Key) -> anyhow::Result<String> {
    let on = match desktop {
        Desktop::Gnome => {
            if gnome_list()?.iter().any(|path| path == plan::GNOME_PATH) {
                let bound = run(&plan::gnome_read_binding())?;
                return Ok(format!("on: {} (GNOME)", bound.trim().trim_matches('\'')));
            }
            false
        }
        Desktop::Xfce => run(&plan::xfce_read(key)).is_ok_and(|command| command.contains("quick")),
        Desktop::Kde => kde_entry_path()?.exists(),
        Desktop::Other => {
            return Ok("unknown: inkling cannot read this desktop's shortcuts".into());
        }
    };
    Ok(if on {
        format!("on: {}", key.plus())
    } else {
        "off".into()
    })
}

/// GNOME's custom keybindings as they are now.
fn gnome_list() -> anyhow::Result<Vec<String>> {
    let printed = run(&plan::gnome_read_list())?;
    plan::parse_string_list(&printed).ok_or_else(|| {
        anyhow!(
            "cannot read GNOME's list of custom keybindings: {}",
            printed.trim()
        )
    })
}

fn kwriteconfig() -> Option<&'static str> {
    ["kwriteconfig6", "kwriteconfig5"]
        .into_iter()
        .find(|name| on_path(name))
}

/// `~/.local/share/applications/inkling-quick.desktop` (or under `XDG_DATA_HOME`).
fn kde_entry_path() -> anyhow::Result<PathBuf> {
    let data = match std::env::var_os("XDG_DATA_HOME").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?).join(".local/share")
        }
    };
    Ok(data.join("applications").join(plan::KDE_DESKTOP_FILE))
}

fn run_all(commands: &[Argv]) -> anyhow::Result<()> {
    for command in commands {
        run(command)?;
    }
    Ok(())
}

/// Runs one command; its standard output, or why it failed in its own words.
fn run(command: &[String]) -> anyhow::Result<String> {
    let (program, arguments) = command.split_first().context("an empty command")?;
    let output = Command::new(program)
        .args(arguments)
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                anyhow!("{program} is not installed (it sets this desktop's shortcuts)")
            } else {
                anyhow!("cannot run {program}: {e}")
            }
        })?;
    if !output.status.success() {
        bail!(
            "{} failed: {}",
            command.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
