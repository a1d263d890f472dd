//! `inkling export-notes` and `inkling import`: the notes out to files and back in,
//! through the service's export and import routes (docs/DESIGN.md, "Export and
//! import"). The formats are `crate::export`'s; this is the file handling around them.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::render::{exported_line, imported_line};
use super::{absolute, Invocation};
use crate::api::replies::ImportedCount;
use crate::client::{ClientError, ServiceClient};
use crate::domain::Note;
use crate::export::{
    file_name, from_markdown, to_markdown, ExportDocument, ImportedNote, FORMAT_VERSION,
};

/// How `export-notes` writes the notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NotesFormat {
    /// One Markdown file a note, with front matter.
    Markdown,
    /// One JSON file with every note and its fields.
    Json,
}

/// What an export wrote (`--json` prints it).
#[derive(Debug, serde::Serialize)]
pub struct Exported {
    pub notes: u64,
    pub path: PathBuf,
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> ClientError {
    ClientError::Other(anyhow::anyhow!("cannot {what} {}: {e}", path.display()))
}

/// A new folder only the user can read (the notes are private); never one that exists.
fn private_folder(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(path)
}

/// A new file only the user can read; never one that exists.
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// `inkling export-notes [--format] [--out DIR]`: prints the folder and how many notes.
pub(crate) async fn run_export(
    run: &mut Invocation<'_>,
    format: NotesFormat,
    out: Option<PathBuf>,
) -> Result<(), ClientError> {
    let parent = match out {
        Some(dir) => absolute(dir)?,
        None => run.exports_dir.clone(),
    };
    let exported = export_notes(run.client, format, &parent, Utc::now()).await?;
    if run.json {
        run.out.json(&exported)
    } else {
        run.out.line(exported_line(exported.notes, &exported.path))
    }
}

/// `inkling import PATH`: prints how many notes came in and how many were here already.
pub(crate) async fn run_import(run: &mut Invocation<'_>, path: &Path) -> Result<(), ClientError> {
    let notes = read_notes(path)?;
    let count = import_notes(run.client, notes, run.max_body_bytes).await?;
    if run.json {
        run.out.json(&count)
    } else {
        run.out.line(imported_line(count.imported, count.skipped))
    }
}

/// Every note, the trash included, into a new folder `notes-<time>` in `parent`:
/// `notes.json` (the export as the service sent it), or one Markdown file a note. The
/// folder (and `parent`) is made only once the service has begun to send the export:
/// an export refused (the service not running, or not this inkling) creates nothing.
pub async fn export_notes(
    client: &ServiceClient,
    format: NotesFormat,
    parent: &Path,
    now: DateTime<Utc>,
) -> Result<Exported, ClientError> {
    let stem = format!("notes-{}", now.format("%Y-%m-%dT%H-%M-%S"));
    let mut notes = 0u64;
    let mut finished = false;
    // The folder, and the JSON file in it; `None` until the first line arrives.
    let mut made: Option<ExportFolder> = None;
    client
        .export_notes(|line| {
            let folder = match &mut made {
                Some(folder) => folder,
                None => made.insert(new_export_folder(parent, &stem, format)?),
            };
            // The document comes one note a line, between its head and its tail.
            let is_head = line.starts_with("{\"inkling_export\"");
            finished |= line == "]}";
            let is_json = folder.json.is_some();
            if let Some((file, name)) = &mut folder.json {
                writeln!(file, "{line}").map_err(|e| io_error("write", name, e))?;
            }
            if is_head || line == "]}" || line.is_empty() {
                return Ok(());
            }
            notes += 1;
            if !is_json {
                let note: Note = serde_json::from_str(line.trim_end_matches(','))
                    .map_err(|e| anyhow::anyhow!("unexpected note in the export: {e}"))?;
                write_markdown(&folder.path, &note)?;
            }
            Ok(())
        })
        .await?;
    let Some(folder) = made else {
        return Err(ClientError::Api(
            "the service sent no export; nothing was written".into(),
        ));
    };
    if !finished {
        return Err(ClientError::Api(format!(
            "the export ended early; {} holds only what arrived",
            folder.path.display()
        )));
    }
    if let Some((file, name)) = folder.json {
        file.sync_all().map_err(|e| io_error("write", &name, e))?;
    }
    Ok(Exported {
        path: folder.path,
        notes,
    })
}

/// The export's own new folder, and its `notes.json` for the JSON format.
struct ExportFolder {
    path: PathBuf,
    json: Option<(std::fs::File, PathBuf)>,
}

/// How many fresh names an export tries after its own is taken.
const FRESH_NAMES: usize = 16;

/// The export's folder in `parent` (made if need be), made by this call and no other:
/// `stem` when free, else `stem-<random>`. Into a shared folder (`/tmp`) another user
/// can plant the name first (a folder, a link); the export then takes a fresh name
/// instead of failing or writing into what it did not make. `mkdir` fails on any
/// existing name, a link included, so the folder written into is always this one's.
fn new_export_folder(
    parent: &Path,
    stem: &str,
    format: NotesFormat,
) -> Result<ExportFolder, ClientError> {
    std::fs::create_dir_all(parent).map_err(|e| io_error("create", parent, e))?;
    let mut path = parent.join(stem);
    let mut tries = 0;
    loop {
        match private_folder(&path) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < FRESH_NAMES => {
                tries += 1;
                path = parent.join(format!("{stem}-{}", random_suffix()?));
            }
            Err(e) => return Err(io_error("create", &path, e)),
        }
    }
    let json = match format {
        NotesFormat::Json => {
            let file = path.join("notes.json");
            Some((
                private_file(&file).map_err(|e| io_error("create", &file, e))?,
                file,
            ))
        }
        NotesFormat::Markdown => None,
    };
    Ok(ExportFolder { path, json })
}

