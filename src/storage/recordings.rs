//! The voice notes' recordings as files: `<data_dir>/voice/<note_id>.<ext>`, each
//! written whole and fsynced (the file, then its folder) before its note's row is
//! stored, so a note the service answered for has its recording on the disk. Plain
//! `std::fs`: only the repository's thread calls it (`store/voice.rs`).

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::api::voice::AudioFormat;

/// The folder of recordings beside the database file.
pub fn folder_beside(database: &Path) -> PathBuf {
    database
        .parent()
        .map_or_else(|| PathBuf::from("voice"), |dir| dir.join("voice"))
}

/// The file of one note's recording.
pub fn file_of(folder: &Path, note_id: &str, format: AudioFormat) -> PathBuf {
    folder.join(format!("{note_id}.{}", format.extension()))
}

/// Writes `audio` as the note's recording, durably: to a temporary name, fsynced,
/// renamed into place, and the folder fsynced (so the rename itself survives a crash).
/// The folder is made private (0700) if it is new. On an error nothing is left behind.
pub fn write_durably(
    folder: &Path,
    note_id: &str,
    format: AudioFormat,
    audio: &[u8],
) -> std::io::Result<PathBuf> {
    create_private(folder)?;
    let path = file_of(folder, note_id, format);
    let partial = folder.join(format!("{note_id}.part"));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&partial)?;
        file.write_all(audio)?;
        file.sync_all()?;
        fs::rename(&partial, &path)?;
        fs::File::open(folder)?.sync_all()
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&partial);
        let _ = fs::remove_file(&path);
        return Err(error);
    }
    Ok(path)
}

fn create_private(folder: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    match fs::DirBuilder::new().mode(0o700).create(folder) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes one recording; one already gone is not an error.
pub fn remove(path: &Path) -> std::io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The note ids of the files in the folder (a recording, or a partial one a crash
/// left), with their paths. No folder: none.
pub fn listed(folder: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if let Some(id) = path.file_stem().and_then(|stem| stem.to_str()) {
            files.push((id.to_string(), path.clone()));
        }
    }
    Ok(files)
}
