//! `Application`: start-up and shutdown of the service.
//!
//! `build` prepares everything that can fail (data dir, token, database, listener)
//! before anything runs, so a bad start stops with one clear error and nothing half
//! started. The one thing it does not wait for is the database's check (`PRAGMA
//! quick_check` reads the whole file): that runs beside the service, every write waits
//! for it, and a damaged verdict stops the service with how to recover.
//! `run_until_stopped` serves until SIGINT/SIGTERM (or a stop through
//! [`Application::handle`], or that verdict), then drains the actors. Shutdown, in order:
//! 1. the HTTP server stops accepting, finishes the requests in hand (5 s at most);
//! 2. the repository handles what is in its mailbox, then checkpoints the WAL; an
//!    in-flight provider call is abandoned with the System: its job row is untouched
//!    (still pending, attempts unchanged) and runs again after the next start;
//! 3. `run_until_stopped` returns and the process exits 0.

use std::path::{Path, PathBuf};

use actix_web::{web, App};
use anyhow::Context;
use std::sync::Arc;

use crate::actors::repository::{Checkpoint, CountFailed};
use crate::actors::telemetry::FlushUsageLog;
use crate::ai::listener::ListenerTrust;
use crate::ai::listener_guard::{guard, guard_transcription, ListenerCheck};
use crate::ai::ModelServer;
use crate::api_token;
use crate::clock::SharedClock;
use crate::configuration::Settings;
use crate::desktop::tray::{self, TrayWiring};
use crate::http::auth::ApiToken;
use crate::http::server::{RunningServer, Server, ServerHandle, ServerOptions};
use crate::http::{self, AppState};
use crate::instance::{Holder, InstanceLock};
use crate::open_codes::OpenCodes;
use crate::services::Services;
use crate::sessions::Sessions;
use crate::shutdown::Shutdown;
use crate::storage::{Integrity, Store, Verdict, RECOVER_HINT};

/// A built, not yet running, service.
pub struct Application {
    /// Held until the process ends (or the application is dropped).
    _lock: InstanceLock,
    local_addr: std::net::SocketAddr,
    port: u16,
    server: RunningServer,
    services: Services,
    /// The database's check at start; a damaged verdict stops the service.
    integrity: Arc<Integrity>,
}

