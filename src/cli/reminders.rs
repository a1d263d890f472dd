//! `inkling remind ID WHEN`, `inkling remind ID --clear | --done` and `inkling today`
//! (the reminders due and yesterday's notes never opened)
//! (docs/DESIGN.md, "Reminders"). The words of WHEN are read here, against this
//! machine's clock and time zone (the person's), by `crate::reminders::when`; the
//! service is sent the instant. Words it cannot read, or a time gone, change nothing
//! and end with status 1.

use chrono::{DateTime, Local, Utc};

use super::render::{list_line, printable};
use super::Invocation;
use crate::api::requests::EditRequest;
use crate::client::ClientError;
use crate::domain::Note;
use crate::reminders::{when, ReminderState};

/// What `inkling remind` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemindAction {
    At(String),
    Clear,
    Done,
}

/// `inkling remind ID WHEN | --clear | --done`.
pub async fn remind(
    run: &mut Invocation<'_>,
    id: &str,
    action: RemindAction,
) -> Result<(), ClientError> {
    let request = match &action {
        RemindAction::At(words) => {
            let now = Utc::now();
            let at = when::parse(words, now, &Local)
                .map_err(|e| ClientError::Other(anyhow::anyhow!("{e}")))?;
            if at <= now {
                return Err(ClientError::Other(anyhow::anyhow!(
                    "\"{words}\" is {}, which has passed; give a time to come",
                    local(at)
                )));
            }
            EditRequest {
                remind_at: Some(Some(crate::domain::timestamp(at))),
                ..EditRequest::default()
            }
        }
        RemindAction::Clear => EditRequest {
            remind_at: Some(None),
            ..EditRequest::default()
        },
        RemindAction::Done => EditRequest {
            remind_state: Some(ReminderState::Done.as_str().into()),
            ..EditRequest::default()
        },
    };
    let note = run.client.edit(id, &request).await?;
    if run.json {
        return run.out.json(&note);
    }
    let line = match (action, reminder_time(&note)) {
        (RemindAction::Clear, _) => format!("no reminder on {}", note.id),
        (RemindAction::Done, _) => format!("reminder on {} done", note.id),
        (RemindAction::At(_), Some(at)) => format!("reminder on {} at {}", note.id, local(at)),
        (RemindAction::At(_), None) => format!("no reminder on {}", note.id),
    };
    run.out.line(line)
}

/// `inkling today`: the reminders not done up to the end of today, the overdue first,
/// then the notes captured yesterday that were never opened (what the daily review
/// counts).
pub async fn today(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let answer = run.client.reminders(None).await?;
    if run.json {
        return run.out.json(&answer);
    }
    if answer.reminders.is_empty() {
        run.out.line("nothing due today")?;
    }
    let now = DateTime::parse_from_rfc3339(&answer.now)
        .map(|at| at.with_timezone(&Utc))
        .unwrap_or_else(|_| Utc::now());
    let ids: Vec<String> = answer
        .reminders
        .iter()
        .chain(&answer.unopened)
        .map(|view| view.note.id.clone())
        .collect();
    let short = super::ids::short_forms(run.client, &ids).await;
    for view in &answer.reminders {
        let id = super::ids::shown(&short, &view.note.id);
        run.out.line(today_line(&view.note, id, now))?;
    }
    if answer.more {
        run.out.line(format!(
            "more reminders are due than these {}, the earliest: mark some done \
             (inkling remind ID --done) to see the rest",
            answer.reminders.len()
        ))?;
    }
    if !answer.unopened.is_empty() {
        run.out.line(format!(
            "from yesterday, not opened yet ({}):",
            answer.unopened.len()
        ))?;
        for view in &answer.unopened {
            let id = super::ids::shown(&short, &view.note.id);
            run.out.line(format!(
                "         {}",
                printable(&list_line(&view.note, id), false)
            ))?;
        }
    }
    Ok(())
}

/// `overdue  Tue 01 Dec 09:00  <list line>`: when it is (or was) due, in local time;
/// the note's id as `id` says it (its short form).
pub fn today_line(note: &Note, id: &str, now: DateTime<Utc>) -> String {
    let at = reminder_time(note);
    let word = match at {
        Some(at) if at <= now => "overdue",
        _ => "due",
    };
    let word = if note.remind_state == Some(ReminderState::Snoozed) && word == "due" {
        "snoozed"
    } else {
        word
    };
    format!(
        "{word:<8} {}  {}",
        at.map(local).unwrap_or_default(),
        printable(&list_line(note, id), false)
    )
}

fn reminder_time(note: &Note) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(note.remind_at.as_deref()?)
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

/// An instant on this machine's wall clock: `Thu 03 Dec 09:00`.
fn local(at: DateTime<Utc>) -> String {
    at.with_timezone(&Local)
        .format("%a %d %b %Y %H:%M")
        .to_string()
}
