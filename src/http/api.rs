//! The `/api` route handlers. Each one validates its input, sends one typed message,
//! and shapes the reply; no business logic lives here. What they take and answer are
//! the wire types of `crate::api`.

use actix_web::{web, HttpResponse};

use super::error::ApiError;
use super::AppState;
use crate::actors::ai_worker::GetWorkerStatus;
use crate::actors::inbox::{
    Capture, DeleteNote, Edit, EmptyTheTrash, Enrich, Keep, RenameTagEverywhere, Restore,
    RetryAllFailed, Trash, TrashExpired,
};
use crate::actors::ollama_monitor::{GetProviderHealth, Recheck};
use crate::actors::repository::{
    CountFailed, GetCounts, GetJob, GetNote, ListNotes, ListTags, SearchNotes,
};
use crate::actors::telemetry::{ExportUsageLog, GetStats, GetUsageStats};
use crate::api::notes::{JobProgress, NoteDetail, NoteView, SearchHitView};
use crate::api::replies::{Count, ExportedTo, IdentityProof, OpenCode, TrashedExpired};
use crate::api::requests::{
    CaptureRequest, EditRequest, ExportRequest, IdentityQuery, ListQuery, RenameTagRequest,
    StatsQuery, TickRequest,
};
use crate::api::status::{Limits, ServiceStatus};
use crate::domain::{NoteBody, NoteEdit};
use crate::storage::SearchQuery;

/// `POST /api/notes` → 201 with the stored note.
pub async fn capture(
    state: web::Data<AppState>,
    request: web::Json<CaptureRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = NoteBody::parse(request.into_inner().body, state.max_body_bytes)?;
    let note = state.services.inbox.send(Capture { body }).await??;
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
            .map(|note| NoteView::new(note, state.expiry_days, now))
            .collect();
        return Ok(HttpResponse::Ok().json(notes));
    };
    let query = SearchQuery::parse(&text).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let hits = repository
        .send(SearchNotes { query, filter, now })
        .await??;
    let hits: Vec<SearchHitView> = hits
        .into_iter()
        .map(|hit| SearchHitView::new(hit, state.expiry_days, now))
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

/// `POST /api/notes/{id}/tasks/{index} {"done": true}` → the note with its
/// `index`-th checklist item (from 0) ticked: an edit of the body, only the marker
/// changed. 400 for an item the note does not have.
pub async fn tick_task(
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    request: web::Json<TickRequest>,
) -> Result<HttpResponse, ApiError> {
    let (id, index) = path.into_inner();
    let note = state
        .services
        .repository
        .send(GetNote { id: id.clone() })
        .await??;
    let body = crate::render::set_task(&note.body, index, request.done)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let Some(body) = body else {
        return Ok(HttpResponse::Ok().json(state.note_view(note)));
    };
    let edit = NoteEdit::parse(Some(body), None, None, state.max_body_bytes)?;
    let note = state.services.inbox.send(Edit { id, edit }).await??;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `GET /api/status` → counts of pending, failed and expired notes, the provider's
/// health (`null` until the first check answers), the worker's state, and per-actor
/// counters (messages handled, time busy, slowest handler).
pub async fn status(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let services = &state.services;
    let counts = services
        .repository
        .send(GetCounts {
            now: state.clock.now(),
        })
        .await??;
    let provider = services.monitor.send(GetProviderHealth).await?;
    let worker = services.worker.send(GetWorkerStatus).await?;
    let actors = crate::actors::mailbox_stats::snapshot()
        .into_iter()
        .map(|(actor, counters)| (actor.to_string(), counters))
        .collect();
    Ok(HttpResponse::Ok().json(ServiceStatus {
        version: env!("CARGO_PKG_VERSION").to_string(),
        locale: state.locale,
        expiry_days: state.expiry_days,
        max_attempts: state.max_attempts,
        limits: Limits {
            body_bytes: state.max_body_bytes,
            request_bytes: super::body_limit(state.max_body_bytes),
            tag_chars: crate::tags::MAX_TAG_CHARS,
            tags_per_note: crate::tags::MAX_TAGS_SET_BY_USER,
        },
        counts,
        provider,
        worker,
        actors,
    }))
}

/// `GET /api/inbox/failed-count` → a JSON number.
pub async fn failed_count(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let count = state.services.repository.send(CountFailed).await??;
    Ok(HttpResponse::Ok().json(count))
}

/// `POST /api/inbox/retry-all-failed` → `{"count": n}`.
pub async fn retry_all_failed(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let count = state.services.inbox.send(RetryAllFailed).await??;
    Ok(HttpResponse::Ok().json(Count { count }))
}

/// `POST /api/ollama/recheck` → the provider's health, checked now.
pub async fn recheck(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let health = state.services.monitor.send(Recheck).await?;
    Ok(HttpResponse::Ok().json(health))
}

/// `POST /api/ollama/pull` → downloads the configured model (or joins the download
/// under way): its progress as NDJSON, one `ModelPullProgress` a line as it comes,
/// ending with `done` or `failed`. The same steps go to the live feed (`model_pull`).
pub async fn pull_model(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let (watcher, steps) = tokio::sync::mpsc::unbounded_channel();
    state
        .services
        .model_pull
        .send(crate::actors::model_pull::PullModel {
            watcher: Some(watcher),
        })
        .await?;
    let lines = futures_util::stream::unfold((steps, false), |(mut steps, over)| async move {
        if over {
            return None;
        }
        let step: crate::api::pull::ModelPullProgress = steps.recv().await?;
        let over = step.state.is_over();
        let mut line = serde_json::to_vec(&step).unwrap_or_default();
        line.push(b'\n');
        Some((
            Ok::<_, actix_web::Error>(web::Bytes::from(line)),
            (steps, over),
        ))
    });
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .streaming(lines))
}

