//! The reminder actor on virtual time (docs/DESIGN.md, "Reminders"): a reminder shown
//! once at its time; one missed while the service was stopped, or while the machine
//! slept, shown once when it is back, as overdue when it is more than an hour late;
//! nothing shown twice after a restart; the buttons (Snooze 1 h, Done, Open) carried
//! out. The notifier is a recorder here; `tests/notifications.rs` shows the real one on
//! a session bus.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use inkling::actors::hub::Subscribe;
use inkling::actors::mailbox::Mailbox;
use inkling::actors::repository::GetNote;
use inkling::desktop::reminders::notification::Notification;
use inkling::desktop::reminders::{
    start, DesktopEvent, FromDesktop, IsBusy, Look, Notifier, ReminderActor, ReminderWiring,
};
use inkling::domain::Note;
use inkling::events::RemindersDue;
use inkling::reminders::{ReminderChange, ReminderState};
use inkling::words::{words, Locale};

use crate::harness::{t0, PausedSystem, Pipeline};

/// Records every notification, and answers ids 1, 2, … as a desktop does.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Notification>>>);

impl Notifier for Recorder {
    fn show(&self, notification: &Notification) -> LocalBoxFuture<'static, Result<u32, String>> {
        let mut shown = self.0.lock().unwrap();
        shown.push(notification.clone());
        let id = shown.len() as u32;
        async move { Ok(id) }.boxed_local()
    }
}

impl Recorder {
    fn shown(&self) -> Vec<Notification> {
        self.0.lock().unwrap().clone()
    }
}

/// Hears the count of reminders due, as the tray does.
struct DueCounts(Arc<Mutex<Vec<u64>>>);

impl actix::Actor for DueCounts {
    type Context = actix::Context<Self>;
}

impl actix::Handler<RemindersDue> for DueCounts {
    type Result = ();

    fn handle(&mut self, msg: RemindersDue, _: &mut actix::Context<Self>) {
        self.0.lock().unwrap().push(msg.count);
    }
}

struct Reminders {
    actor: Mailbox<ReminderActor>,
    shown: Recorder,
    opened: Arc<Mutex<Vec<String>>>,
    /// Every count of reminders due published.
    due: Arc<Mutex<Vec<u64>>>,
}

/// The reminder actor started on the pipeline's use cases, as `inkling run` starts it.
async fn start_reminders(p: &Pipeline) -> Reminders {
    start_reviewing(p, None, 0).await
}

/// [`start_reminders`] with the daily review at `review_at`, and `nudges` more looks
/// asked for at once, while the first is under way.
async fn start_reviewing(
    p: &Pipeline,
    review_at: Option<chrono::NaiveTime>,
    nudges: usize,
) -> Reminders {
    let shown = Recorder::default();
    let opened = Arc::new(Mutex::new(Vec::new()));
    let opens = opened.clone();
    let (_desktop, events) = tokio::sync::mpsc::unbounded_channel();
    let due = Arc::new(Mutex::new(Vec::new()));
    let counts = Mailbox::from(actix::Actor::start(DueCounts(due.clone())));
    p.services
        .hub
        .do_send(Subscribe(counts.recipient::<RemindersDue>()));
    let wiring = ReminderWiring {
        inbox: p.services.inbox.clone(),
        notifier: Arc::new(shown.clone()),
        words: words(Locale::En),
        page_url: Arc::new(|note: Option<&str>| format!("page at {note:?}")),
        opener: Arc::new(move |url: &str| {
            opens.lock().unwrap().push(url.to_string());
            Ok(())
        }),
        hub: p.services.hub.clone(),
        review_at,
    };
    let reminders = Reminders {
        actor: start(wiring, events),
        shown,
        opened,
        due,
    };
    for _ in 0..nudges {
        reminders.actor.do_send(Look);
    }
    quiet(p, &reminders).await;
    reminders
}

/// The barrier: the pipeline settled, and the reminder actor has nothing in flight.
async fn quiet(p: &Pipeline, reminders: &Reminders) {
    loop {
        p.settle().await;
        if !p.ask(&reminders.actor, IsBusy).await {
            return;
        }
        tokio::task::yield_now().await;
    }
}

async fn advance(p: &Pipeline, reminders: &Reminders, by: Duration) {
    p.advance(by).await;
    quiet(p, reminders).await;
}

