//! The system tray (docs/DESIGN.md, "Tray"): `TrayActor`, the tray's state and menu and
//! what its clicks do, and how the menu reaches the desktop.
//!
//! - [`menu`]: the menu as plain data, rebuilt from the failed count and the
//!   provider's health: pure, unit-tested, no D-Bus;
//! - [`icon`]: the tray icons, drawn in code (so they are in the binary);
//! - [`backend`]: [`TrayBackend`], whatever shows the menu;
//! - [`ksni_backend`]: the StatusNotifierItem over D-Bus (ksni 0.3), one such backend.
//!
//! The actor hears `FailedCountChanged`, `ProviderStatusChanged` and `RemindersDue`
//! (the reminder actor's count, through the hub; [`menu::with_reminders`]),
//! rebuilds the menu model ([`menu::build`]) and hands it to the backend. A click
//! arrives as `TrayClicked(action)` and does what the HTTP API does: the retry-all use
//! case called on the [`Inbox`] directly (the tray sits in the desktop layer, above the
//! use cases), `Recheck` to the monitor, `ExportUsageLog` to telemetry; Open inbox
//! opens the page; Quick note… opens the quick-capture window, as `inkling quick` does; Quit stops the service through the same graceful path as SIGTERM.
//! A click on a disabled item does nothing, whatever the desktop sends.

pub mod backend;
pub mod icon;
pub mod ksni_backend;
pub mod menu;

pub use backend::TrayBackend;
pub use menu::{MenuModel, TrayAction};

use std::sync::Arc;

use actix::prelude::*;

use crate::actors::handling;
use crate::actors::hub::{Hub, Subscribe};
use crate::actors::mailbox::Mailbox;
use crate::actors::provider_monitor::{ProviderMonitorActor, Recheck};
use crate::actors::telemetry::{ExportUsageLog, TelemetryActor};
use crate::ai::ProviderHealth;
use crate::events::{FailedCountChanged, ProviderStatusChanged, RemindersDue};
use crate::inbox::Inbox;
use crate::shutdown::Shutdown;
use menu::Wording;

/// A menu item was clicked.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct TrayClicked(pub TrayAction);

/// The menu as it is now. Only the tests send it.
#[derive(Debug, Message)]
#[rtype(result = "MenuModel")]
pub struct GetMenu;

/// Opens a URL or a folder on the desktop (injectable for tests).
pub type Opener = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// What the tray talks to.
pub struct TrayWiring {
    /// The use cases: Process AI now is `Inbox::retry_all_failed`.
    pub inbox: Inbox,
    pub monitor: Mailbox<ProviderMonitorActor>,
    pub telemetry: Mailbox<TelemetryActor>,
    /// Stops the whole service, the same way SIGTERM does.
    pub shutdown: Shutdown,
    /// The inbox page's address with a fresh one-time code (what `inkling open` opens).
    pub inbox_url: Arc<dyn Fn() -> String + Send + Sync>,
    pub opener: Opener,
    /// The quick-capture window's address with a fresh one-time code.
    pub quick_url: Arc<dyn Fn() -> String + Send + Sync>,
    /// Opens that address as the quick window (`desktop::quick::open_window` with
    /// `quick.browser`).
    pub quick_window: Opener,
}

pub struct TrayActor {
    backend: Arc<dyn TrayBackend>,
    wiring: TrayWiring,
    wording: Wording,
    failed: u64,
    health: Option<ProviderHealth>,
    /// Reminders due and not done (`RemindersDue`).
    due: u64,
    model: MenuModel,
}

impl TrayActor {
    pub fn new(
        backend: Arc<dyn TrayBackend>,
        wiring: TrayWiring,
        wording: Wording,
        failed: u64,
    ) -> Self {
        TrayActor {
            backend,
            wiring,
            wording,
            failed,
            health: None,
            due: 0,
            model: menu::build(failed, None, wording),
        }
    }

    fn refresh(&mut self, ctx: &mut Context<Self>) {
        let model = menu::with_reminders(
            menu::build(self.failed, self.health.as_ref(), self.wording),
            self.due,
            self.wording.locale,
        );
        if model != self.model {
            self.model = model.clone();
            ctx.spawn(self.backend.show(model).into_actor(self));
        }
    }

    fn open(&self, target: &str) {
        if let Err(e) = (self.wiring.opener)(target) {
            tracing::warn!(error = %e, %target, "cannot open it on the desktop");
        }
    }
}

