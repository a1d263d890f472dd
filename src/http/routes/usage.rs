//! The usage log: `GET /api/stats` (stats.md, or its numbers as JSON) and
//! `POST /api/usage-log/export` (the log copied out to a folder).

use actix_web::{web, HttpResponse};

use crate::actors::telemetry::{ExportUsageLog, GetStats, GetUsageStats};
use crate::api::replies::ExportedTo;
use crate::api::requests::{ExportRequest, StatsQuery};
use crate::http::error::ApiError;
use crate::http::state::AppState;

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
