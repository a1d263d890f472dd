//! The local HTTP API (actix-web on 127.0.0.1): state shared by the routes, the route
//! table, and the extractor limits.
//!
//! - [`api`]: the `/api` handlers;
//! - [`auth`]: the credential check (the token, or a page's session);
//! - [`guard`]: the Host/Origin guard in front of everything;
//! - [`connection`]: one client connection: eviction at the cap, closing after a refusal;
//! - [`body`]: request bodies read within a deadline and a size limit;
//! - [`live`]: `GET /api/events`, live updates as server-sent events;
//! - [`notes_export`]: every note out as one JSON document, streamed; notes back in;
//! - [`page`]: `GET /`, the inbox page, its assets, and its sessions;
//! - [`server`]: the listener and its thread, with no timer while no client is connected;
//! - [`error`]: `ApiError` and the JSON error body.

pub mod api;
pub mod auth;
pub mod body;
pub mod connection;
pub mod error;
pub mod guard;
pub mod live;
pub mod notes_export;
pub mod page;
pub mod server;

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
    /// `worker.max_attempts`: a note's detail says how many tries it has used of these.
    pub max_attempts: u32,
    /// The language of the inbox page.
    pub locale: crate::configuration::Locale,
    /// `expiry.days`: the page tells an expired note from one that is not.
    pub expiry_days: u32,
    /// The port the service listens on (its identity proof covers it).
    pub port: u16,
    /// The server serving these routes: long responses end when it stops.
    pub server: server::ServerHandle,
    /// The live feeds open now (capped).
    pub live_feeds: live::LiveFeeds,
}

impl AppState {
    /// A note as the answers carry it: with its expiry facts as of now.
    pub fn note_view(&self, note: crate::domain::Note) -> crate::api::notes::NoteView {
        crate::api::notes::NoteView::new(note, self.expiry_days, self.clock.now())
    }
}

/// The largest request body any route takes (a wire fact: the CLI sizes its import
/// batches by it).
pub use crate::api::requests::body_limit;

/// Registers the routes, and the middleware that belongs to them: the body's deadline
/// in front of every route, behind the credential check in `/api` (so that a
/// stranger's body is never read). The outermost layers are the app's (`startup.rs`).
pub fn configure(cfg: &mut web::ServiceConfig, max_body_bytes: usize) {
    let limit = body_limit(max_body_bytes);
    let json = web::JsonConfig::default()
        .limit(limit)
        .error_handler(|err, _| error::json_error(err).into());
    let query = web::QueryConfig::default().error_handler(|err, _| error::query_error(err).into());
    cfg.app_data(json)
        .app_data(query)
        .app_data(web::Data::new(body::BodyLimit(limit)))
        .service(
            web::scope("/api")
                .wrap(from_fn(body::read_within_deadline))
                .wrap(from_fn(auth::require_credential))
                .service(endpoint("/status").route(web::get().to(api::status)))
                .service(endpoint("/open-code").route(web::post().to(api::open_code)))
                .service(endpoint("/session/end").route(web::post().to(page::end_session)))
                .service(
                    endpoint("/sessions/end-all").route(web::post().to(page::end_all_sessions)),
                )
                .service(
                    endpoint("/notes")
                        .route(web::get().to(api::list))
                        .route(web::post().to(api::capture)),
                )
                // Before `/notes/{id}`: "export" and "import" are not ids.
                .service(endpoint("/notes/export").route(web::get().to(notes_export::export)))
                .service(endpoint("/notes/import").route(web::post().to(notes_export::import)))
                .service(
                    endpoint("/notes/{id}")
                        .route(web::get().to(api::show))
                        .route(web::patch().to(api::edit))
                        .route(web::delete().to(api::delete_forever)),
                )
                .service(endpoint("/tags").route(web::get().to(api::tags)))
                .service(endpoint("/tags/{tag}/rename").route(web::post().to(api::rename_tag)))
                .service(endpoint("/trash/empty").route(web::post().to(api::empty_trash)))
                .service(endpoint("/notes/{id}/trash").route(web::post().to(api::trash)))
                .service(endpoint("/notes/{id}/restore").route(web::post().to(api::restore)))
                .service(endpoint("/notes/{id}/keep").route(web::post().to(api::keep)))
                .service(endpoint("/notes/{id}/enrich").route(web::post().to(api::enrich)))
                .service(
                    endpoint("/notes/{id}/tasks/{index}").route(web::post().to(api::tick_task)),
                )
                .service(endpoint("/inbox/failed-count").route(web::get().to(api::failed_count)))
                .service(
                    endpoint("/inbox/retry-all-failed")
                        .route(web::post().to(api::retry_all_failed)),
                )
                .service(endpoint("/inbox/trash-expired").route(web::post().to(api::trash_expired)))
                .service(endpoint("/ollama/recheck").route(web::post().to(api::recheck)))
                .service(endpoint("/ollama/pull").route(web::post().to(api::pull_model)))
                .service(endpoint("/events").route(web::get().to(live::events)))
                .service(endpoint("/stats").route(web::get().to(api::stats)))
                .service(endpoint("/usage-log/export").route(web::post().to(api::export_usage_log)))
                .default_service(web::to(api::not_found)),
        )
        // Everything else: the page, its assets, its sessions, the identity proof.
        // Their bodies get the same deadline (a `GET /` that announces a body and sends
        // none would otherwise hold its connection), and every answer is JSON, a 404
        // included.
        .service(
            web::scope("")
                .wrap(from_fn(body::read_within_deadline))
                .service(endpoint("/").route(web::get().to(page::index)))
                .service(endpoint("/assets/{name}").route(web::get().to(page::assets)))
                .service(endpoint("/session").route(web::post().to(page::open_session)))
                .service(endpoint("/identity").route(web::get().to(api::identity)))
                .default_service(web::to(api::not_found)),
        );
}

/// A route whose other methods get 405 with a JSON error.
fn endpoint(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(api::method_not_allowed))
}
