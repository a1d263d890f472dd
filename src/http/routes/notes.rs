//! The notes themselves: `POST /api/notes` (capture), `GET /api/notes` (list and
//! search), `GET`/`PATCH /api/notes/{id}`, `POST /api/notes/{id}/tasks/{index}` (tick a
//! checklist item), `POST /api/notes/{id}/keep` and `POST /api/notes/{id}/enrich`.
//! Each handler validates its input, calls one use case (`crate::inbox`) or sends one
//! read to the repository, and shapes the reply; no business logic lives here. What they take and answer are the wire types of
//! `crate::api`.

use actix_web::{web, HttpResponse};

use crate::actors::repository::{GetJob, GetNote, ListNotes, SearchNotes};
use crate::api::notes::{JobProgress, NoteDetail, NoteView, SearchHitView};
use crate::api::requests::{CaptureRequest, EditRequest, ListQuery, TickRequest};
use crate::domain::{NoteBody, NoteEdit};
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::reminders::ReminderChange;
use crate::storage::SearchQuery;

/// `POST /api/notes` → 201 with the stored note (`"kind": "answer"`: an answer saved
/// from Ask, left out of a question's notes).
pub async fn capture(
    state: web::Data<AppState>,
    request: web::Json<CaptureRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    let body = NoteBody::parse(request.body, state.max_body_bytes)?;
    let note = state
        .services
        .inbox
        .capture_kind(body, request.kind)
        .await?;
    tracing::info!(note_id = %note.id, "note captured");
    Ok(HttpResponse::Created().json(state.note_view(note)))
}

/// `GET /api/notes?status=&tag=&trash=&expired=&limit=&before=` → a JSON array, newest
/// first; with `q=`, the notes that contain every word of it, best first, each with a
/// `snippet` of its body that marks the words.
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let mut query = query.into_inner();
    let search = query.q.take();
    if search.is_some() && query.before.as_deref().is_some_and(|b| !b.is_empty()) {
        return Err(ApiError::BadRequest(
            "a search is one page ranked by relevance: `before` pages by date and \
             cannot be used with `q`; ask for more with `limit`"
                .into(),
        ));
    }
    let filter = query.filter().map_err(ApiError::BadRequest)?;
    let repository = &state.services.repository;
    let now = state.clock.now();
    let Some(text) = search else {
        let notes = repository.send(ListNotes { filter, now }).await??;
        let notes: Vec<NoteView> = notes
            .into_iter()
            .map(|note| NoteView::new(note, state.expiry.active_days(), now))
            .collect();
        return Ok(HttpResponse::Ok().json(notes));
    };
    let query = SearchQuery::parse(&text).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let hits = repository
        .send(SearchNotes { query, filter, now })
        .await??;
    let hits: Vec<SearchHitView> = hits
        .into_iter()
        .map(|hit| SearchHitView::new(hit, state.expiry.active_days(), now))
        .collect();
    Ok(HttpResponse::Ok().json(hits))
}

/// `GET /api/notes/{id}` → the note, or 404.
pub async fn show(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let repository = &state.services.repository;
    let note = repository.send(GetNote { id: id.clone() }).await??;
    let job = repository.send(GetJob { note_id: id }).await??;
    let job = job.map(|job| JobProgress {
        attempts: job.attempts,
        slow_timeouts: job.slow_timeouts,
        next_run_at: crate::domain::timestamp(job.next_run_at),
    });
    Ok(HttpResponse::Ok().json(NoteDetail::new(
        state.note_view(note),
        job,
        state.max_attempts,
    )))
}

/// `PATCH /api/notes/{id}` → the note as edited. A changed body sends it back to the
/// AI (pending, attempts 0); a title or tags set here are the user's from now on. 409
/// for a note in the trash. `remind_at` / `remind_state`, alone, change its reminder
/// (409 for done or snoozed on a note without one).
pub async fn edit(
    state: web::Data<AppState>,
    id: web::Path<String>,
    request: web::Json<EditRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    let id = id.into_inner();
    if request.touches_reminder() {
        if request.body.is_some() || request.title.is_some() || request.tags.is_some() {
            return Err(ApiError::BadRequest(
                "set remind_at or remind_state in a PATCH of their own, without body, title or tags"
                    .into(),
            ));
        }
        let change = ReminderChange::parse(
            request.remind_at.as_ref().map(Option::as_deref),
            request.remind_state.as_deref(),
            state.clock.now(),
        )
        .map_err(|e| ApiError::BadRequest(e.to_string()))?
        .ok_or_else(|| ApiError::BadRequest("nothing to change".into()))?;
        let note = state.services.inbox.set_reminder(id, change).await?;
        return Ok(HttpResponse::Ok().json(state.note_view(note)));
    }
    let EditRequest {
        body, title, tags, ..
    } = request;
    let edit = NoteEdit::parse(body, title, tags, state.max_body_bytes)?;
    let note = state.services.inbox.edit(id, edit).await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/tasks/{index} {"done": true}` → the note with its
/// `index`-th checklist item (from 0) ticked: an edit of the body, only the marker
/// changed. 400 for an item the note does not have; 409 when the note changed
/// meanwhile (another window, the command line), which is not overwritten.
pub async fn tick_task(
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    request: web::Json<TickRequest>,
) -> Result<HttpResponse, ApiError> {
    let (id, index) = path.into_inner();
    let note = state
        .services
        .inbox
        .tick_task(id, index, request.done)
        .await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/keep` → the note, kept past expiry.
pub async fn keep(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.keep(id).await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/opened` → the note, marked as opened now (the page's note
/// view says so when it shows one): Today's "from yesterday" lists only notes nobody
/// opened. Not an edit: not in the change log, `updated_at` kept.
pub async fn opened(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let note = state.services.inbox.mark_opened(id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/enrich` → 202 with the note, pending with attempts 0 at the
/// front of the queue (from done, failed or pending; 409 for a note in the trash).
pub async fn enrich(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.enrich(id).await?;
    Ok(HttpResponse::Accepted().json(state.note_view(note)))
}