impl Application {
    /// Builds the service from settings. Must be called inside an actix `System`.
    pub async fn build(settings: Settings, clock: SharedClock) -> anyhow::Result<Self> {
        settings.check_model_key()?;
        let data_dir = settings.data_dir();
        create_private_dir(&data_dir)?;
        // Before anything else touches the data dir: one service per data dir.
        let mut lock = InstanceLock::acquire(&data_dir)?;
        let token = api_token::load_or_create(&settings.api_token_path())?;
        let sessions = Sessions::load(&data_dir.join("sessions"), clock.now())?;
        let devices = crate::devices::Devices::load(&data_dir.join("devices"))?;
        forget_the_old_session_secret(&data_dir);

        let db_path = settings.database_path();
        make_database_private(&db_path)?;
        // After the files are made private: the check's connection may create `-shm`.
        let integrity = check_the_database_in_background(&db_path)?;
        let store = Store::open_checked(&db_path, settings.expiry.days, integrity.clone())
            .with_context(|| format!("cannot open the database {}", db_path.display()))?;
        let checks = listener_checks(&settings)?;
        let transcription = crate::ai::transcription_for(&settings)
            .map(|server| guard_transcription(server, checks.transcription));
        let capabilities = guard(
            crate::ai::provider_for(&settings),
            checks.model,
            checks.embedding,
        )
        .with_transcription(transcription);
        // The built-in embedder is in this process: no listener to check.
        let capabilities = crate::ai::with_builtin_embedder(capabilities, &settings);
        let services = Services::start(
            &settings,
            clock.clone(),
            store,
            db_path.clone(),
            capabilities,
        )
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot read the AI queue from {} ({e}); {}",
                db_path.display(),
                RECOVER_HINT
            )
        })?;

        // Loopback unless the user explicitly said otherwise (checked with the config).
        // [::1] on the same port too, which browsers try first for `localhost`.
        let listeners = http::server::bind::listen(settings.http.bind, settings.http.port)?;
        let local_addr = listeners
            .first()
            .context("no socket to listen on")?
            .local_addr()?;
        let port = local_addr.port();
        lock.record(&Holder {
            pid: std::process::id(),
            url: settings.http.local_url(port),
        })?;

        let mut options = ServerOptions::default();
        if let Err(e) = crate::socket_owner::owners_knowable() {
            // A sandbox without /proc: the service still works, without this defence.
            tracing::warn!(error = %e, "cannot tell which user's program connects; connections of other users are not refused");
            options.only_user = None;
        }
        let server = Server::new(listeners, options);
        let model_server = crate::ai::model_server_of(&settings);
        let state = web::Data::new(AppState {
            server: server.handle(),
            services: services.clone(),
            clock: services.clock.clone(),
            max_body_bytes: settings.http.max_body_bytes,
            max_attempts: settings.worker.max_attempts,
            locale: settings.locale(),
            expiry_days: settings.expiry.days,
            model_server,
            model: settings.provider_calls().model,
            embedding_model: settings.embedding_calls().map(|calls| calls.model),
            port,
            live_feeds: http::live_feeds::LiveFeeds::default(),
        });
        let token = web::Data::new(ApiToken(token));
        let open_codes = web::Data::new(OpenCodes::default());
        let challenges = web::Data::new(crate::page_proof::Challenges::default());
        let page_assets = web::Data::new(http::routes::page::PageAssets::fresh()?);
        let tray_codes = open_codes.clone();
        let reminder_codes = open_codes.clone();
        let sessions = web::Data::new(sessions);
        let devices = web::Data::new(devices);
        let origins = web::Data::new(http::server::guard::AllowedOrigins::for_port(
            port,
            settings.http.bind,
        ));
        let max_body_bytes = settings.http.max_body_bytes;
        let max_audio_bytes = settings.transcription.max_audio_bytes;
        let app = move || {
            App::new()
                // Inside the guard: a worker script's fetch for a foreign Host is refused.
                .wrap(actix_web::middleware::from_fn(
                    http::server::service_worker::refuse_service_workers,
                ))
                .wrap(actix_web::middleware::from_fn(
                    http::server::guard::check_host_and_origin,
                ))
                // Outermost: a refused request ends its connection (src/http/server/connection.rs).
                .wrap(actix_web::middleware::from_fn(
                    http::server::connection::end_after_refusal,
                ))
                .app_data(state.clone())
                .app_data(token.clone())
                .app_data(sessions.clone())
                .app_data(devices.clone())
                .app_data(open_codes.clone())
                .app_data(challenges.clone())
                .app_data(page_assets.clone())
                .app_data(origins.clone())
                .configure(|cfg| http::configure(cfg, max_body_bytes, max_audio_bytes))
        };
        // One thread: requests only hop to actors, and SQLite's single writer is the
        // bottleneck, not HTTP. Not actix-web's HttpServer: see src/http/server/listener.rs.
        let server = server.start(app).context("cannot start the HTTP server")?;
        stop_if_damaged(integrity.clone(), server.handle());

        if settings.quick.portal {
            let quick_url = page_url(&settings.http.local_url(port), "/quick", tray_codes.clone());
            let browser = settings.quick.browser.clone();
            let opener = move || {
                if let Err(e) = crate::desktop::quick::open_window(&quick_url(), &browser) {
                    tracing::warn!(error = %e, "cannot open the quick-capture window");
                }
            };
            if let Err(e) = crate::desktop::portal::start(None, &settings.quick.shortcut, opener) {
                tracing::warn!(error = %e, "no desktop shortcut through the portal");
            }
        }
        if settings.tray.enabled {
            let failed = match services.repository.send(CountFailed).await {
                Ok(Ok(count)) => count,
                _ => 0,
            };
            let wiring = TrayWiring {
                inbox: services.inbox.clone(),
                monitor: services.monitor.clone(),
                telemetry: services.telemetry.clone(),
                shutdown: {
                    let server = server.handle();
                    Shutdown::new(move || {
                        actix_rt::spawn(server.stop(true));
                    })
                },
                inbox_url: page_url(&settings.http.local_url(port), "/", tray_codes.clone()),
                opener: Arc::new(crate::desktop::open),
                quick_url: page_url(&settings.http.local_url(port), "/quick", tray_codes),
                quick_window: {
                    let browser = settings.quick.browser.clone();
                    Arc::new(move |url: &str| crate::desktop::quick::open_window(url, &browser))
                },
            };
            let wording = tray::menu::Wording {
                locale: settings.locale(),
                server: model_server,
            };
            tray::start_on_desktop(wiring, &services.hub, wording, failed).await;
        } else {
            tracing::info!("tray disabled in the configuration (tray.enabled = false)");
        }
        if settings.reminders.notify {
            let page = settings.http.local_url(port);
            let codes = reminder_codes;
            let page_url = Arc::new(move |note: Option<&str>| {
                let note = note.map(|id| format!("&note={id}")).unwrap_or_default();
                match codes.mint(std::time::Instant::now()) {
                    Ok(code) => format!("{page}/?code={code}{note}"),
                    Err(_) => format!("{page}/?{}", note.trim_start_matches('&')),
                }
            });
            crate::desktop::reminders::start_on_desktop(
                services.inbox.clone(),
                services.hub.clone(),
                // Checked when the settings were read (`Settings::validate`).
                crate::reminders::review::parse_time(&settings.reminders.daily_review)
                    .ok()
                    .flatten(),
                crate::words::words(settings.locale()),
                page_url,
                Arc::new(crate::desktop::open),
            )
            .await;
        } else {
            tracing::info!(
                "reminders' notifications off in the configuration (reminders.notify = false)"
            );
        }
        tracing::info!(%local_addr, data_dir = %data_dir.display(), "inkling is listening on http://{local_addr}");
        Ok(Application {
            _lock: lock,
            local_addr,
            port,
            server,
            services,
            integrity,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> std::net::SocketAddr {
        self.local_addr
    }

    /// The port actually bound (useful with `http.port = 0`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The running actors (tests drive and observe them directly).
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// A handle that stops the service gracefully (`handle.stop(true)`).
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until stopped, then drains the actors (see the module docs).
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        self.server.run().await.context("the HTTP server failed")?;
        tracing::info!("HTTP server stopped; draining the usage log and the repository");
        if let Err(e) = self.services.telemetry.send(FlushUsageLog).await {
            tracing::warn!(error = %e, "the usage log already stopped");
        }
        match self.services.repository.send(Checkpoint).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "final WAL checkpoint failed; data is safe in the WAL")
            }
            Err(e) => tracing::warn!(error = %e, "repository already stopped"),
        }
        if let Verdict::Damaged(why) = self.integrity.now() {
            anyhow::bail!(why);
        }
        tracing::info!("inkling stopped");
        Ok(())
    }
}

