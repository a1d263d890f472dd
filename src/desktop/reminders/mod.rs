//! Reminders on the desktop (docs/DESIGN.md, "Reminders"): `ReminderActor` looks at
//! the reminders, shows what the due-time policy (`crate::reminders::due::decide`)
//! says to show as desktop notifications, and does what their buttons ask (Done,
//! Snooze 1 h, Open).
//!
//! - [`notification`]: a notice in the person's words, with its buttons (plain data);
//! - [`notifier`]: [`Notifier`], and the one on the session bus
//!   (`org.freedesktop.Notifications`);
//! - [`messages`]: what the actor hears.
//!
//! It decides nothing itself: each look reads the reminders not yet shown (through the
//! use cases, `Inbox::pending_reminders`), asks `decide`, shows, keeps which time each
//! was shown for, and sets its timer (actix `run_later`, never a sleep) for the next
//! look the policy names, at most a minute on: a timer does not run while the machine
//! sleeps, and the wall clock can be set, so a look a minute bounds how late either
//! makes one. What was shown is kept in the store, so a restart shows nothing twice.
//! A note with a reminder written (`NoteChanged`, through the hub) makes it look at once.
//! Each look also counts the reminders due and not done, and publishes the count
//! (`RemindersDue`, through the hub) when it changed: the tray shows it; and, when
//! `reminders.daily_review` names a time, shows the daily review once a day
//! (`crate::reminders::review` decides when).

pub mod messages;
pub mod notification;
pub mod notifier;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;

use crate::actors::handling;
use crate::actors::hub::Hub;
use crate::actors::hub::Subscribe;
use crate::actors::mailbox::Mailbox;
use crate::desktop::tray::Opener;
use crate::events::{NoteChanged, RemindersDue};
use crate::inbox::Inbox;
use crate::reminders::due::{decide, LONGEST_WAIT};
use crate::reminders::review;
use crate::reminders::{ReminderChange, SNOOZE};
use crate::words::Words;
use chrono::{NaiveDate, NaiveTime};
pub use messages::{FromDesktop, IsBusy, Look};
use notification::{notification, DONE, OPEN, SNOOZE as SNOOZE_KEY};
pub use notifier::{DbusNotifier, DesktopEvent, Notifier};

/// The page at a note (`Some(id)`), or the inbox (`None`), with a fresh one-time code.
pub type PageUrl = Arc<dyn Fn(Option<&str>) -> String + Send + Sync>;

/// What the reminder actor talks to.
pub struct ReminderWiring {
    /// The use cases: the reminders, and a button's change.
    pub inbox: Inbox,
    pub notifier: Arc<dyn Notifier>,
    pub words: &'static Words,
    pub page_url: PageUrl,
    pub opener: Opener,
    /// Where the count of reminders due goes (`RemindersDue`: the tray).
    pub hub: Mailbox<Hub>,
    /// The daily review's time on the wall clock (`reminders.daily_review`); `None`:
    /// no review.
    pub review_at: Option<NaiveTime>,
}

pub struct ReminderActor {
    wiring: ReminderWiring,
    /// The notifications on the desktop, by the desktop's id: the notes each is about.
    on_desktop: HashMap<u32, Vec<String>>,
    /// A look, or a button's work, under way.
    busy: usize,
    /// A look is under way: another is not begun beside it (both would read the same
    /// reminders before either kept them as shown, and show them twice) but after it.
    looking: bool,
    /// A look was asked for while one was under way.
    look_again: bool,
    next_look: Option<SpawnHandle>,
    /// The count of reminders due last published.
    due: Option<u64>,
}

impl ReminderActor {
    pub fn new(wiring: ReminderWiring) -> Self {
        ReminderActor {
            wiring,
            on_desktop: HashMap::new(),
            busy: 0,
            looking: false,
            look_again: false,
            next_look: None,
            due: None,
        }
    }