/// `POST /api/notes/{id}/trash` → the note, now in the trash.
pub async fn trash(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.send(Trash { id }).await??;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/restore` → the note, out of the trash.
pub async fn restore(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.send(Restore { id }).await??;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/keep` → the note, kept past expiry.
pub async fn keep(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.send(Keep { id }).await??;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `POST /api/notes/{id}/enrich` → 202 with the note, pending with attempts 0 at the
/// front of the queue (from done, failed or pending; 409 for a note in the trash).
pub async fn enrich(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = state.services.inbox.send(Enrich { id }).await??;
    Ok(HttpResponse::Accepted().json(state.note_view(note)))
}

/// `PATCH /api/notes/{id}` → the note as edited. A changed body sends it back to the
/// AI (pending, attempts 0); a title or tags set here are the user's from now on. 409
/// for a note in the trash.
pub async fn edit(
    state: web::Data<AppState>,
    id: web::Path<String>,
    request: web::Json<EditRequest>,
) -> Result<HttpResponse, ApiError> {
    let EditRequest { body, title, tags } = request.into_inner();
    let edit = NoteEdit::parse(body, title, tags, state.max_body_bytes)?;
    let id = id.into_inner();
    let note = state.services.inbox.send(Edit { id, edit }).await??;
    Ok(HttpResponse::Ok().json(state.note_view(note)))
}

/// `GET /api/tags` → `[{"tag": "...", "count": n}]`, the tags of active notes, most
/// used first.
pub async fn tags(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let tags = state
        .services
        .repository
        .send(ListTags { limit: None })
        .await??;
    Ok(HttpResponse::Ok().json(tags))
}

/// `POST /api/tags/{tag}/rename {"to": "..."}` → `{"tag", "notes", "merged"}`: the tag
/// renamed on every note, merged into `to` when that is in use already (one
/// transaction). 404 for a tag no note has.
pub async fn rename_tag(
    state: web::Data<AppState>,
    tag: web::Path<String>,
    request: web::Json<RenameTagRequest>,
) -> Result<HttpResponse, ApiError> {
    let from = tag.into_inner();
    let to = crate::tags::normalize(&request.into_inner().to)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    if to == from {
        return Err(ApiError::BadRequest(format!(
            "the tag is called \"{to}\" already"
        )));
    }
    let renamed = state
        .services
        .inbox
        .send(RenameTagEverywhere { from, to })
        .await??;
    Ok(HttpResponse::Ok().json(renamed))
}

/// `DELETE /api/notes/{id}` → 204: a note in the trash deleted for good (409 for an
/// active note: trash it first).
pub async fn delete_forever(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    state.services.inbox.send(DeleteNote { id }).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/trash/empty` → `{"count": n}` notes deleted for good.
pub async fn empty_trash(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let count = state.services.inbox.send(EmptyTheTrash).await??;
    Ok(HttpResponse::Ok().json(Count { count }))
}

/// `POST /api/inbox/trash-expired` → `{"count": n, "ids": [...]}`: the notes moved to
/// the trash (the page's Undo restores them).
pub async fn trash_expired(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let ids = state.services.inbox.send(TrashExpired).await??;
    Ok(HttpResponse::Ok().json(TrashedExpired {
        count: ids.len() as u64,
        ids,
    }))
}

/// `GET /api/stats` → stats.md, freshly built from the usage log;
/// `?format=json` → the same numbers as JSON (`days` by date, `total`).
pub async fn stats(
    state: web::Data<AppState>,
    query: web::Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    match query.format.as_deref() {
        None | Some("markdown") => {}
        Some("json") => {
            let stats = state
                .services
                .telemetry
                .send(GetUsageStats)
                .await?
                .map_err(|e| ApiError::Unexpected(anyhow::anyhow!(e)))?;
            return Ok(HttpResponse::Ok().json(stats));
        }
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "unknown format \"{other}\": use markdown or json"
            )))
        }
    }
    let report = state
        .services
        .telemetry
        .send(GetStats)
        .await?
        .map_err(|e| ApiError::Unexpected(anyhow::anyhow!(e)))?;
    Ok(HttpResponse::Ok()
        .content_type("text/markdown; charset=utf-8")
        .body(report))
}

/// `POST /api/usage-log/export` → `{"path": "..."}` of the new export folder. The body
/// may be empty; when given it must be a valid `ExportRequest`. `out` must be an
/// absolute path: a relative one (or `~/…`, which only a shell expands) would land
/// wherever the service happened to start. A folder that cannot be made there is the
/// caller's to fix: 400 with the reason.
pub async fn export_usage_log(
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let request: ExportRequest = if body.iter().all(u8::is_ascii_whitespace) {
        ExportRequest::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {e}")))?
    };
    let parent = request.out;
    if let Some(out) = parent.as_ref().filter(|out| !out.is_absolute()) {
        return Err(ApiError::BadRequest(format!(
            "out must be an absolute path, such as /home/me/Desktop (got \"{}\")",
            out.display()
        )));
    }
    let chosen = parent.is_some();
    let path = state
        .services
        .telemetry
        .send(ExportUsageLog { parent })
        .await?
        .map_err(|e| match chosen {
            true => ApiError::BadRequest(e),
            false => ApiError::Unexpected(anyhow::anyhow!(e)),
        })?;
    Ok(HttpResponse::Ok().json(ExportedTo { path }))
}

/// `POST /api/open-code` → `{"code": "...", "expires_in_s": 60}`: a one-time code that
/// opens the inbox page (`/?code=...`), instead of the token in the address.
pub async fn open_code(
    codes: web::Data<crate::open_codes::OpenCodes>,
) -> Result<HttpResponse, ApiError> {
    let code = codes.mint(std::time::Instant::now())?;
    Ok(HttpResponse::Ok().json(OpenCode {
        code,
        expires_in_s: crate::open_codes::VALID_FOR.as_secs(),
    }))
}

/// `GET /identity?nonce=HEX` → `{"proof": "..."}`: the proof that this is the install's
/// inkling (`crate::identity`), which the CLI checks before it sends the token. Needs no
/// credential: the answer reveals nothing but that the answerer holds the token.
pub async fn identity(
    state: web::Data<AppState>,
    token: web::Data<crate::http::auth::ApiToken>,
    query: web::Query<IdentityQuery>,
) -> Result<HttpResponse, ApiError> {
    if !crate::identity::is_valid_nonce(&query.nonce) {
        return Err(ApiError::BadRequest(
            "nonce must be 32 to 128 hexadecimal digits".into(),
        ));
    }
    let proof = crate::identity::proof(&token.0, state.port, &query.nonce);
    Ok(HttpResponse::Ok().json(IdentityProof { proof }))
}

/// Any known path with a method it does not take.
pub async fn method_not_allowed() -> HttpResponse {
    HttpResponse::MethodNotAllowed().json(serde_json::json!({ "error": "method not allowed" }))
}

/// Any unknown path.
pub async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(serde_json::json!({ "error": "no such route" }))
}
