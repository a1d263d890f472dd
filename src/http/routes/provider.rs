//! The model server, whichever `ai.provider` names: `POST /api/provider/recheck` (its
//! health, checked now) and `POST /api/provider/pull` (the configured models downloaded,
//! their progress streamed). `POST /api/ollama/recheck` and `POST /api/ollama/pull`,
//! their names from when Ollama was the only provider, are aliases of the same handlers.

use actix_web::{web, HttpResponse};

use crate::actors::provider_monitor::Recheck;
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `POST /api/provider/recheck` (alias `/api/ollama/recheck`) → the provider's health,
/// checked now.
pub async fn recheck(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let health = state.services.monitor.send(Recheck).await?;
    Ok(HttpResponse::Ok().json(health))
}

/// `POST /api/provider/pull` (alias `/api/ollama/pull`) → downloads the configured
/// model (or joins the download under way): its progress as NDJSON, one
/// `ModelPullProgress` a line as it comes, ending with `done` or `failed`. The same steps go to the live feed (`model_pull`).
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