    fn look(&mut self, ctx: &mut Context<Self>) {
        if self.looking {
            self.look_again = true;
            return;
        }
        if let Some(timer) = self.next_look.take() {
            ctx.cancel_future(timer);
        }
        self.looking = true;
        self.busy += 1;
        let inbox = self.wiring.inbox.clone();
        let notifier = self.wiring.notifier.clone();
        let words = self.wiring.words;
        let review_at = self.wiring.review_at;
        let work = async move {
            let now = inbox.now();
            let pending = match inbox.pending_reminders(now).await {
                Ok(pending) => pending,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read the reminders; trying again in a minute");
                    return (Vec::new(), None, now + LONGEST_WAIT);
                }
            };
            let due = match inbox.due_count(now).await {
                Ok(due) => Some(due),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot count the reminders due");
                    None
                }
            };
            let decision = decide(now, &pending);
            let mut shown = Vec::new();
            for notice in &decision.show {
                let note = notification(notice, words, &chrono::Local);
                match notifier.show(&note).await {
                    Ok(id) => shown.push((id, note.notes)),
                    // Kept as shown all the same: `inkling today` and `GET
                    // /api/reminders` still list it, and a desktop without the service would
                    // otherwise be asked every minute.
                    Err(e) => tracing::warn!(error = %e, "cannot show a reminder on the desktop"),
                }
            }
            if !decision.shown.is_empty() {
                tracing::info!(
                    reminders = decision.shown.len(),
                    notifications = decision.show.len(),
                    "reminders shown"
                );
            }
            if let Err(e) = inbox.mark_reminders_shown(decision.shown).await {
                tracing::warn!(error = %e, "cannot keep which reminders were shown");
            }
            if let Some(at) = review_at {
                if let Some(id) = daily_review(&inbox, &*notifier, words, now, at).await {
                    shown.push((id, Vec::new()));
                }
            }
            (shown, due, decision.next_look)
        };
        ctx.spawn(work.into_actor(self).map(|(shown, due, next), act, ctx| {
            act.on_desktop.extend(shown);
            if due.is_some() && due != act.due {
                act.due = due;
                act.wiring.hub.do_send(RemindersDue {
                    count: due.unwrap_or(0),
                });
            }
            act.busy -= 1;
            act.looking = false;
            if std::mem::take(&mut act.look_again) {
                act.look(ctx);
                return;
            }
            let wait = (next - act.wiring.inbox.now())
                .to_std()
                .unwrap_or(Duration::ZERO)
                .min(LONGEST_WAIT.to_std().unwrap_or(Duration::from_secs(60)));
            act.next_look = Some(ctx.run_later(wait, |act, ctx| act.look(ctx)));
        }));
    }

    fn clicked(&mut self, id: u32, key: &str, ctx: &mut Context<Self>) {
        let Some(notes) = self.on_desktop.get(&id).cloned() else {
            // Another program's notification, or one from before a restart.
            return;
        };
        tracing::info!(key, notes = notes.len(), "reminder button clicked");
        let change = match key {
            DONE => ReminderChange::Done,
            SNOOZE_KEY => ReminderChange::Snooze(self.wiring.inbox.now() + SNOOZE),
            OPEN | "open" => {
                let one = match notes.as_slice() {
                    [one] => Some(one.as_str()),
                    _ => None,
                };
                let url = (self.wiring.page_url)(one);
                if let Err(e) = (self.wiring.opener)(&url) {
                    tracing::warn!(error = %e, "cannot open the page");
                }
                return;
            }
            _ => return,
        };
        self.on_desktop.remove(&id);
        self.busy += 1;
        let inbox = self.wiring.inbox.clone();
        let work = async move {
            for note in notes {
                if let Err(e) = inbox.set_reminder(note, change).await {
                    tracing::warn!(error = %e, "a reminder's button could not be done");
                }
            }
        };
        ctx.spawn(work.into_actor(self).map(|(), act, _| act.busy -= 1));
    }
}

