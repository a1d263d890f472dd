//! The command line: `inkling run` starts the service; every other subcommand is a
//! client of the running service (docs/DESIGN.md, "API and CLI").

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde_json::Value;

pub mod transfer;

use crate::actors::ai_worker::{SlowNote, WorkerState, WorkerStatus};
use crate::actors::mailbox_stats::ActorCounters;
use crate::ai::ProviderHealth;
use crate::api::status::ServiceStatus;
use crate::client::{ClientError, ServiceClient};
use crate::configuration::{Settings, UserFile};
use crate::domain::{ListFilter, Note};
use crate::events::{ModelPullProgress, PullState};
use crate::storage::{SearchHit, SnippetPart, TagCount, TagRenamed};

/// Exit statuses, listed in `--help`.
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILURE: u8 = 1;
    pub const USAGE_OR_CONFIG: u8 = 2;
    pub const NOT_RUNNING: u8 = 3;
    pub const ALREADY_RUNNING: u8 = 4;
}

const EXIT_CODES_HELP: &str = "\
Exit status:
  0  success
  1  the command failed (the service refused it, or an I/O error)
  2  bad usage or an invalid configuration
  3  the service is not running
  4  `run`: another inkling is already running with this data dir";

#[derive(Debug, Parser)]
#[command(
    name = "inkling",
    version,
    about = "Capture a thought in a second; a local LLM titles, tags and summarises it.",
    after_help = EXIT_CODES_HELP
)]
pub struct Cli {
    /// Configuration file (default: the platform config dir's inkling/config.toml).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the service (the default).
    Run,
    /// Capture a note: TEXT, or `-` to read it from standard input.
    Capture {
        /// The note's text, or `-` for standard input.
        text: String,
    },
    /// Show counts of pending, failed and expired notes.
    Status,
    /// List notes, newest first.
    List(ListArgs),
    /// Find notes with every word of QUERY (in the title, tags or body; inside words
    /// too), best first, each with the piece of its body that matched.
    Search {
        /// The words to look for.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        #[command(flatten)]
        filters: ListArgs,
    },
    /// Show one note.
    Show {
        /// The note's id.
        id: String,
    },
    /// Send every failed note back to the AI now; prints how many.
    RetryFailed,
    /// Print the number of failed notes.
    FailedCount,
    /// Check Ollama now (and resume the AI work at once if it is back).
    Recheck,
    /// Download the model (ollama.model) through Ollama, showing its progress; the AI
    /// work starts when it is installed.
    PullModel,
    /// Print the usage report (stats.md), built from the local usage log.
    Stats,
    /// Copy the usage log and a fresh stats.md into a new folder; prints its path.
    ExportLog {
        /// Create the export folder in DIR instead of <data_dir>/exports/.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write every note (the trash too) into a new folder: one Markdown file a note
    /// (front matter, then the body), or one JSON file; prints the folder.
    ExportNotes {
        #[arg(long, value_enum, default_value = "markdown")]
        format: transfer::NotesFormat,
        /// Create the folder in DIR instead of <data_dir>/exports/.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Bring notes in: inkling's JSON export, a Markdown file, or a folder of them.
    /// Notes whose id exists are skipped; new ones without an AI answer go to the AI.
    Import {
        /// The JSON export, a .md file, or a folder of .md files.
        path: PathBuf,
    },
    /// Ask for a note's AI again (title, tags, summary): a done or failed note goes
    /// back to pending; either way it is next in line.
    Enrich {
        /// The note's id.
        id: String,
    },
    /// Edit a note: with no option, its body in $VISUAL or $EDITOR; `--title`,
    /// `--tags` and `--body` set fields directly. A changed body goes back to the AI;
    /// a title or tags set by hand are kept from the AI from then on.
    Edit {
        /// The note's id.
        id: String,
        /// The new title.
        #[arg(long)]
        title: Option<String>,
        /// The new tags, comma-separated (`--tags ""` removes them all).
        #[arg(long, value_name = "A,B,…")]
        tags: Option<String>,
        /// The new body: TEXT, or `-` to read it from standard input.
        #[arg(long, value_name = "TEXT|-")]
        body: Option<String>,
    },
    /// List the tags with how many notes have each, most used first; `rename` renames
    /// one (merging it into another when the new name is in use).
    Tags {
        #[command(subcommand)]
        action: Option<TagsAction>,
    },
    /// Move a note to the trash.
    Trash {
        /// The note's id.
        id: String,
    },
    /// Take a note out of the trash.
    Restore {
        /// The note's id.
        id: String,
    },
    /// Keep a note past expiry.
    Keep {
        /// The note's id.
        id: String,
    },
    /// Move every expired note to the trash; prints how many.
    TrashExpired,
    /// Delete a note in the trash for good: its text is gone from the database files.
    Delete {
        /// The note's id (it must be in the trash).
        id: String,
    },
    /// Delete every note in the trash for good; prints how many.
    EmptyTrash,
    /// Open the inbox page in the default browser (and print its address).
    Open,
    /// Sign out every inbox page (each must be opened again with `inkling open`).
    Logout {
        /// Every page's session (the only kind there is: the CLI has none).
        #[arg(long, required = true)]
        all: bool,
    },
    /// Start inkling when you log in: on, off, or status.
    Autostart {
        #[arg(value_enum)]
        action: AutostartAction,
        /// A systemd user unit instead of an XDG autostart entry.
        #[arg(long)]
        systemd: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum TagsAction {
    /// Rename the tag OLD to NEW on every note; if NEW is in use, the two merge.
    Rename {
        /// The tag as it is now.
        old: String,
        /// Its new name.
        new: String,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AutostartAction {
    On,
    Off,
    Status,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only notes with this AI status: pending, done or failed.
    #[arg(long)]
    pub status: Option<String>,
    /// Only notes with this tag.
    #[arg(long)]
    pub tag: Option<String>,
    /// The trash instead of the active notes.
    #[arg(long)]
    pub trash: bool,
    /// Only expired notes.
    #[arg(long)]
    pub expired: bool,
    /// How many notes at most: `list` shows every note unless told (it pages through
    /// them), `search` its best 50 (at most 500).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: Option<u32>,
}

impl Cli {
    pub fn user_file(&self) -> UserFile {
        match &self.config {
            Some(path) => UserFile::Explicit(path.clone()),
            None => UserFile::PlatformDefault,
        }
    }
}

/// `inkling autostart on|off|status [--systemd]`; needs no running service.
pub fn run_autostart(
    action: AutostartAction,
    systemd: bool,
    config: Option<&std::path::Path>,
) -> u8 {
    use crate::autostart::{self, Kind, Paths};
    let kind = if systemd { Kind::Systemd } else { Kind::Xdg };
    let outcome = (|| -> anyhow::Result<()> {
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
                println!("on: {}", entry.display());
                if systemd {
                    println!(
                        "to start it now and at every login: systemctl --user enable --now inkling"
                    );
                }
            }
            AutostartAction::Off => match autostart::turn_off(&paths, kind)? {
                Some(entry) => println!("off: removed {}", entry.display()),
                None => println!("off"),
            },
            AutostartAction::Status => {
                let entries = autostart::status(&paths);
                if entries.is_empty() {
                    println!("off");
                }
                for (_, entry) in entries {
                    println!("on: {}", entry.display());
                }
            }
        }
        Ok(())
    })();
    match outcome {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("inkling: {e:#}");
            exit::FAILURE
        }
    }
}

/// Runs a client subcommand against the running service; returns the exit status.
pub fn run_client(command: Command, settings: &Settings, json: bool) -> u8 {
    let system = actix_rt::System::new();
    let outcome = system.block_on(async move {
        let client = ServiceClient::from_settings(settings)?;
        let exports = settings.data_dir().join("exports");
        execute(
            &client,
            command,
            json,
            settings.http.max_body_bytes,
            &exports,
        )
        .await
    });
    match outcome {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("inkling: {e}");
            match e {
                ClientError::NotRunning(_) => exit::NOT_RUNNING,
                _ => exit::FAILURE,
            }
        }
    }
}

async fn execute(
    client: &ServiceClient,
    command: Command,
    json: bool,
    max_body_bytes: usize,
    exports_dir: &std::path::Path,
) -> Result<(), ClientError> {
    match command {
        Command::Run | Command::Autostart { .. } => {
            unreachable!("`run` and `autostart` are not client commands")
        }
        Command::Capture { text } => {
            let body = if text == "-" {
                read_note(std::io::stdin().lock(), max_body_bytes)?
            } else {
                text
            };
            let note: Note = client
                .post("/api/notes", &serde_json::json!({ "body": body }))
                .await?;
            if json {
                print_json(&note);
            } else {
                println!("captured {} ({})", note.id, note.ai_status.as_str());
            }
        }
        Command::Status => {
            let status: ServiceStatus = client.get("/api/status").await?;
            if json {
                print_json(&status);
            } else {
                println!("inkling {} at {}", status.version, client.base_url());
                let counts = status.counts;
                println!(
                    "notes: {} pending, {} failed, {} expired",
                    counts.pending, counts.failed, counts.expired
                );
                println!("ollama: {}", describe_health(status.provider.as_ref()));
                println!("worker: {}", describe_worker(&status.worker));
                if status.worker.model_time.total_ms() > 0 {
                    println!(
                        "model:  {} since start",
                        status
                            .worker
                            .model_time
                            .describe(crate::configuration::Locale::En)
                    );
                }
                for slow in &status.worker.slow_notes {
                    println!("slow:   note {}: {}", slow.note_id, describe_slow(slow));
                }
                for line in describe_actors(&status.actors) {
                    println!("{line}");
                }
            }
        }
        Command::List(args) => {
            let (notes, more) = list_all(client, &args).await?;
            if json {
                print_json(&notes);
            } else if notes.is_empty() {
                println!("no notes");
            } else {
                for note in &notes {
                    println!("{}", list_line(note));
                }
            }
            if more {
                eprintln!(
                    "the newest {} shown; more exist (a larger --limit, or none to see every note)",
                    notes.len()
                );
            }
        }
        Command::Search { query, filters } => {
            let limit = filters.limit.unwrap_or(ListFilter::DEFAULT_LIMIT);
            let path = format!(
                "{}&q={}",
                list_path(&filters, limit),
                encode(&query.join(" "))
            );
            let hits: Vec<SearchHit> = client.get(&path).await?;
            if json {
                print_json(&hits);
            } else if hits.is_empty() {
                println!("no notes match");
            } else {
                for hit in &hits {
                    println!("{}", list_line(&hit.note));
                    println!("    {}", snippet_line(&hit.snippet));
                }
            }
        }
        Command::RetryFailed => post_count(client, "/api/inbox/retry-all-failed", json).await?,
        Command::FailedCount => {
            let count: u64 = client.get("/api/inbox/failed-count").await?;
            println!("{count}");
        }
        Command::Recheck => {
            let health: ProviderHealth = client
                .post("/api/ollama/recheck", &serde_json::json!({}))
                .await?;
            if json {
                print_json(&health);
            } else {
                println!("ollama: {}", describe_health(Some(&health)));
            }
        }
        Command::PullModel => pull_model(client, json).await?,
        Command::Logout { all: _ } => {
            let reply: Value = client
                .post("/api/sessions/end-all", &serde_json::json!({}))
                .await?;
            if json {
                print_json(&reply);
            } else {
                let count = reply["count"].as_u64().unwrap_or(0);
                let pages = if count == 1 { "page" } else { "pages" };
                println!("signed out {count} inbox {pages}; `inkling open` opens the inbox again");
            }
        }
        Command::Enrich { id } => {
            note_action(client, &id, "enrich", "enrichment requested for", json).await?
        }
        Command::Edit {
            id,
            title,
            tags,
            body,
        } => {
            let path = format!("/api/notes/{}", encode(&id));
            let body = match body.as_deref() {
                Some("-") => Some(read_note(std::io::stdin().lock(), max_body_bytes)?),
                _ => body,
            };
            let tags = tags.map(|tags| {
                tags.split(',')
                    .map(str::trim)
                    .filter(|tag| !tag.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>()
            });
            let edit = if title.is_none() && tags.is_none() && body.is_none() {
                let note: Note = client.get(&path).await?;
                match edit_in_editor(&note.body)? {
                    Some(body) => serde_json::json!({ "body": body }),
                    None => {
                        println!("no change to {}", note.id);
                        return Ok(());
                    }
                }
            } else {
                serde_json::json!({ "body": body, "title": title, "tags": tags })
            };
            let note: Note = client.patch(&path, &edit).await?;
            if json {
                print_json(&note);
            } else {
                println!("edited {} ({})", note.id, note.ai_status.as_str());
            }
        }
        Command::Tags { action: None } => {
            let tags: Vec<TagCount> = client.get("/api/tags").await?;
            if json {
                print_json(&tags);
            } else if tags.is_empty() {
                println!("no tags");
            } else {
                for tag in &tags {
                    println!("{:>6}  {}", tag.count, printable(&tag.tag, false));
                }
            }
        }
        Command::Tags {
            action: Some(TagsAction::Rename { old, new }),
        } => {
            let renamed: TagRenamed = client
                .post(
                    &format!("/api/tags/{}/rename", encode(&old)),
                    &serde_json::json!({ "to": new }),
                )
                .await?;
            if json {
                print_json(&renamed);
            } else {
                let notes = match renamed.notes {
                    1 => "1 note".to_string(),
                    n => format!("{n} notes"),
                };
                let (old, new) = (printable(&old, false), printable(&renamed.tag, false));
                if renamed.merged {
                    println!("merged {old} into {new} ({notes})");
                } else {
                    println!("renamed {old} to {new} ({notes})");
                }
            }
        }
        Command::Delete { id } => {
            client
                .delete(&format!("/api/notes/{}", encode(&id)))
                .await?;
            if json {
                print_json(&serde_json::json!({ "id": id, "deleted": true }));
            } else {
                println!("deleted {} for good", printable(&id, false));
            }
        }
        Command::EmptyTrash => post_count(client, "/api/trash/empty", json).await?,
        Command::Stats => {
            let report = client.get_text("/api/stats").await?;
            print!("{report}");
        }
        Command::ExportLog { out } => {
            // The service writes the folder; a relative --out means relative to here.
            let out = out.map(absolute).transpose()?;
            let reply: Value = client
                .post("/api/usage-log/export", &serde_json::json!({ "out": out }))
                .await?;
            if json {
                print_json(&reply);
            } else {
                println!("{}", reply["path"].as_str().unwrap_or(""));
            }
        }
        Command::ExportNotes { format, out } => {
            let parent = match out {
                Some(dir) => absolute(dir)?,
                None => exports_dir.to_path_buf(),
            };
            let exported =
                transfer::export_notes(client, format, &parent, chrono::Utc::now()).await?;
            if json {
                print_json(&serde_json::json!({
                    "path": exported.path, "notes": exported.notes
                }));
            } else {
                let notes = if exported.notes == 1 { "note" } else { "notes" };
                println!(
                    "exported {} {notes} to {}",
                    exported.notes,
                    exported.path.display()
                );
            }
        }
        Command::Import { path } => {
            let notes = transfer::read_notes(&path)?;
            let count = transfer::import_notes(client, notes, max_body_bytes).await?;
            if json {
                print_json(&serde_json::json!({
                    "imported": count.imported, "skipped": count.skipped
                }));
            } else {
                let notes = if count.imported == 1 { "note" } else { "notes" };
                let mut line = format!("imported {} {notes}", count.imported);
                if count.skipped > 0 {
                    line.push_str(&format!(
                        "; {} skipped (a note with the same id is here already)",
                        count.skipped
                    ));
                }
                println!("{line}");
            }
        }
        Command::Trash { id } => note_action(client, &id, "trash", "trashed", json).await?,
        Command::Restore { id } => note_action(client, &id, "restore", "restored", json).await?,
        Command::Keep { id } => note_action(client, &id, "keep", "kept", json).await?,
        Command::TrashExpired => post_count(client, "/api/inbox/trash-expired", json).await?,
        Command::Open => {
            let url = client.inbox_url().await?;
            println!("{url}");
            if let Err(e) = crate::desktop::open(&url) {
                eprintln!("inkling: {e}; open the address above yourself");
            }
        }
        Command::Show { id } => {
            let note: Note = client.get(&format!("/api/notes/{}", encode(&id))).await?;
            if json {
                print_json(&note);
            } else {
                print_note(&note);
                if note.ai_status == crate::domain::AiStatus::Pending {
                    // A slow note says so, with what to do.
                    let status: ServiceStatus = client.get("/api/status").await?;
                    if let Some(slow) = status
                        .worker
                        .slow_notes
                        .iter()
                        .find(|s| s.note_id == note.id)
                    {
                        println!();
                        println!("slow:     {}", describe_slow(slow));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `dir` relative to the current directory, if it is relative.
fn absolute(dir: PathBuf) -> Result<PathBuf, ClientError> {
    if dir.is_absolute() {
        return Ok(dir);
    }
    Ok(std::env::current_dir()
        .map_err(|e| anyhow::anyhow!("cannot resolve {}: {e}", dir.display()))?
        .join(dir))
}

/// A POST that answers `{"count": n}`; prints n (or the JSON).
async fn post_count(client: &ServiceClient, path: &str, json: bool) -> Result<(), ClientError> {
    let reply: Value = client.post(path, &serde_json::json!({})).await?;
    if json {
        print_json(&reply);
    } else {
        println!("{}", reply["count"].as_u64().unwrap_or(0));
    }
    Ok(())
}

/// `POST /api/notes/{id}/{action}`, then one line (or the note as JSON).
async fn note_action(
    client: &ServiceClient,
    id: &str,
    action: &str,
    done: &str,
    json: bool,
) -> Result<(), ClientError> {
    let note: Note = client
        .post(
            &format!("/api/notes/{}/{action}", encode(id)),
            &serde_json::json!({}),
        )
        .await?;
    if json {
        print_json(&note);
    } else {
        println!("{done} {}", note.id);
    }
    Ok(())
}

/// One line for the provider's health (`/api/status` `provider`, or a recheck).
fn describe_health(health: Option<&ProviderHealth>) -> String {
    match health {
        Some(ProviderHealth::Ready) => "ready".into(),
        Some(ProviderHealth::ModelMissing { model }) => {
            format!("running, but the model is not installed: run `ollama pull {model}`")
        }
        Some(ProviderHealth::NotRunning { detail }) => format!("not running ({detail})"),
        None => "not checked yet".into(),
    }
}

/// One line for the worker's state.
fn describe_worker(worker: &WorkerStatus) -> String {
    let queued = worker.queued;
    match &worker.state {
        WorkerState::Running { note_id } => format!("running note {note_id} ({queued} queued)"),
        WorkerState::Parked { until, step } => {
            format!("waiting for Ollama until {until} (backoff step {step}, {queued} queued)")
        }
        WorkerState::StorageUnavailable { until } => {
            format!("cannot save answers (disk full?); next try at {until} ({queued} queued)")
        }
        WorkerState::Waiting { until } => format!("next job due at {until} ({queued} queued)"),
        WorkerState::WaitingForModel => {
            format!("waiting for the model to be installed ({queued} queued)")
        }
        WorkerState::LoadingModel => format!("loading the model ({queued} queued)"),
        WorkerState::Starting => "starting".into(),
        WorkerState::Idle => "idle".into(),
    }
}

/// `POST /api/ollama/pull`: each step of the download as it comes, as a progress line
/// rewritten in place on a terminal (otherwise a line per step and per tenth of a
/// download, or the JSON lines with `--json`). Fails with Ollama's reason when the download does.
async fn pull_model(client: &ServiceClient, json: bool) -> Result<(), ClientError> {
    use std::io::{IsTerminal, Write};
    // Nothing to download from: say so plainly, with the fix.
    let status: ServiceStatus = client.get("/api/status").await?;
    if let Some(ProviderHealth::NotRunning { detail }) = &status.provider {
        return Err(ClientError::Api(format!(
            "Ollama is not running ({detail}); start it (the Ollama app, or `ollama serve`), then run `inkling pull-model` again"
        )));
    }
    let terminal = std::io::stdout().is_terminal() && !json;
    let mut last_line = (String::new(), None::<u64>);
    let mut outcome: Option<PullState> = None;
    client
        .post_lines("/api/ollama/pull", &serde_json::json!({}), |line| {
            if line.trim().is_empty() {
                return Ok(());
            }
            let step: ModelPullProgress = serde_json::from_str(line)
                .map_err(|e| ClientError::Api(format!("a download step that is not JSON: {e}")))?;
            if json {
                println!("{line}");
            }
            match &step.state {
                PullState::Running {
                    status,
                    completed,
                    total,
                } if !json => {
                    let text = describe_pull_step(status, *completed, *total);
                    let tenth = completed
                        .zip(*total)
                        .filter(|(_, total)| *total > 0)
                        .map(|(done, total)| done.saturating_mul(10) / total);
                    if terminal {
                        print!("\r\x1b[2K{text}");
                        let _ = std::io::stdout().flush();
                    } else if (status.clone(), tenth) != last_line {
                        println!("{text}");
                    }
                    last_line = (status.clone(), tenth);
                }
                PullState::Running { .. } => {}
                over => outcome = Some(over.clone()),
            }
            Ok(())
        })
        .await?;
    if terminal {
        println!();
    }
    match outcome {
        Some(PullState::Done) => {
            if !json {
                println!("the model is installed; the AI work starts now");
            }
            Ok(())
        }
        Some(PullState::Failed { error }) => Err(ClientError::Api(format!(
            "the download failed: {error}. Check that Ollama runs and the model name (ollama.model) is right"
        ))),
        _ => Err(ClientError::Api("the download ended without a result".into())),
    }
}

/// "downloading 6a0746a1ec1a: 45 % (910 MB of 2.0 GB)".
fn describe_pull_step(status: &str, completed: Option<u64>, total: Option<u64>) -> String {
    match (completed, total) {
        (Some(done), Some(total)) if total > 0 => format!(
            "{status}: {} % ({} of {})",
            done.saturating_mul(100) / total,
            plain_size(done),
            plain_size(total)
        ),
        _ => status.to_string(),
    }
}

/// Bytes in a person's units: "910 MB", "2.0 GB".
fn plain_size(bytes: u64) -> String {
    const MB: f64 = 1_000_000.0;
    let mb = bytes as f64 / MB;
    if mb >= 1000.0 {
        format!("{:.1} GB", mb / 1000.0)
    } else {
        format!("{mb:.0} MB")
    }
}

/// What a slow note is doing, and what the user can do about it.
fn describe_slow(slow: &SlowNote) -> String {
    format!(
        "took longer than {} {} times while Ollama was up; it will be tried with up to {}. \
         Shorten the note, or raise ollama.request_timeout_ms",
        plain_duration(slow.request_timeout_ms),
        slow.timeouts,
        plain_duration(slow.next_deadline_ms),
    )
}

/// `120000` → "2 min", `90000` → "90 s", `5400000` → "90 min".
fn plain_duration(ms: u64) -> String {
    if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms >= 1000 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// The per-actor counters as a small table (docs/DESIGN.md, "Logs and actor counters"): messages received, handled and
/// waiting, time in handlers and the slowest handler.
fn describe_actors(actors: &BTreeMap<String, ActorCounters>) -> Vec<String> {
    if actors.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "{:<16} {:>9} {:>9} {:>8} {:>10} {:>11}",
        "actors:", "received", "handled", "waiting", "busy ms", "slowest ms"
    )];
    for (name, counters) in actors {
        lines.push(format!(
            "  {:<14} {:>9} {:>9} {:>8} {:>10.1} {:>11.1}",
            name,
            counters.received,
            counters.handled,
            counters.waiting,
            counters.busy_us as f64 / 1000.0,
            counters.slowest_us as f64 / 1000.0,
        ));
    }
    lines
}

fn print_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("inkling: cannot print JSON: {e}"),
    }
}

/// `id  status  created  title-or-first-line`, one note a line.
/// The notes `inkling list` asks for, newest first, a page of at most
/// [`ListFilter::MAX_LIMIT`] at a time: every one, or `--limit` of them and whether
/// more exist.
async fn list_all(
    client: &ServiceClient,
    args: &ListArgs,
) -> Result<(Vec<Note>, bool), ClientError> {
    let wanted = args.limit.map(|limit| limit as usize);
    let mut notes: Vec<Note> = Vec::new();
    loop {
        let left = wanted.map_or(usize::MAX, |wanted| wanted - notes.len());
        // One more than asked for, on the last page: is there more?
        let page_size = left.saturating_add(1).min(ListFilter::MAX_LIMIT as usize);
        let mut path = list_path(args, page_size as u32);
        if let Some(last) = notes.last() {
            path.push_str(&format!("&before={}", encode(&last.id)));
        }
        let mut page: Vec<Note> = client.get(&path).await?;
        let full = page.len() == page_size;
        if page.len() > left {
            page.truncate(left);
            notes.extend(page);
            return Ok((notes, true));
        }
        notes.extend(page);
        if !full || notes.len() == wanted.unwrap_or(usize::MAX) {
            return Ok((notes, false));
        }
    }
}

/// `GET /api/notes` with the filters of `inkling list` (and `search`), `limit` a page.
fn list_path(args: &ListArgs, limit: u32) -> String {
    let mut path = format!(
        "/api/notes?limit={limit}&trash={}&expired={}",
        args.trash, args.expired
    );
    if let Some(status) = &args.status {
        path.push_str(&format!("&status={}", encode(status)));
    }
    if let Some(tag) = &args.tag {
        path.push_str(&format!("&tag={}", encode(tag)));
    }
    path
}

/// A search hit's snippet on one line, the matched words in `[brackets]`, control
/// characters escaped.
pub fn snippet_line(parts: &[SnippetPart]) -> String {
    let printable: Vec<SnippetPart> = parts
        .iter()
        .map(|part| SnippetPart {
            text: printable(&part.text, false),
            matched: part.matched,
        })
        .collect();
    crate::storage::search::bracketed(&printable)
}

pub fn list_line(note: &Note) -> String {
    let headline = note
        .title
        .clone()
        .unwrap_or_else(|| note.body.lines().next().unwrap_or("").to_string());
    let headline = printable(&headline, false);
    let headline: String = if headline.chars().count() > 60 {
        headline.chars().take(59).chain(['…']).collect()
    } else {
        headline
    };
    format!(
        "{}  {:<7}  {}  {}",
        note.id,
        note.ai_status.as_str(),
        &note.created_at[..16.min(note.created_at.len())],
        headline
    )
}

fn print_note(note: &Note) {
    let line = |text: &str| printable(text, false);
    println!("id:       {}", line(&note.id));
    println!("status:   {}", note.ai_status.as_str());
    if let Some(error) = &note.ai_error {
        println!("error:    {}", line(error));
    }
    println!("created:  {}", note.created_at);
    if let Some(at) = &note.deleted_at {
        println!("trashed:  {at}");
    }
    if let Some(title) = &note.title {
        println!("title:    {}", line(title));
    }
    if !note.tags.is_empty() {
        println!("tags:     {}", line(&note.tags.join(", ")));
    }
    if let Some(summary) = &note.summary {
        println!("summary:  {}", line(summary));
    }
    if let Some(chars) = note.ai_read_chars {
        println!(
            "read:     the AI was given its first {chars} characters (the note is longer than the model reads at once)"
        );
    }
    println!();
    println!("{}", printable(&note.body, true));
}

/// `body` edited in the user's editor ($VISUAL, else $EDITOR, else `vi`, run by the
/// shell as git runs it, so `code --wait` works), through a file only the user can
/// read. `None` when it comes back unchanged.
fn edit_in_editor(body: &str) -> Result<Option<String>, ClientError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    let path = std::env::temp_dir().join(format!("inkling-note-{}.md", uuid::Uuid::now_v7()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| file.write_all(body.as_bytes()));
    if let Err(e) = written {
        return Err(anyhow::anyhow!("cannot write {}: {e}", path.display()).into());
    }
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg("sh")
        .arg(&path)
        .status();
    let edited = std::fs::read(&path);
    let _ = std::fs::remove_file(&path);
    match ran {
        Ok(status) if status.success() => {}
        Ok(status) => {
            return Err(ClientError::Api(format!(
                "the editor ({editor}) ended with {status}; the note was not changed"
            )))
        }
        Err(e) => {
            return Err(anyhow::anyhow!(
                "cannot run the editor ({editor}): {e}; set $VISUAL or $EDITOR, or use --body"
            )
            .into())
        }
    }
    let edited = edited.map_err(|e| anyhow::anyhow!("cannot read the edited note: {e}"))?;
    let edited = String::from_utf8(edited)
        .map_err(|_| ClientError::Api("the edited note is not UTF-8 text".into()))?;
    Ok((edited != body).then_some(edited))
}

/// A note from `input` (`capture -`), read up to `limit` bytes and no further: a pipe
/// from a huge file or `/dev/zero` is refused at once instead of filling the memory.
fn read_note(input: impl Read, limit: usize) -> Result<String, ClientError> {
    let mut bytes = Vec::new();
    input
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
    if bytes.len() > limit {
        let size = if limit.is_multiple_of(1024) {
            format!("{} KiB", limit / 1024)
        } else {
            format!("{limit} bytes")
        };
        return Err(ClientError::Api(format!(
            "the note is larger than {size} (http.max_body_bytes); shorten it"
        )));
    }
    String::from_utf8(bytes).map_err(|_| ClientError::Api("the note is not UTF-8 text".into()))
}

/// `text` safe to print on a terminal: control characters (ESC, BEL, carriage return,
/// …), which a note body or a model's title may hold and which a terminal would act
/// on, are shown escaped (`\u{1b}`). Line breaks and tabs stay when `multiline`.
fn printable(text: &str, multiline: bool) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' if multiline => c.to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Everything but RFC 3986's unreserved characters is encoded, so a value is safe in
/// a path segment and in a query alike.
const ENCODED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encodes a query or path value.
fn encode(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, ENCODED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actor_counters_print_as_a_table_row_per_actor() {
        let counters = ActorCounters {
            received: 12,
            handled: 11,
            waiting: 1,
            busy_us: 2500,
            slowest_us: 900,
        };
        let actors = BTreeMap::from([("repository".to_string(), counters)]);
        let lines = describe_actors(&actors);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains("received") && lines[0].contains("waiting"));
        let row: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(row, ["repository", "12", "11", "1", "2.5", "0.9"]);
        assert!(describe_actors(&BTreeMap::new()).is_empty());
    }

    #[test]
    fn control_characters_are_printed_escaped_and_line_breaks_kept_in_a_body() {
        let hostile = "title\u{1b}]0;owned\u{7}\r\nnext\tline";
        assert_eq!(
            printable(hostile, false),
            "title\\u{1b}]0;owned\\u{7}\\u{d}\\u{a}next\\u{9}line"
        );
        assert_eq!(
            printable(hostile, true),
            "title\\u{1b}]0;owned\\u{7}\\u{d}\nnext\tline"
        );
        let mut note: Note = serde_json::from_value(serde_json::json!({
            "id": "n1", "body": "x", "title": "\u{1b}[2J", "summary": null, "tags": [],
            "ai_status": "done", "ai_error": null, "created_at": "2026-03-01T12:00:00.000Z",
            "updated_at": "2026-03-01T12:00:00.000Z", "deleted_at": null, "kept_at": null
        }))
        .unwrap();
        assert!(!list_line(&note).contains('\u{1b}'));
        note.title = None;
        note.body = "\u{7}bell".into();
        assert!(list_line(&note).ends_with("\\u{7}bell"));
    }

    #[test]
    fn a_note_on_standard_input_is_read_up_to_the_limit_and_no_further() {
        assert_eq!(read_note(&b"a thought"[..], 64).unwrap(), "a thought");
        assert_eq!(read_note(&[b'x'; 64][..], 64).unwrap().len(), 64);
        // An endless input: refused after limit + 1 bytes, not read to its end.
        let endless = std::io::repeat(b'x');
        let error = read_note(endless, 65536).unwrap_err().to_string();
        assert_eq!(
            error,
            "the note is larger than 64 KiB (http.max_body_bytes); shorten it"
        );
        assert!(read_note(&[0xff, 0xfe][..], 64).is_err());
    }

    #[test]
    fn a_slow_note_is_described_in_plain_words_with_what_to_do() {
        let slow = SlowNote {
            note_id: "n".into(),
            timeouts: 3,
            request_timeout_ms: 120_000,
            next_deadline_ms: 600_000,
        };
        assert_eq!(
            describe_slow(&slow),
            "took longer than 2 min 3 times while Ollama was up; it will be tried with up \
             to 10 min. Shorten the note, or raise ollama.request_timeout_ms"
        );
        assert_eq!(plain_duration(90_000), "90 s");
        assert_eq!(
            describe_pull_step("downloading 6a07", Some(910_000_000), Some(2_019_377_376)),
            "downloading 6a07: 45 % (910 MB of 2.0 GB)"
        );
        assert_eq!(
            describe_pull_step("pulling manifest", None, None),
            "pulling manifest"
        );
        assert_eq!(plain_duration(500), "500 ms");
    }

    #[test]
    fn values_are_percent_encoded() {
        assert_eq!(encode("a b&c/é"), "a%20b%26c%2F%C3%A9");
    }

    #[test]
    fn global_options_work_before_and_after_the_subcommand() {
        let cli =
            Cli::try_parse_from(["inkling", "--config", "x.toml", "status", "--json"]).unwrap();
        assert_eq!(cli.config, Some(PathBuf::from("x.toml")));
        assert!(cli.json);
        assert!(matches!(cli.command, Some(Command::Status)));
        assert!(Cli::try_parse_from(["inkling"]).unwrap().command.is_none());
    }
}
