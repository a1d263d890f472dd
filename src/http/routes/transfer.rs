//! `GET /api/notes/export` and `POST /api/notes/import`: every note out as inkling's
//! JSON export document (`crate::export`), streamed a page at a time, and notes back in.

use actix_web::{web, HttpResponse};
use futures_util::StreamExt;
use serde::Deserialize;

use crate::actors::mailbox::Mailbox;
use crate::actors::repository::{ListNotes, RepositoryActor};
use crate::actors::telemetry::Emit;
use crate::api::requests::ImportRequest;
use crate::clock::SharedClock;
use crate::domain::{timestamp, ListFilter, Note};
use crate::export::{json_head, JSON_SEPARATOR, JSON_TAIL};
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::telemetry::events::{NoFields, UsageEvent};

/// `GET /api/notes/export` query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    pub format: Option<String>,
}

/// Where the export has got to: the active notes, then the trash, a page at a time.
struct Cursor {
    trash: bool,
    before: Option<String>,
    first_note: bool,
    finished: bool,
}

/// The next page of the export as one chunk of the document (its tail after the last
/// page), and where to go on from.
async fn next_chunk(
    repository: &Mailbox<RepositoryActor>,
    clock: &SharedClock,
    mut cursor: Cursor,
) -> Result<(String, Cursor), ApiError> {
    let filter = ListFilter {
        trash: cursor.trash,
        limit: Some(ListFilter::MAX_LIMIT),
        before: cursor.before.take(),
        ..ListFilter::default()
    };
    let now = clock.now();
    let page: Vec<Note> = repository.send(ListNotes { filter, now }).await??;
    let mut chunk = String::new();
    for note in &page {
        if !std::mem::take(&mut cursor.first_note) {
            chunk.push_str(JSON_SEPARATOR);
        }
        let line = serde_json::to_string(note).map_err(anyhow::Error::new)?;
        chunk.push_str(&line);
    }
    if page.len() == ListFilter::MAX_LIMIT as usize {
        cursor.before = page.last().map(|note| note.id.clone());
    } else if !cursor.trash {
        cursor.trash = true;
    } else {
        chunk.push_str(JSON_TAIL);
        cursor.finished = true;
    }
    Ok((chunk, cursor))
}

/// `GET /api/notes/export?format=json` → every note, the trash included, with every
/// field, as one JSON document (`{"inkling_export": 1, "exported_at", "notes"}`), one
/// note a line. Streamed: a page of notes is read only as the client takes the last.
pub async fn export(
    state: web::Data<AppState>,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    match query.format.as_deref() {
        None | Some("json") => {}
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "unknown format \"{other}\": the API exports json; for one Markdown file a \
                 note, run `inkling export-notes --format markdown`"
            )))
        }
    }
    let repository = state.services.repository.clone();
    let clock = state.clock.clone();
    // The first page before the answer: a database that cannot be read gets a status.
    let start = Cursor {
        trash: false,
        before: None,
        first_note: true,
        finished: false,
    };
    let (first, cursor) = next_chunk(&repository, &clock, start).await?;
    let head = json_head(&timestamp(clock.now())) + &first;
    state
        .services
        .telemetry
        .do_send(Emit(UsageEvent::NotesExported(NoFields {})));
    let rest = futures_util::stream::unfold(Some(cursor), move |cursor| {
        let (repository, clock) = (repository.clone(), clock.clone());
        async move {
            let cursor = cursor.filter(|c| !c.finished)?;
            match next_chunk(&repository, &clock, cursor).await {
                Ok((chunk, cursor)) => Some((Ok(web::Bytes::from(chunk)), Some(cursor))),
                // The document ends unfinished, so a reader knows it is not whole.
                Err(e) => Some((Err(actix_web::Error::from(e)), None)),
            }
        }
    });
    let stream =
        futures_util::stream::once(
            async move { Ok::<_, actix_web::Error>(web::Bytes::from(head)) },
        )
        .chain(rest);
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((
            "Content-Disposition",
            "attachment; filename=\"inkling-notes.json\"",
        ))
        .streaming(stream))
}

/// `POST /api/notes/import {"notes": [...], "markdown": [...]}` → `{"imported": n,
/// "skipped": m}`: the notes
/// stored as they are (ids kept; a note whose id exists is skipped), in one
/// transaction; pending ones go to the AI. Every note is checked first: one that fails
/// refuses the whole request (400, which note and why), and nothing is written.
pub async fn import(
    state: web::Data<AppState>,
    request: web::Json<ImportRequest>,
) -> Result<HttpResponse, ApiError> {
    let ImportRequest { notes, markdown } = request.into_inner();
    if notes.is_empty() && markdown.is_empty() {
        return Err(ApiError::BadRequest("no notes to import".into()));
    }
    let now = state.clock.now();
    let named = notes.into_iter().enumerate().map(|(index, note)| {
        let which = note
            .id
            .as_deref()
            .map(|id| format!(" ({id})"))
            .unwrap_or_default();
        (format!("note {}{which}", index + 1), note)
    });
    let files = markdown.into_iter().map(|file| {
        let mut note = crate::export::from_markdown(&file.text);
        if note.created_at.is_none() {
            note.created_at = file.modified_at;
        }
        (file.name, note)
    });
    let notes = named
        .chain(files)
        .map(|(place, note)| {
            note.validate(state.max_body_bytes, now)
                .map_err(|e| ApiError::BadRequest(format!("{place}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let imported = state.services.inbox.import(notes).await?;
    Ok(HttpResponse::Ok().json(crate::api::replies::ImportedCount {
        imported: imported.notes.len() as u64,
        skipped: imported.skipped,
    }))
}
