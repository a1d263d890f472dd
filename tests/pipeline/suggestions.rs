//! The AI's suggested reminder through the worker (docs/DESIGN.md, "Reminders"), with
//! both fake servers answering the schema's `when` as a model that copied the note's
//! words: the words resolved against the note's capture time in this machine's time
//! zone (the service's), offered beside the reminder and never as it; accepted, it is
//! the reminder and the AI never changes it; dismissed, it does not come back after
//! Try again; words the note does not say, or no time, give none.

use chrono::{DateTime, Local, NaiveDate, TimeZone, Utc};
use inkling::domain::timestamp;
use inkling::reminders::ReminderChange;

use crate::harness::{PausedSystem, Pipeline};

/// 09:00 on 2 March 2026 on this machine's wall clock: "tomorrow at 9" for a note
/// captured at the harness's start (2026-03-01T12:00:00Z, noon or later on 1 March in
/// any zone from UTC-11 to UTC+11; the test zones are UTC).
fn nine_on_the_second() -> String {
    let local = NaiveDate::from_ymd_opt(2026, 3, 2)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .unwrap();
    let at: DateTime<Utc> = Local
        .from_local_datetime(&local)
        .earliest()
        .unwrap()
        .with_timezone(&Utc);
    timestamp(at)
}

fn suggested(p: &Pipeline, id: &str) -> Option<String> {
    p.note_column(id, "remind_suggested_at")
}

fn reminder(p: &Pipeline, id: &str) -> Option<String> {
    p.note_column(id, "remind_at")
}

async fn enrich_again(p: &Pipeline, id: &str) {
    p.run(p.services.inbox.enrich(id.to_string()))
        .await
        .expect("asked again");
    p.settle_until("the note is done again", |p| p.note(id).status == "done")
        .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_time_the_note_says_is_suggested_and_once_accepted_is_the_ai_s_no_more() {
    let p = Pipeline::start_openai(&[]).await;
    p.openai().set_when("tomorrow at 9");
    let id = p.capture("Call the plumber tomorrow at 9").await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;
    let schema = &p.openai().calls()[0].request["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["properties"]["when"]["type"], "string");

    assert_eq!(suggested(&p, &id), Some(nine_on_the_second()));
    assert_eq!(reminder(&p, &id), None, "a suggestion is not a reminder");

    let note = p
        .run(
            p.services
                .inbox
                .set_reminder(id.clone(), ReminderChange::AcceptSuggestion),
        )
        .await
        .expect("accepted");
    assert_eq!(note.remind_at, Some(nine_on_the_second()));
    assert_eq!(note.remind_suggested_at, None);

    // Asked again, the model now says another time: the accepted one stands, and no
    // second time is offered beside it.
    p.openai().set_when("Call");
    enrich_again(&p, &id).await;
    assert_eq!(reminder(&p, &id), Some(nine_on_the_second()));
    assert_eq!(suggested(&p, &id), None);
    assert!(p.invariant_violations().is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_dismissed_suggestion_does_not_come_back_and_words_not_in_the_note_give_none() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_when("내일 오전 9시");
    let korean = p.capture("배관공에게 내일 오전 9시에 전화하기").await;
    p.settle_until("the note is done", |p| p.note(&korean).status == "done")
        .await;
    assert_eq!(suggested(&p, &korean), Some(nine_on_the_second()));

    let note = p
        .run(
            p.services
                .inbox
                .set_reminder(korean.clone(), ReminderChange::DismissSuggestion),
        )
        .await
        .expect("dismissed");
    assert_eq!((note.remind_suggested_at, note.remind_at), (None, None));
    assert!(note.remind_suggestion_dismissed);
    enrich_again(&p, &korean).await;
    assert_eq!(suggested(&p, &korean), None, "Try again brings it not back");

    // The model's own arithmetic, or words the note does not say: none.
    p.fake.set_when("tomorrow at 10");
    let invented = p.capture("Call the plumber tomorrow at 9").await;
    // Words the note says that are no time: none either.
    let no_time = {
        p.settle().await;
        p.fake.set_when("the plumber");
        p.capture("Ask the plumber about the sink").await
    };
    p.settle_until("both are done", |p| {
        p.note(&invented).status == "done" && p.note(&no_time).status == "done"
    })
    .await;
    assert_eq!(suggested(&p, &invented), None);
    assert_eq!(suggested(&p, &no_time), None);

    // Accepting where there is nothing to accept changes nothing.
    let refused = p
        .run(
            p.services
                .inbox
                .set_reminder(invented.clone(), ReminderChange::AcceptSuggestion),
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(reminder(&p, &invented), None);
}