/// The listener checks of each server inkling sends to, `None` for one not on this
/// machine (or not configured).
struct ListenerChecks {
    model: Option<ListenerCheck>,
    embedding: Option<ListenerCheck>,
    transcription: Option<ListenerCheck>,
}

/// The checks of who listens on the model server's port, the embedding server's and
/// the speech-to-text server's,
/// when their URLs are on this machine (`crate::ai::listener`): this user, root,
/// `ollama` and `ai.trusted_listeners`.
fn listener_checks(settings: &Settings) -> anyhow::Result<ListenerChecks> {
    let trusted = settings
        .ai
        .trusted_listener_uids()
        .map_err(|reason| anyhow::anyhow!("ai.trusted_listeners: {reason}"))?;
    let trust = ListenerTrust::new(
        crate::socket_owner::own_uid(),
        crate::socket_owner::uid_of("ollama"),
        &trusted,
    );
    let server = crate::ai::model_server_of(settings);
    let url = match server {
        ModelServer::Ollama => &settings.ollama.url,
        ModelServer::OpenAiCompatible | ModelServer::SpeechToText => &settings.openai.url,
    };
    let check = ListenerCheck::for_url(url, trust.clone(), server);
    if check.is_none() {
        tracing::info!(%url, "the model server is on another machine: whose program answers there is not checked");
    }
    let embedding_check = match server {
        ModelServer::OpenAiCompatible | ModelServer::SpeechToText => {
            ListenerCheck::for_url(settings.openai.embedding_base(), trust.clone(), server)
        }
        ModelServer::Ollama => check.clone(),
    };
    // The speech-to-text server gets the same look before each recording is sent.
    let transcription_check = settings
        .transcription
        .enabled()
        .then(|| {
            ListenerCheck::for_url(
                settings.transcription.base(),
                trust,
                ModelServer::SpeechToText,
            )
        })
        .flatten();
    Ok(ListenerChecks {
        model: check,
        embedding: embedding_check,
        transcription: transcription_check,
    })
}

