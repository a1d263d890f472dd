//! `ProviderMonitorActor`: the provider's health, and when to look at it (docs/DESIGN.md,
//! "Health and recovery").
//!
//! - While the provider is not ready (not running, or the model is missing) it checks
//!   every `ollama.health_interval_ms`: a loopback GET a second costs nothing and
//!   bounds how long work waits after the provider returns.
//! - While it is ready it does not poll; the worker reports a suspected outage
//!   (`SuspectDown`) when a call fails as unreachable/timeout.
//! - Every change is published as `ProviderStatusChanged`; a not-ready → ready change
//!   also emits `ollama_recovered {downMs}`. The worker resumes on a ready status.
//! - `Recheck` (tray, API, CLI) checks now, emits `ollama_recheck_manual`, and
//!   announces the result even when unchanged, so a parked worker resumes at once.
//! - `CheckNow` (the worker after a call ran out of time) checks now and answers what
//!   it found, announced on a change only: Ollama up with the model after a timeout
//!   means the note was slow, not the provider down.
//! - `CheckAndAnnounce` (the model pull, after each model it downloaded) checks now and
//!   announces the result even when unchanged: the worker asks again for what it
//!   found missing (the embedding model, beside a chat model that was there).

use std::rc::Rc;
use std::time::Duration;

use actix::prelude::*;

use super::handling;
use super::hub::Hub;
use super::mailbox::{self, Mailbox};
use super::telemetry::{Emit, TelemetryActor};
use crate::ai::{Health, ProviderHealth};
use crate::events::ProviderStatusChanged;
use crate::telemetry::events::{NoFields, ProviderRecovered, UsageEvent};

/// Check now, by hand; replies with what the check found.
#[derive(Debug, Message)]
#[rtype(result = "ProviderHealth")]
pub struct Recheck;

/// A provider call just failed as unreachable/timeout: look again.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct SuspectDown;

/// Check now and answer (announced like any check: on a change only). The worker
/// asks after a call ran out of time.
#[derive(Debug, Message)]
#[rtype(result = "ProviderHealth")]
pub struct CheckNow;

/// A check whose result is announced even when it did not change: a model was just
/// downloaded, so what the worker found missing (the embedding model, while the chat
/// model was there all along) is asked for again at once.
#[derive(Debug, Message)]
#[rtype(result = "ProviderHealth")]
pub struct CheckAndAnnounce;

/// The last known health (`None` before the first check has answered).
#[derive(Debug, Message)]
#[rtype(result = "Option<ProviderHealth>")]
pub struct GetProviderHealth;

/// Whether a health check is in flight. Only the tests send it (part of their barrier:
/// a check in flight is work in progress).
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct IsChecking;

/// A finished health check (sent to itself).
#[derive(Debug, Message)]
#[rtype(result = "()")]
struct HealthChecked {
    health: ProviderHealth,
}

pub struct ProviderMonitorActor {
    provider: Rc<dyn Health>,
    hub: Mailbox<Hub>,
    telemetry: Mailbox<TelemetryActor>,
    interval: Duration,
    health: Option<ProviderHealth>,
    /// When the provider was first seen not ready in the current outage (tokio's
    /// clock, so tests on virtual time measure virtual outages).
    down_since: Option<actix_rt::time::Instant>,
    /// A check is in flight; another one would only repeat it.
    checking: bool,
    /// The next scheduled check.
    next_check: Option<SpawnHandle>,
}

impl ProviderMonitorActor {
    pub fn new(
        provider: Rc<dyn Health>,
        hub: Mailbox<Hub>,
        telemetry: Mailbox<TelemetryActor>,
        interval: Duration,
    ) -> Self {
        ProviderMonitorActor {
            provider,
            hub,
            telemetry,
            interval,
            health: None,
            down_since: None,
            checking: false,
            next_check: None,
        }
    }

    fn check_now(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.next_check.take() {
            ctx.cancel_future(handle);
        }
        if self.checking {
            return;
        }
        self.checking = true;
        let check = self.provider.health();
        ctx.spawn(check.into_actor(self).map(|health, _, ctx| {
            mailbox::notify(ctx, HealthChecked { health });
        }));
    }