/// The daily review, when it is due at `now`: shown, and its day kept. Answers the
/// notification's id.
async fn daily_review(
    inbox: &Inbox,
    notifier: &dyn Notifier,
    words: &'static Words,
    now: chrono::DateTime<chrono::Utc>,
    at: NaiveTime,
) -> Option<u32> {
    let zone = chrono::Local;
    let (from, to) = review::yesterday(now, &zone);
    let facts = match inbox
        .review_facts(crate::reminders::end_of_day(now, &zone), from, to)
        .await
    {
        Ok(facts) => facts,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the daily review's counts");
            return None;
        }
    };
    let last = facts
        .last_day
        .as_deref()
        .and_then(|day| NaiveDate::parse_from_str(day, "%Y-%m-%d").ok());
    let day = review::is_due(now, &zone, at, last)?;
    // Kept first: a notification service that fails is not asked again every minute.
    if let Err(e) = inbox.mark_review_shown(day.to_string()).await {
        tracing::warn!(error = %e, "cannot keep the daily review's day; not shown");
        return None;
    }
    tracing::info!(
        due = facts.due,
        unopened = facts.unopened,
        "daily review shown"
    );
    match notifier
        .show(&notification::review(facts.due, facts.unopened, words))
        .await
    {
        Ok(id) => Some(id),
        Err(e) => {
            tracing::warn!(error = %e, "cannot show the daily review on the desktop");
            None
        }
    }
}

impl Actor for ReminderActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.look(ctx);
    }
}

impl Handler<Look> for ReminderActor {
    type Result = ();

    fn handle(&mut self, _: Look, ctx: &mut Context<Self>) {
        let _handled = handling!("Look");
        self.look(ctx);
    }
}

impl Handler<FromDesktop> for ReminderActor {
    type Result = ();

    fn handle(&mut self, FromDesktop(event): FromDesktop, ctx: &mut Context<Self>) {
        let _handled = handling!("FromDesktop");
        match event {
            DesktopEvent::Action { id, key } => self.clicked(id, &key, ctx),
            DesktopEvent::Closed { id } => {
                self.on_desktop.remove(&id);
            }
        }
    }
}

/// A note with a reminder was written (set, snoozed, done, or its text): look now, so
/// a reminder set for the next seconds is shown at its time and the tray's count
/// follows at once. A reminder cleared leaves no trace on its note: its count follows
/// at the next look, a minute at most.
impl Handler<NoteChanged> for ReminderActor {
    type Result = ();

    fn handle(&mut self, msg: NoteChanged, ctx: &mut Context<Self>) {
        let _handled = handling!("NoteChanged");
        if msg.note.remind_at.is_some() {
            self.look(ctx);
        }
    }
}

impl Handler<IsBusy> for ReminderActor {
    type Result = bool;

    fn handle(&mut self, _: IsBusy, _: &mut Context<Self>) -> bool {
        let _handled = handling!("IsBusy");
        self.busy > 0
    }
}

/// Starts the reminder actor with `notifier`, and hands it what the desktop says on
/// `events`.
pub fn start(
    wiring: ReminderWiring,
    mut events: tokio::sync::mpsc::UnboundedReceiver<DesktopEvent>,
) -> Mailbox<ReminderActor> {
    let hub = wiring.hub.clone();
    let actor = Mailbox::from(ReminderActor::new(wiring).start());
    hub.do_send(Subscribe(actor.recipient::<NoteChanged>()));
    let hears = actor.clone();
    actix_rt::spawn(async move {
        while let Some(event) = events.recv().await {
            hears.do_send(FromDesktop(event));
        }
    });
    actor
}

/// Reminders on the desktop's notifications, if there is a session bus. Without one
/// (a server, CI, `ssh`) it logs once that reminders are listed only by `inkling today`
/// and the API, and returns
/// `None`; it never panics.
pub async fn start_on_desktop(
    inbox: Inbox,
    hub: Mailbox<Hub>,
    review_at: Option<NaiveTime>,
    words: &'static Words,
    page_url: PageUrl,
    opener: Opener,
) -> Option<Mailbox<ReminderActor>> {
    let (sender, events) = tokio::sync::mpsc::unbounded_channel();
    let notifier = match DbusNotifier::connect(None, sender).await {
        Ok(notifier) => notifier,
        Err(reason) => {
            tracing::warn!(%reason, "no desktop notifications; reminders are listed only by `inkling today` and GET /api/reminders");
            return None;
        }
    };
    let wiring = ReminderWiring {
        inbox,
        notifier: Arc::new(notifier),
        words,
        page_url,
        opener,
        hub,
        review_at,
    };
    tracing::info!("reminders on the desktop's notifications");
    Some(start(wiring, events))
}
