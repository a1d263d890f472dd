//! The `inkling` binary: parses the command line and hands over to the library.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use inkling::cli::{exit, pull_embedder, run_autostart, run_client, run_shortcut, Cli, Command};
use inkling::clock::SystemClock;
use inkling::configuration::Settings;
use inkling::instance::LockError;
use inkling::startup::Application;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match Settings::load(&cli.user_file()) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("inkling: invalid configuration: {e}");
            return ExitCode::from(exit::USAGE_OR_CONFIG);
        }
    };
    match cli.command {
        None | Some(Command::Run) => run_service(settings),
        Some(Command::Autostart { action, systemd }) => {
            ExitCode::from(run_autostart(action, systemd, cli.config.as_deref()))
        }
        Some(Command::Shortcut { action }) => ExitCode::from(run_shortcut(
            action,
            &settings.quick.shortcut,
            cli.config.as_deref(),
        )),
        Some(Command::PullModel {
            embedder: true,
            wheel,
        }) => ExitCode::from(pull_embedder(&settings, wheel.as_deref())),
        Some(Command::Mcp) => match inkling::mcp::run(settings) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("inkling mcp: {e:#}");
                ExitCode::from(exit::FAILURE)
            }
        },
        Some(command) => ExitCode::from(run_client(command, &settings, cli.json)),
    }
}

fn run_service(settings: Settings) -> ExitCode {
    // Only the service talks to the model server: only it needs the server's key.
    if let Err(e) = settings.check_model_key() {
        eprintln!("inkling: invalid configuration: {e}");
        return ExitCode::from(exit::USAGE_OR_CONFIG);
    }
    // Everything the service creates (logs, the usage log, exports, the database's
    // files) is its owner's only: the notes are private.
    #[cfg(unix)]
    // SAFETY: umask only sets the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
    // Before the log file is opened inside it: the data dir holds the token and the
    // notes, so it is made readable by its owner only.
    if let Err(e) = inkling::startup::create_private_dir(&settings.data_dir()) {
        eprintln!("inkling: {e:#}");
        return ExitCode::from(exit::FAILURE);
    }
    let logs_dir = settings.log.file.then(|| settings.logs_dir());
    let _log_guard = match inkling::logging::init(&settings.log.level, logs_dir.as_deref()) {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("inkling: {e:#}");
            return ExitCode::from(exit::FAILURE);
        }
    };
    let outcome = actix_rt::System::new().block_on(async move {
        Application::build(settings, Arc::new(SystemClock))
            .await?
            .run_until_stopped()
            .await
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("inkling: {e:#}");
            if let Some(LockError::AlreadyRunning(_)) = e.downcast_ref::<LockError>() {
                return ExitCode::from(exit::ALREADY_RUNNING);
            }
            tracing::error!(error = %format!("{e:#}"), "inkling stopped on an error");
            ExitCode::from(exit::FAILURE)
        }
    }
}
