//! The local HTTP API (actix-web on 127.0.0.1): state shared by the routes, the route
//! table, and the extractor limits.
//!
//! - [`api`]: the `/api` handlers;
//! - [`auth`]: the bearer-token guard;
//! - [`error`]: `ApiError` and the JSON error body.

pub mod api;
pub mod auth;
pub mod error;

use actix_web::middleware::from_fn;
use actix_web::web;

use crate::clock::SharedClock;
use crate::services::Services;

/// What every route can reach.
pub struct AppState {
    pub services: Services,
    pub clock: SharedClock,
    /// Largest note body, in bytes (`http.max_body_bytes`).
    pub max_body_bytes: usize,
}

/// Registers the routes. The JSON limit leaves room for escaping: the body text itself
/// is held to `max_body_bytes` by `NoteBody::parse`.
pub fn configure(cfg: &mut web::ServiceConfig, max_body_bytes: usize) {
    let json = web::JsonConfig::default()
        .limit(max_body_bytes.saturating_mul(2).saturating_add(1024))
        .error_handler(|err, _| error::json_error(err).into());
    let query = web::QueryConfig::default().error_handler(|err, _| error::query_error(err).into());
    cfg.app_data(json).app_data(query).service(
        web::scope("/api")
            .wrap(from_fn(auth::require_token))
            .service(
                web::resource("/status")
                    .route(web::get().to(api::status))
                    .default_service(web::to(api::method_not_allowed)),
            )
            .service(
                web::resource("/notes")
                    .route(web::get().to(api::list))
                    .route(web::post().to(api::capture))
                    .default_service(web::to(api::method_not_allowed)),
            )
            .service(
                web::resource("/notes/{id}")
                    .route(web::get().to(api::show))
                    .default_service(web::to(api::method_not_allowed)),
            )
            .service(
                web::resource("/inbox/failed-count")
                    .route(web::get().to(api::failed_count))
                    .default_service(web::to(api::method_not_allowed)),
            )
            .service(
                web::resource("/inbox/retry-all-failed")
                    .route(web::post().to(api::retry_all_failed))
                    .default_service(web::to(api::method_not_allowed)),
            )
            .service(
                web::resource("/ollama/recheck")
                    .route(web::post().to(api::recheck))
                    .default_service(web::to(api::method_not_allowed)),
            )
            .default_service(web::to(api::not_found)),
    );
}
