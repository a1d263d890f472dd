//! The route table: every path the service answers, and the handlers behind them, one
//! file per resource. Each handler validates its input, sends one typed message and
//! shapes the reply; no business logic lives here.
//!
//! - [`notes`]: capture, list and search, show, edit, tick, keep, enrich;
//! - [`related`]: a note's nearest notes, by their vectors;
//! - [`search`]: the hybrid search (words and meaning);
//! - [`ask`]: a question asked of the notes, its answer streamed;
//! - [`trash`]: to the trash and back, delete for good, empty the trash;
//! - [`tags`]: the tags in use, rename or merge one everywhere;
//! - [`inbox`]: the failed count, retry every failed note, trash the expired;
//! - [`provider`]: recheck the AI provider, pull its model;
//! - [`status`]: the service's status, its identity proof;
//! - [`usage`]: stats from the usage log, the log exported;
//! - [`sessions`]: the page's one-time codes and sessions;
//! - [`devices`]: pairing a device (the web clipper), listing and revoking them, and
//!   `POST /api/clip`;
//! - [`live`]: `GET /api/events`, live updates as server-sent events;
//! - [`voice`]: a voice note's recording taken (`POST /api/notes/voice`), and whether
//!   voice notes are on (`GET /api/transcription`);
//! - [`transfer`]: every note out as one JSON document, streamed; notes back in;
//! - [`changes`]: `GET /api/changes`, the change log a page at a time;
//! - [`page`]: `GET /`, the inbox page and its assets.

pub mod ask;
pub mod changes;
pub mod devices;
pub mod ids;
pub mod inbox;
pub mod live;
pub mod notes;
pub mod page;
pub mod provider;
pub mod related;
pub mod reminders;
pub mod search;
pub mod sessions;
pub mod status;
pub mod tags;
pub mod transfer;
pub mod trash;
pub mod usage;
pub mod voice;

use actix_web::middleware::from_fn;
use actix_web::{web, HttpResponse};

use crate::api::replies::Refusal;
use crate::api::requests::body_limit;
use crate::http::server::body;
use crate::http::{auth, error};

