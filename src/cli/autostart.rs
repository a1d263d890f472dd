//! `inkling autostart on|off|status [--systemd]`: the login entry that starts inkling
//! (`crate::desktop::autostart` writes it). The one command besides `run` that needs no running
//! service.

use super::arguments::{exit, AutostartAction};
use super::output::Output;
use crate::client::ClientError;

/// Turns the entry on or off, or says where it is; returns the exit status.
pub fn run_autostart(
    action: AutostartAction,
    systemd: bool,
    config: Option<&std::path::Path>,
) -> u8 {
    use crate::desktop::autostart::{self, Kind, Paths};
    let kind = if systemd { Kind::Systemd } else { Kind::Xdg };
    let mut out = Output::stdout();
    let outcome = (|| -> Result<(), ClientError> {
        let paths = Paths::from_environment()?;
        match action {
            AutostartAction::On => {
                let exe = std::env::current_exe()
                    .map_err(|e| anyhow::anyhow!("cannot find this program's path: {e}"))?;
                let config = config
                    .map(std::path::absolute)
                    .transpose()
                    .map_err(|e| anyhow::anyhow!("cannot resolve the config path: {e}"))?;
                let entry = autostart::turn_on(
                    &paths,
                    kind,
                    &exe,
                    config.as_deref(),
                    crate::app_icon::APP_ICON_SVG,
                )?;
                out.line(format!("on: {}", entry.display()))?;
                if systemd {
                    out.line(
                        "to start it now and at every login: systemctl --user enable --now inkling",
                    )?;
                }
            }
            AutostartAction::Off => match autostart::turn_off(&paths, kind)? {
                Some(entry) => out.line(format!("off: removed {}", entry.display()))?,
                None => out.line("off")?,
            },
            AutostartAction::Status => {
                let entries = autostart::status(&paths);
                if entries.is_empty() {
                    out.line("off")?;
                }
                for (_, entry) in entries {
                    out.line(format!("on: {}", entry.display()))?;
                }
            }
        }
        Ok(())
    })();
    match outcome {
        Ok(()) | Err(ClientError::OutputClosed) => exit::OK,
        Err(e) => {
            // `Other` shows the whole chain of causes, as `{:#}` does.
            eprintln!("inkling: {e}");
            exit::FAILURE
        }
    }
}
