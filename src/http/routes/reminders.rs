//! `GET /api/reminders?until=…`: the reminders not done up to a time, earliest first
//! (the overdue and the due first), and yesterday's notes never opened; `POST
//! /api/notes/{id}/reminder/accept` and `…/dismiss`, the AI's suggestion taken or
//! declined. A reminder is set with `PATCH /api/notes/{id}` (`notes.rs`).

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};

use crate::api::reminders::{RemindersAnswer, RemindersQuery, MAX_REMINDERS};
use crate::domain::timestamp;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::reminders::ReminderChange;

/// `GET /api/reminders?until=RFC3339` → `{until, now, reminders, unopened, more}`;
/// without `until`, up to the end of today in the service's time zone (the person's:
/// the service runs on their desktop). At most [`MAX_REMINDERS`] reminders, `more`
/// when there are others.
pub async fn reminders(
    state: web::Data<AppState>,
    query: web::Query<RemindersQuery>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let until = match query.into_inner().until.as_deref() {
        None | Some("") => crate::reminders::end_of_day(now, &chrono::Local),
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map_err(|_| {
                ApiError::BadRequest(format!(
                    "until \"{text}\" is not a time: give RFC 3339, e.g. 2026-12-24T23:59:59Z"
                ))
            })?
            .with_timezone(&Utc),
    };
    // One more than is listed: whether there are more.
    let limit = MAX_REMINDERS;
    let mut notes = state
        .services
        .inbox
        .reminders_until(until, limit + 1)
        .await?;
    let more = notes.len() > limit as usize;
    notes.truncate(limit as usize);
    let (from, to) = crate::reminders::review::yesterday(now, &chrono::Local);
    let unopened = state.services.inbox.unopened_between(from, to).await?;
    let views = |notes: Vec<_>| {
        notes
            .into_iter()
            .map(|note| state.note_view(note))
            .collect()
    };
    Ok(HttpResponse::Ok().json(RemindersAnswer {
        until: timestamp(until),
        now: timestamp(now),
        reminders: views(notes),
        unopened: views(unopened),
        more,
    }))
}

/// `POST /api/notes/{id}/reminder/accept` → the note, its suggested time now its
/// reminder (open). 409 when it has no suggestion, or is in the trash.
pub async fn accept_suggestion(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let change = ReminderChange::AcceptSuggestion;
    let note = state
        .services
        .inbox
        .set_reminder(id.into_inner(), change)
        .await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/reminder/dismiss` → the note without its suggestion; none is
/// offered on it again. 409 for a note in the trash.
pub async fn dismiss_suggestion(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let change = ReminderChange::DismissSuggestion;
    let note = state
        .services
        .inbox
        .set_reminder(id.into_inner(), change)
        .await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}
