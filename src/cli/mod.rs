//! The command line: `inkling run` starts the service; every other subcommand is a
//! client of the running service (docs/DESIGN.md, "API and CLI").
//!
//! - `arguments.rs`: the subcommands and options (clap), the exit statuses;
//! - one file a command group, each a small `async fn` per command that asks the
//!   service (`crate::client::ServiceClient`) and prints the answer: `notes.rs`
//!   (capture, list, search, show, edit), `lifecycle.rs` (enrich, trash, restore, keep,
//!   delete, the bulk moves), `ai.rs` (retry, the failed count, recheck, the model
//!   download), `status.rs`, `tags.rs`, `sessions.rs` (open, quick, logout), `usage.rs`
//!   (stats, the usage log's export), `transfer.rs` (the notes' export and import),
//!   `autostart.rs` and `shortcut.rs` (need no service), `ask.rs` (a question asked of
//!   the notes), `reminders.rs` (remind, today);
//! - `render.rs`: the answers as text for a terminal, plain functions;
//! - `input.rs`: what a command reads from the person (standard input, the editor);
//!   `clipboard.rs`: the desktop's clipboard (`capture --clipboard`);
//! - `invocation.rs`: what every command of one run shares (the client, the output);
//! - `output.rs`: standard output, which ends a command quietly when its reader goes.

mod ai;
pub mod arguments;
mod ask;
mod autostart;
mod clipboard;
mod embedder;
mod ids;
mod input;
mod invocation;
mod lifecycle;
mod notes;
mod output;
mod reminders;
mod render;
mod sessions;
mod shortcut;
mod status;
mod tags;
pub mod transfer;
mod usage;
mod voice;

use std::path::PathBuf;

pub use arguments::{exit, AutostartAction, Cli, Command, ListArgs, ShortcutAction, TagsAction};
pub use autostart::run_autostart;
pub use embedder::pull_embedder;
pub use shortcut::run_shortcut;

use crate::client::{ClientError, ServiceClient};
use crate::configuration::Settings;
pub(crate) use invocation::Invocation;
use output::Output;

/// Runs a client subcommand against the running service; returns the exit status.
pub fn run_client(command: Command, settings: &Settings, json: bool) -> u8 {
    let system = actix_rt::System::new();
    let outcome = system.block_on(async move {
        let client = ServiceClient::from_settings(settings)?;
        let mut run = Invocation {
            client: &client,
            out: Output::stdout(),
            json,
            max_body_bytes: settings.http.max_body_bytes,
            exports_dir: settings.data_dir().join("exports"),
            quick_browser: settings.quick.browser.clone(),
        };
        execute(&mut run, command).await
    });
    match outcome {
        // The reader has what it wanted (`inkling list | head`).
        Ok(()) | Err(ClientError::OutputClosed) => exit::OK,
        Err(e) => {
            // Errors can quote files and notes (an import's file names and ids):
            // printed as every other output is.
            eprintln!("inkling: {}", render::printable(&e.to_string(), false));
            match e {
                ClientError::NotRunning(_) => exit::NOT_RUNNING,
                _ => exit::FAILURE,
            }
        }
    }
}

/// Hands `command` to its group.
async fn execute(run: &mut Invocation<'_>, command: Command) -> Result<(), ClientError> {
    match command {
        Command::Run | Command::Autostart { .. } | Command::Shortcut { .. } | Command::Mcp => {
            unreachable!("`run`, `autostart`, `shortcut` and `mcp` are not client commands")
        }
        Command::Capture {
            audio: Some(path), ..
        } => voice::capture_audio(run, &path).await,
        Command::Capture {
            text, clipboard, ..
        } => notes::capture(run, text, clipboard).await,
        Command::List(args) => notes::list(run, &args).await,
        Command::Search { query, filters } => notes::search(run, &query, &filters).await,
        Command::Show { id } => notes::show(run, &ids::resolve(run.client, &id).await?).await,
        Command::Related { id } => notes::related(run, &ids::resolve(run.client, &id).await?).await,
        Command::Changes { since, limit } => notes::changes(run, since, limit).await,
        Command::Ask { question, save } => ask::ask(run, &question, save).await,
        Command::Edit {
            id,
            title,
            tags,
            body,
        } => {
            let id = ids::resolve(run.client, &id).await?;
            notes::edit(run, &id, title, tags, body).await
        }
        Command::Remind {
            id,
            when,
            clear,
            done,
        } => {
            let action = match (clear, done) {
                (true, _) => reminders::RemindAction::Clear,
                (_, true) => reminders::RemindAction::Done,
                _ => reminders::RemindAction::At(when.join(" ")),
            };
            reminders::remind(run, &ids::resolve(run.client, &id).await?, action).await
        }
        Command::Today => reminders::today(run).await,
        Command::Status { verbose } => status::status(run, verbose).await,
        Command::RetryFailed => ai::retry_failed(run).await,
        Command::FailedCount => ai::failed_count(run).await,
        Command::Recheck => ai::recheck(run).await,
        Command::PullModel { embedder: true, .. } => {
            unreachable!("`pull-model --embedder` is not a client command")
        }
        Command::PullModel { .. } => ai::pull_model(run).await,
        Command::Enrich { id } => {
            lifecycle::enrich(run, &ids::resolve(run.client, &id).await?).await
        }
        Command::Trash { id } => lifecycle::trash(run, &ids::resolve(run.client, &id).await?).await,
        Command::Restore { id } => {
            lifecycle::restore(run, &ids::resolve(run.client, &id).await?).await
        }
        Command::Keep { id } => lifecycle::keep(run, &ids::resolve(run.client, &id).await?).await,
        Command::TrashExpired => lifecycle::trash_expired(run).await,
        Command::Delete { id } => {
            lifecycle::delete(run, &ids::resolve(run.client, &id).await?).await
        }
        Command::EmptyTrash => lifecycle::empty_trash(run).await,
        Command::Tags { action: None } => tags::list(run).await,
        Command::Tags {
            action: Some(TagsAction::Rename { old, new }),
        } => tags::rename(run, &old, &new).await,
        Command::Open => sessions::open(run).await,
        Command::Quick => sessions::quick(run).await,
        Command::Logout { all: _ } => sessions::logout_all(run).await,
        Command::Pair => sessions::pair(run).await,
        Command::Sessions { action: None } => sessions::devices(run).await,
        Command::Sessions {
            action: Some(arguments::SessionsAction::Revoke { id }),
        } => sessions::revoke(run, &id).await,
        Command::Stats => usage::stats(run).await,
        Command::ExportLog { out } => usage::export_log(run, out).await,
        Command::ExportNotes { format, out } => transfer::run_export(run, format, out).await,
        Command::Import { path } => transfer::run_import(run, &path).await,
    }
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