/// Lets `by` pass a minute at a time, each look as it comes.
async fn walk(p: &Pipeline, reminders: &Reminders, by: Duration) {
    let mut left = by;
    while !left.is_zero() {
        let step = left.min(Duration::from_secs(60));
        advance(p, reminders, step).await;
        left -= step;
    }
}

async fn remind_at(p: &Pipeline, id: &str, minutes: i64) {
    let at = t0() + chrono::Duration::minutes(minutes);
    p.run(
        p.services
            .inbox
            .set_reminder(id.into(), ReminderChange::Set(at)),
    )
    .await
    .expect("set");
}

async fn note(p: &Pipeline, id: &str) -> Note {
    p.ask(&p.services.repository, GetNote { id: id.into() })
        .await
        .unwrap()
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_reminder_is_shown_once_at_its_time() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("call the plumber").await;
    remind_at(&p, &id, 10).await;
    let reminders = start_reminders(&p).await;

    walk(&p, &reminders, Duration::from_secs(9 * 60)).await;
    assert!(reminders.shown.shown().is_empty(), "not before its time");
    walk(&p, &reminders, Duration::from_secs(2 * 60)).await;
    let shown = reminders.shown.shown();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0].summary, "Reminder");
    assert_eq!(shown[0].notes, [id.as_str()]);
    let keys: Vec<&str> = shown[0].actions.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["default", "done", "snooze"]);

    walk(&p, &reminders, Duration::from_secs(20 * 60)).await;
    advance(&p, &reminders, Duration::from_secs(3 * 3600)).await;
    assert_eq!(
        reminders.shown.shown().len(),
        1,
        "never again for that time"
    );
    // A restart: a new actor on the same store shows nothing again.
    let restarted = start_reminders(&p).await;
    walk(&p, &restarted, Duration::from_secs(5 * 60)).await;
    assert!(restarted.shown.shown().is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn missed_while_stopped_is_shown_once_when_back_as_overdue_when_late() {
    let p = Pipeline::start(&[]).await;
    let soon = p.capture("missed by minutes").await;
    let long_ago = p.capture("missed by days").await;
    remind_at(&p, &long_ago, 30).await;
    // The service is stopped (no reminder actor) for three days.
    p.advance(Duration::from_secs(3 * 24 * 3600)).await;
    remind_at(&p, &soon, 3 * 24 * 60 - 20).await;

    // Two more looks asked for at once: still each shown once.
    let reminders = start_reviewing(&p, None, 2).await;
    let shown = reminders.shown.shown();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[0].summary, "Reminder", "20 minutes late is still due");
    assert_eq!(shown[0].notes, [soon.as_str()]);
    assert!(
        shown[1].summary.starts_with("Overdue since "),
        "{}",
        shown[1].summary
    );
    assert_eq!(shown[1].notes, [long_ago.as_str()]);
    walk(&p, &reminders, Duration::from_secs(20 * 60)).await;
    assert_eq!(reminders.shown.shown().len(), 2, "shown once, not again");
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_machine_asleep_shows_what_it_missed_once_not_as_a_burst() {
    let p = Pipeline::start(&[]).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let id = p.capture(&format!("errand {i}")).await;
        remind_at(&p, &id, 60 + 120 * i).await;
        ids.push(id);
    }
    let reminders = start_reminders(&p).await;
    // Asleep two days: the timers do not run, and one look comes when it wakes.
    advance(&p, &reminders, Duration::from_secs(2 * 24 * 3600)).await;
    let shown = reminders.shown.shown();
    assert_eq!(shown.len(), 1, "one summary: {shown:?}");
    assert_eq!(shown[0].summary, "0 reminders due, 5 overdue");
    assert_eq!(shown[0].notes, ids);
    walk(&p, &reminders, Duration::from_secs(15 * 60)).await;
    assert_eq!(reminders.shown.shown().len(), 1);
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_buttons_snooze_an_hour_finish_it_and_open_the_note() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("call the plumber").await;
    remind_at(&p, &id, 1).await;
    let reminders = start_reminders(&p).await;
    walk(&p, &reminders, Duration::from_secs(120)).await;
    assert_eq!(reminders.shown.shown().len(), 1);

    // Snooze 1 h (notification 1): shown again an hour on.
    reminders.actor.do_send(FromDesktop(DesktopEvent::Action {
        id: 1,
        key: "snooze".into(),
    }));
    quiet(&p, &reminders).await;
    assert_eq!(
        reminders.due.lock().unwrap().last(),
        Some(&0),
        "the tray hears at once"
    );
    let snoozed = note(&p, &id).await;
    assert_eq!(snoozed.remind_state, Some(ReminderState::Snoozed));
    assert_eq!(
        snoozed.remind_at.as_deref(),
        Some("2026-03-01T13:02:00.000Z"),
        "an hour after the click"
    );
    walk(&p, &reminders, Duration::from_secs(59 * 60)).await;
    assert_eq!(reminders.shown.shown().len(), 1, "not before the hour");
    walk(&p, &reminders, Duration::from_secs(2 * 60)).await;
    assert_eq!(reminders.shown.shown().len(), 2, "shown again");

    // Open (the notification clicked): the page at the note.
    reminders.actor.do_send(FromDesktop(DesktopEvent::Action {
        id: 2,
        key: "default".into(),
    }));
    quiet(&p, &reminders).await;
    assert_eq!(
        *reminders.opened.lock().unwrap(),
        [format!("page at Some({id:?})")]
    );
    // Done: never shown again.
    reminders.actor.do_send(FromDesktop(DesktopEvent::Action {
        id: 2,
        key: "done".into(),
    }));
    quiet(&p, &reminders).await;
    assert_eq!(note(&p, &id).await.remind_state, Some(ReminderState::Done));
    // A button of a notification it does not know (another program's) does nothing.
    reminders.actor.do_send(FromDesktop(DesktopEvent::Action {
        id: 99,
        key: "done".into(),
    }));
    quiet(&p, &reminders).await;
    walk(&p, &reminders, Duration::from_secs(10 * 60)).await;
    advance(&p, &reminders, Duration::from_secs(2 * 3600)).await;
    assert_eq!(reminders.shown.shown().len(), 2);
    // The tray heard: none due, one (its time came), none (snoozed), one (the hour
    // passed), none (done).
    assert_eq!(*reminders.due.lock().unwrap(), [0, 1, 0, 1, 0]);
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_reminder_set_for_the_next_seconds_is_shown_at_its_time() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("take the bread out").await;
    let reminders = start_reminders(&p).await;
    // Set while the actor waits out its minute: it looks at once, and then at the time.
    let at = t0() + chrono::Duration::seconds(10);
    p.run(
        p.services
            .inbox
            .set_reminder(id.clone(), ReminderChange::Set(at)),
    )
    .await
    .expect("set");
    quiet(&p, &reminders).await;
    assert!(reminders.shown.shown().is_empty(), "not before its time");
    advance(&p, &reminders, Duration::from_secs(10)).await;
    let shown = reminders.shown.shown();
    assert_eq!(shown.len(), 1, "at its time, not a minute late: {shown:?}");
    assert_eq!(shown[0].notes, [id.as_str()]);
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_daily_review_comes_once_a_day_at_its_time() {
    let p = Pipeline::start(&[]).await;
    p.capture("one").await;
    p.capture("two").await;
    let due = p.capture("due tomorrow").await;
    remind_at(&p, &due, 24 * 60 + 10).await;
    // Half an hour after the time of day it is now, on this machine's wall clock.
    let review_at = (t0() + chrono::Duration::minutes(30))
        .with_timezone(&chrono::Local)
        .time();
    // The next day (the service stopped meanwhile): the three notes are yesterday's.
    p.advance(Duration::from_secs(24 * 3600)).await;
    let reminders = start_reviewing(&p, Some(review_at), 0).await;
    assert!(reminders.shown.shown().is_empty(), "not before its time");
    walk(&p, &reminders, Duration::from_secs(31 * 60)).await;
    let shown = reminders.shown.shown();
    let said: Vec<(&str, &str)> = shown
        .iter()
        .map(|n| (n.summary.as_str(), n.body.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            // The note's title, the fake model's.
            ("Reminder", "About: due tomorrow"),
            ("Daily review", "1 due today, 3 notes from yesterday")
        ]
    );
    // A restart the same day: not again.
    let restarted = start_reviewing(&p, Some(review_at), 0).await;
    walk(&p, &restarted, Duration::from_secs(10 * 60)).await;
    assert!(restarted.shown.shown().is_empty());
    // The day after, at its time: once more (the reminder, not done, is still due).
    advance(&p, &restarted, Duration::from_secs(24 * 3600 - 10 * 60)).await;
    let said: Vec<String> = restarted
        .shown
        .shown()
        .iter()
        .map(|n| n.body.clone())
        .collect();
    assert_eq!(said, ["1 due today, 0 notes from yesterday"]);
}