/// Registers the routes, and the middleware that belongs to them: the body's deadline
/// in front of every route, behind the credential check in `/api` (so that a
/// stranger's body is never read). The outermost layers are the app's (`startup.rs`).
pub fn configure(cfg: &mut web::ServiceConfig, max_body_bytes: usize, max_audio_bytes: u64) {
    let limit = body_limit(max_body_bytes);
    let audio_limit = usize::try_from(max_audio_bytes).unwrap_or(usize::MAX);
    let json = web::JsonConfig::default()
        .limit(limit)
        .error_handler(|err, _| error::json_error(err).into());
    let query = web::QueryConfig::default().error_handler(|err, _| error::query_error(err).into());
    cfg.app_data(json)
        .app_data(query)
        .app_data(web::Data::new(body::BodyLimit(limit)))
        .app_data(web::Data::new(body::VoiceBodyLimit(audio_limit)))
        .service(
            web::scope("/api")
                .wrap(from_fn(body::read_within_deadline))
                .wrap(from_fn(auth::require_credential))
                .service(endpoint("/status").route(web::get().to(status::status)))
                .service(endpoint("/open-code").route(web::post().to(sessions::open_code)))
                .service(endpoint("/session/end").route(web::post().to(sessions::end_session)))
                .service(
                    endpoint("/sessions/end-all").route(web::post().to(sessions::end_all_sessions)),
                )
                .service(
                    endpoint("/notes")
                        .route(web::get().to(notes::list))
                        .route(web::post().to(notes::capture)),
                )
                // Before `/notes/{id}`: "export", "import" and "voice" are not ids.
                .service(
                    endpoint("/notes/voice")
                        // The body middleware held it to the recording's limit already;
                        // the extractor's own default (256 KiB) must not cut it shorter.
                        .app_data(web::PayloadConfig::new(audio_limit.saturating_add(1)))
                        .route(web::post().to(voice::capture_voice)),
                )
                .service(endpoint("/transcription").route(web::get().to(voice::status)))
                .service(endpoint("/notes/export").route(web::get().to(transfer::export)))
                .service(endpoint("/notes/ids").route(web::get().to(ids::with_prefix)))
                .service(endpoint("/notes/short-ids").route(web::post().to(ids::shorten)))
                .service(endpoint("/notes/import").route(web::post().to(transfer::import)))
                .service(
                    endpoint("/notes/{id}")
                        .route(web::get().to(notes::show))
                        .route(web::patch().to(notes::edit))
                        .route(web::delete().to(trash::delete_forever)),
                )
                .service(endpoint("/clip").route(web::post().to(devices::clip)))
                .service(
                    endpoint("/devices/pairing-code").route(web::post().to(devices::pairing_code)),
                )
                .service(endpoint("/devices").route(web::get().to(devices::list)))
                .service(endpoint("/devices/{id}").route(web::delete().to(devices::revoke)))
                .service(endpoint("/search").route(web::get().to(search::search)))
                .service(endpoint("/ask").route(web::post().to(ask::ask)))
                .service(endpoint("/tags").route(web::get().to(tags::tags)))
                .service(endpoint("/tags/rename").route(web::post().to(tags::rename_tag)))
                .service(endpoint("/trash/empty").route(web::post().to(trash::empty_trash)))
                .service(endpoint("/notes/{id}/trash").route(web::post().to(trash::trash)))
                .service(endpoint("/notes/{id}/restore").route(web::post().to(trash::restore)))
                .service(endpoint("/notes/{id}/keep").route(web::post().to(notes::keep)))
                .service(endpoint("/notes/{id}/enrich").route(web::post().to(notes::enrich)))
                .service(endpoint("/notes/{id}/related").route(web::get().to(related::related)))
                .service(
                    endpoint("/notes/{id}/tasks/{index}").route(web::post().to(notes::tick_task)),
                )
                .service(endpoint("/inbox/failed-count").route(web::get().to(inbox::failed_count)))
                .service(
                    endpoint("/inbox/retry-all-failed")
                        .route(web::post().to(inbox::retry_all_failed)),
                )
                .service(
                    endpoint("/inbox/trash-expired").route(web::post().to(inbox::trash_expired)),
                )
                .service(endpoint("/inbox/keep-expired").route(web::post().to(inbox::keep_expired)))
                .service(endpoint("/provider/recheck").route(web::post().to(provider::recheck)))
                .service(endpoint("/provider/pull").route(web::post().to(provider::pull_model)))
                // The names these two had when Ollama was the only provider: aliases, kept
                // for scripts written against them (docs/API.md).
                .service(endpoint("/ollama/recheck").route(web::post().to(provider::recheck)))
                .service(endpoint("/ollama/pull").route(web::post().to(provider::pull_model)))
                .service(endpoint("/events").route(web::get().to(live::events)))
                .service(endpoint("/changes").route(web::get().to(changes::changes)))
                .service(endpoint("/reminders").route(web::get().to(reminders::reminders)))
                .service(endpoint("/stats").route(web::get().to(usage::stats)))
                .service(
                    endpoint("/usage-log/export").route(web::post().to(usage::export_usage_log)),
                )
                .default_service(web::to(not_found)),
        )
        // Everything else: the page, its assets, its sessions, the identity proof.
        // Their bodies get the same deadline (a `GET /` that announces a body and sends
        // none would otherwise hold its connection), and every answer is JSON, a 404
        // included.
        .service(
            web::scope("")
                .wrap(from_fn(body::read_within_deadline))
                .service(endpoint("/").route(web::get().to(page::index)))
                .service(endpoint("/quick").route(web::get().to(page::quick)))
                .service(endpoint("/assets/{name}").route(web::get().to(page::assets)))
                .service(endpoint("/assets/{run}/{name}").route(web::get().to(page::run_assets)))
                .service(endpoint("/session").route(web::post().to(sessions::open_session)))
                .service(endpoint("/session/proof").route(web::get().to(sessions::prove_service)))
                .service(endpoint("/session/access").route(web::post().to(sessions::grant_access)))
                .service(endpoint("/identity").route(web::get().to(status::identity)))
                // A paired device's only call without a credential: the code is one.
                .service(endpoint("/pair").route(web::post().to(devices::pair)))
                .default_service(web::to(not_found)),
        );
}

/// A route whose other methods get 405 with a JSON error.
fn endpoint(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

/// Any known path with a method it does not take.
pub async fn method_not_allowed() -> HttpResponse {
    HttpResponse::MethodNotAllowed().json(Refusal::new("method not allowed"))
}

/// Any unknown path.
pub async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().json(Refusal::new("no such route"))
}