    /// A look asked for beside the schedule (`CheckNow`, `CheckAndAnnounce`): its
    /// health is applied (and announced even unchanged when `announce`), and answered;
    /// a scheduled check of the monitor's own that may still be in flight stays so.
    fn look_aside(&mut self, announce: bool) -> ResponseActFuture<Self, ProviderHealth> {
        let check = self.provider.health();
        Box::pin(check.into_actor(self).map(move |health, act, ctx| {
            let checking = act.checking;
            act.apply(health.clone(), announce, ctx);
            act.checking = checking;
            health
        }))
    }

    fn apply(&mut self, health: ProviderHealth, announce: bool, ctx: &mut Context<Self>) {
        self.checking = false;
        let changed = self.health.as_ref() != Some(&health);
        let now = actix_rt::time::Instant::now();
        if health.is_ready() {
            if let Some(since) = self.down_since.take() {
                let down_ms = now.duration_since(since).as_millis() as u64;
                tracing::info!(down_ms, "the model server is back");
                self.telemetry
                    .do_send(Emit(UsageEvent::ProviderRecovered(ProviderRecovered {
                        down_ms,
                    })));
            }
        } else {
            if self.down_since.is_none() {
                self.down_since = Some(now);
            }
            // Keep looking until it is back.
            if let Some(handle) = self.next_check.take() {
                ctx.cancel_future(handle);
            }
            self.next_check = Some(ctx.run_later(self.interval, |act, ctx| {
                act.next_check = None;
                act.check_now(ctx);
            }));
        }
        if changed {
            tracing::info!(?health, "the model server's status changed");
        }
        self.health = Some(health.clone());
        if changed || announce {
            self.hub.do_send(ProviderStatusChanged { health });
        }
    }
}

impl Actor for ProviderMonitorActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.check_now(ctx);
    }
}

impl Handler<Recheck> for ProviderMonitorActor {
    type Result = ResponseActFuture<Self, ProviderHealth>;

    fn handle(&mut self, _: Recheck, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Recheck");
        self.telemetry
            .do_send(Emit(UsageEvent::ProviderRecheckManual(NoFields {})));
        let check = self.provider.health();
        Box::pin(check.into_actor(self).map(|health, act, ctx| {
            if let Some(handle) = act.next_check.take() {
                ctx.cancel_future(handle);
            }
            act.apply(health.clone(), true, ctx);
            health
        }))
    }
}

impl Handler<CheckNow> for ProviderMonitorActor {
    type Result = ResponseActFuture<Self, ProviderHealth>;

    fn handle(&mut self, _: CheckNow, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("CheckNow");
        self.look_aside(false)
    }
}

impl Handler<CheckAndAnnounce> for ProviderMonitorActor {
    type Result = ResponseActFuture<Self, ProviderHealth>;

    fn handle(&mut self, _: CheckAndAnnounce, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("CheckAndAnnounce");
        self.look_aside(true)
    }
}

impl Handler<SuspectDown> for ProviderMonitorActor {
    type Result = ();

    fn handle(&mut self, _: SuspectDown, ctx: &mut Context<Self>) {
        let _handled = handling!("SuspectDown");
        // Already polling (not ready) or checking: that check will tell.
        if self.next_check.is_none() && !self.checking {
            self.check_now(ctx);
        }
    }
}

impl Handler<GetProviderHealth> for ProviderMonitorActor {
    type Result = MessageResult<GetProviderHealth>;

    fn handle(&mut self, _: GetProviderHealth, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetProviderHealth");
        MessageResult(self.health.clone())
    }
}

impl Handler<IsChecking> for ProviderMonitorActor {
    type Result = bool;

    fn handle(&mut self, _: IsChecking, _: &mut Context<Self>) -> bool {
        let _handled = handling!("IsChecking");
        self.checking
    }
}

impl Handler<HealthChecked> for ProviderMonitorActor {
    type Result = ();

    fn handle(&mut self, msg: HealthChecked, ctx: &mut Context<Self>) {
        let _handled = handling!("HealthChecked");
        self.apply(msg.health, false, ctx);
    }
}