/// Creates the data dir readable by its owner only (it holds the token and the notes),
/// and makes an existing one so: a dir made 0755 or 0777 by hand, or by an older
/// release, would let other users read every note.
/// The page's address at `path` with a fresh one-time code each time it is asked for
/// (the tray's Open inbox and Quick note…).
fn page_url(
    base: &str,
    path: &'static str,
    codes: web::Data<OpenCodes>,
) -> Arc<dyn Fn() -> String + Send + Sync> {
    let page = format!("{base}{path}");
    Arc::new(move || match codes.mint(std::time::Instant::now()) {
        Ok(code) => format!("{page}?code={code}"),
        // The page then says how to open it.
        Err(_) => page.clone(),
    })
}

pub fn create_private_dir(dir: &Path) -> anyhow::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
    make_private(dir, 0o700).with_context(|| {
        format!(
            "the data directory {} is open to other users and cannot be made private; run `chmod 700 {}`",
            dir.display(),
            dir.display()
        )
    })
}

/// Releases before sessions kept the page's cookie value in `session-secret`; it opens
/// nothing now (no cookie is accepted), and a stale secret should not lie around.
fn forget_the_old_session_secret(data_dir: &Path) {
    let old = data_dir.join("session-secret");
    if old.exists() {
        match std::fs::remove_file(&old) {
            Ok(()) => {
                tracing::info!(path = %old.display(), "removed the old page cookie secret; pages sign in with sessions now")
            }
            Err(e) => {
                tracing::warn!(path = %old.display(), error = %e, "cannot remove the old page cookie secret")
            }
        }
    }
}

/// Starts `quick_check` of an existing database on a thread of its own
/// (`storage::Integrity`): start-up goes on, and every write waits for its verdict. A
/// database about to be created has nothing to check. After a clean stop too: a file
/// can be damaged while inkling is stopped (a bad copy, a sync tool, the disk), and
/// must not be used as if it were fine.
fn check_the_database_in_background(db_path: &Path) -> anyhow::Result<Arc<Integrity>> {
    let wal = PathBuf::from(format!("{}-wal", db_path.display()));
    let holds_notes = |path: &Path| std::fs::metadata(path).is_ok_and(|meta| meta.len() > 0);
    if !holds_notes(db_path) && !holds_notes(&wal) {
        return Ok(Integrity::sound());
    }
    Integrity::check_in_background(db_path).context("cannot start the database's check")
}

/// Stops the service as soon as the check finds the database damaged;
/// `run_until_stopped` then ends with what was found and how to recover.
fn stop_if_damaged(integrity: Arc<Integrity>, server: ServerHandle) {
    actix_rt::spawn(async move {
        if let Verdict::Damaged(_) = integrity.decided().await {
            server.stop(true).await;
        }
    });
}

/// The database and its `-wal` and `-shm` files, readable by their owner only. SQLite
/// creates the `-wal` and `-shm` files with the mode of the database file, so the
/// database is made (empty, which SQLite takes for a new database) with mode 0600
/// before SQLite first opens it, and existing files are made 0600.
pub fn make_database_private(db_path: &Path) -> anyhow::Result<()> {
    if !db_path.exists() {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        options
            .open(db_path)
            .with_context(|| format!("cannot create the database {}", db_path.display()))?;
    }
    for suffix in ["", "-wal", "-shm"] {
        let path = PathBuf::from(format!("{}{suffix}", db_path.display()));
        if path.exists() {
            make_private(&path, 0o600).with_context(|| {
                format!(
                    "{} is readable by other users and cannot be made private; run `chmod 600 {}`",
                    path.display(),
                    path.display()
                )
            })?;
        }
    }
    Ok(())
}

/// Gives `path` exactly `mode` when it allows anything to group or others.
#[cfg(unix)]
fn make_private(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let current = std::fs::metadata(path)?.permissions().mode();
    if current & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        tracing::warn!(path = %path.display(), was = format!("{:o}", current & 0o777),
            now = format!("{mode:o}"), "made private: other users could read it");
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private(_: &Path, _: u32) -> std::io::Result<()> {
    Ok(())
}