/// Eight random hex digits: a name no one can plant ahead.
fn random_suffix() -> Result<String, ClientError> {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes)
        .map_err(|e| ClientError::Other(anyhow::anyhow!("no randomness for a folder name: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// One note's Markdown file in `folder` (a second note with the same name, which
/// only a clash of ids' ends could give, gets `-2`).
fn write_markdown(folder: &Path, note: &Note) -> Result<(), ClientError> {
    let name = file_name(note);
    let stem = name.trim_end_matches(".md");
    for n in 1.. {
        let path = match n {
            1 => folder.join(&name),
            n => folder.join(format!("{stem}-{n}.md")),
        };
        match private_file(&path) {
            Ok(mut file) => {
                return file
                    .write_all(to_markdown(note).as_bytes())
                    .map_err(|e| io_error("write", &path, e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("create", &path, e)),
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// The notes in `path`, each with where it came from: inkling's JSON export, one
/// Markdown file, or a folder of them (its subfolders too, hidden ones skipped, links
/// not followed). A Markdown note with no creation time gets its file's.
pub fn read_notes(path: &Path) -> Result<Vec<(String, ImportedNote)>, ClientError> {
    if path.is_dir() {
        let mut files = Vec::new();
        markdown_files(path, &mut files)?;
        files.sort();
        return files.iter().map(|file| read_markdown(file)).collect();
    }
    if is_markdown(path) {
        return Ok(vec![read_markdown(path)?]);
    }
    let file = std::fs::File::open(path).map_err(|e| io_error("open", path, e))?;
    let document: ExportDocument =
        serde_json::from_reader(std::io::BufReader::new(file)).map_err(|e| {
            ClientError::Api(format!(
                "{} is not an inkling notes export (JSON) or Markdown: {e}",
                path.display()
            ))
        })?;
    if document.inkling_export > FORMAT_VERSION {
        return Err(ClientError::Api(format!(
            "{} was made by a newer inkling (format {}); update inkling to import it",
            path.display(),
            document.inkling_export
        )));
    }
    Ok(document
        .notes
        .into_iter()
        .enumerate()
        .map(|(i, note)| {
            let id = note
                .id
                .as_deref()
                .map(|id| format!(" ({id})"))
                .unwrap_or_default();
            (format!("{}: note {}{id}", path.display(), i + 1), note)
        })
        .collect())
}

/// A Markdown file by its name: `.md` or `.markdown`, in any case.
fn is_markdown(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

fn markdown_files(folder: &Path, files: &mut Vec<PathBuf>) -> Result<(), ClientError> {
    let entries = std::fs::read_dir(folder).map_err(|e| io_error("read", folder, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_error("read", folder, e))?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue; // .obsidian, .git, .trash
        }
        // A link is not followed: one to the folder itself (or a parent) would import
        // each note again and again, and one to a file elsewhere would import what is
        // not in the folder. `file_type` does not follow links; `is_dir` would.
        let kind = entry.file_type().map_err(|e| io_error("read", &path, e))?;
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            markdown_files(&path, files)?;
        } else if is_markdown(&path) {
            files.push(path);
        }
    }
    Ok(())
}

fn read_markdown(path: &Path) -> Result<(String, ImportedNote), ClientError> {
    let bytes = std::fs::read(path).map_err(|e| io_error("read", path, e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ClientError::Api(format!("{} is not UTF-8 text", path.display())))?;
    let mut note = from_markdown(&text);
    if note.created_at.is_none() {
        note.created_at = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(|at| crate::domain::timestamp(DateTime::<Utc>::from(at)));
    }
    Ok((path.display().to_string(), note))
}

/// Checks every note first (a bad one stops the import before anything is sent, and
/// says where it is), then sends them in requests within the service's body limit.
pub async fn import_notes(
    client: &ServiceClient,
    notes: Vec<(String, ImportedNote)>,
    max_body_bytes: usize,
) -> Result<ImportedCount, ClientError> {
    if notes.is_empty() {
        return Err(ClientError::Api("no notes found to import".into()));
    }
    for (place, note) in &notes {
        if let Err(e) = note.clone().validate(max_body_bytes, Utc::now()) {
            return Err(ClientError::Api(format!(
                "{place}: {e}; nothing was imported"
            )));
        }
    }
    // Room for `{"notes":[…]}` and the commas; a note alone always goes (the service
    // then says if it is too large).
    let limit = crate::api::requests::body_limit(max_body_bytes).saturating_sub(64);
    let mut count = ImportedCount {
        imported: 0,
        skipped: 0,
    };
    let mut batch: Vec<ImportedNote> = Vec::new();
    let mut size = 0;
    let mut notes = notes.into_iter().map(|(_, note)| note).peekable();
    while let Some(note) = notes.next() {
        let note_size = serde_json::to_string(&note).map_or(0, |text| text.len() + 1);
        if !batch.is_empty() && size + note_size > limit {
            send_batch(client, std::mem::take(&mut batch), &mut count).await?;
            size = 0;
        }
        size += note_size;
        batch.push(note);
        if notes.peek().is_none() {
            send_batch(client, std::mem::take(&mut batch), &mut count).await?;
        }
    }
    Ok(count)
}

async fn send_batch(
    client: &ServiceClient,
    notes: Vec<ImportedNote>,
    count: &mut ImportedCount,
) -> Result<(), ClientError> {
    let reply = client.import_notes(notes).await.map_err(|e| {
        match (e, count.imported + count.skipped) {
            (e, 0) => e,
            (ClientError::Api(message), done) => ClientError::Api(format!(
                "{message} (the first {done} notes were imported; importing again skips them)"
            )),
            (e, _) => e,
        }
    })?;
    count.imported += reply.imported;
    count.skipped += reply.skipped;
    Ok(())
}

#[cfg(test)]
mod tests;