impl Actor for TrayActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.spawn(self.backend.show(self.model.clone()).into_actor(self));
    }
}

impl Handler<FailedCountChanged> for TrayActor {
    type Result = ();

    fn handle(&mut self, msg: FailedCountChanged, ctx: &mut Context<Self>) {
        let _handled = handling!("FailedCountChanged");
        self.failed = msg.count;
        self.refresh(ctx);
    }
}

impl Handler<ProviderStatusChanged> for TrayActor {
    type Result = ();

    fn handle(&mut self, msg: ProviderStatusChanged, ctx: &mut Context<Self>) {
        let _handled = handling!("ProviderStatusChanged");
        self.health = Some(msg.health);
        self.refresh(ctx);
    }
}

impl Handler<RemindersDue> for TrayActor {
    type Result = ();

    fn handle(&mut self, msg: RemindersDue, ctx: &mut Context<Self>) {
        let _handled = handling!("RemindersDue");
        self.due = msg.count;
        self.refresh(ctx);
    }
}

impl Handler<GetMenu> for TrayActor {
    type Result = MessageResult<GetMenu>;

    fn handle(&mut self, _: GetMenu, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetMenu");
        MessageResult(self.model.clone())
    }
}

impl Handler<TrayClicked> for TrayActor {
    type Result = ();

    fn handle(&mut self, TrayClicked(action): TrayClicked, ctx: &mut Context<Self>) {
        let mut handled = handling!("TrayClicked");
        if !self.model.is_enabled(action) {
            tracing::debug!(?action, "click on a disabled tray item ignored");
            handled.succeeded(false);
            return;
        }
        tracing::info!(?action, "tray menu clicked");
        match action {
            TrayAction::OpenInbox => self.open(&(self.wiring.inbox_url)()),
            TrayAction::QuickNote => {
                let url = (self.wiring.quick_url)();
                if let Err(e) = (self.wiring.quick_window)(&url) {
                    tracing::warn!(error = %e, "cannot open the quick-capture window");
                }
            }
            TrayAction::ProcessAiNow => {
                let inbox = self.wiring.inbox.clone();
                let retry = async move { inbox.retry_all_failed().await };
                ctx.spawn(retry.into_actor(self).map(|retried, _, _| match retried {
                    Ok(count) => tracing::info!(count, "failed notes sent back to the AI"),
                    Err(e) => tracing::warn!(error = %e, "retry from the tray failed"),
                }));
            }
            TrayAction::RecheckProvider => {
                self.wiring.monitor.do_send(Recheck);
            }
            TrayAction::ExportUsageLog => {
                let export = self.wiring.telemetry.send(ExportUsageLog { parent: None });
                ctx.spawn(
                    export
                        .into_actor(self)
                        .map(|exported, act, _| match exported {
                            Ok(Ok(path)) => act.open(&path.to_string_lossy()),
                            Ok(Err(e)) => tracing::warn!(error = %e, "export from the tray failed"),
                            Err(e) => tracing::warn!(error = %e, "telemetry gone"),
                        }),
                );
            }
            TrayAction::Quit => self.wiring.shutdown.request(),
        }
    }
}

/// Puts inkling in the desktop's tray, if there is one. Without a session bus (a
/// server, CI, `ssh`) it logs once that it runs without a tray and returns `None`; it
/// never panics and never waits more than a few seconds.
pub async fn start_on_desktop(
    wiring: TrayWiring,
    hub: &Mailbox<Hub>,
    wording: Wording,
    failed: u64,
) -> Option<Mailbox<TrayActor>> {
    let (clicks, mut clicked) = tokio::sync::mpsc::unbounded_channel();
    let model = menu::build(failed, None, wording);
    let handle = match ksni_backend::spawn(model, clicks).await {
        Ok(handle) => handle,
        Err(reason) => {
            tracing::warn!(%reason, "no desktop tray available; running without a tray");
            return None;
        }
    };
    let tray = Mailbox::from(TrayActor::new(Arc::new(handle), wiring, wording, failed).start());
    hub.do_send(Subscribe(tray.recipient::<FailedCountChanged>()));
    hub.do_send(Subscribe(tray.recipient::<ProviderStatusChanged>()));
    hub.do_send(Subscribe(tray.recipient::<RemindersDue>()));
    let clicked_tray = tray.clone();
    actix_rt::spawn(async move {
        while let Some(action) = clicked.recv().await {
            clicked_tray.do_send(TrayClicked(action));
        }
    });
    tracing::info!("tray icon shown");
    Some(tray)
}
