//! The inbox page: `GET /` and `GET /assets/{run}/{name}` (also `/assets/{name}`),
//! embedded from `web/` (no build step, no CDN: the page works offline), and the
//! quick-capture window, `GET /quick` (`inkling quick`: one box, the same assets and
//! sessions). The page's sessions are `sessions.rs`.
//!
//! Everything is served with a Content-Security-Policy that allows only this origin's
//! own scripts and styles, so even a note body full of markup cannot run code.
//!
//! The page names its assets under a path fresh for each run of the service
//! ([`PageAssets`]): a program that held the port while inkling was stopped could have
//! served its own script at `/assets/app.js` to a page the person opened there, marked
//! to be kept for a year, and the browser would have run it in every later inbox
//! without asking inkling (tests/browser/squatter.rs; `Clear-Site-Data: "cache"` on the
//! page's answer did not stop it in Chromium). A path it cannot guess was never cached.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY};
use actix_web::{web, HttpResponse};

use crate::api::replies::Refusal;
use crate::app_icon::APP_ICON_SVG;

const INDEX_HTML: &str = include_str!("../../../web/index.html");
const QUICK_HTML: &str = include_str!("../../../web/quick.html");
const QUICK_CSS: &str = include_str!("../../../web/quick.css");
const APP_JS: &str = include_str!("../../../web/app.js");
const STYLE_CSS: &str = include_str!("../../../web/style.css");
const I18N_JSON: &str = include_str!("../../../web/i18n.json");

/// The page's ES modules, `web/js/<name>.js`, served at `/assets/<name>.js` (beside
/// `app.js`, the entry, which imports them): one line a module.
const MODULES: &[(&str, &str)] = &[
    ("api.js", include_str!("../../../web/js/api.js")),
    ("ask.js", include_str!("../../../web/js/ask.js")),
    ("banners.js", include_str!("../../../web/js/banners.js")),
    ("capture.js", include_str!("../../../web/js/capture.js")),
    ("card.js", include_str!("../../../web/js/card.js")),
    ("dom.js", include_str!("../../../web/js/dom.js")),
    ("edit.js", include_str!("../../../web/js/edit.js")),
    ("expiry.js", include_str!("../../../web/js/expiry.js")),
    ("facts.js", include_str!("../../../web/js/facts.js")),
    ("i18n.js", include_str!("../../../web/js/i18n.js")),
    (
        "keyed-list.js",
        include_str!("../../../web/js/keyed-list.js"),
    ),
    ("keys.js", include_str!("../../../web/js/keys.js")),
    ("links.js", include_str!("../../../web/js/links.js")),
    (
        "list-window.js",
        include_str!("../../../web/js/list-window.js"),
    ),
    ("live.js", include_str!("../../../web/js/live.js")),
    (
        "navigation.js",
        include_str!("../../../web/js/navigation.js"),
    ),
    ("note-view.js", include_str!("../../../web/js/note-view.js")),
    ("notes.js", include_str!("../../../web/js/notes.js")),
    ("preview.js", include_str!("../../../web/js/preview.js")),
    ("proof.js", include_str!("../../../web/js/proof.js")),
    ("quick.js", include_str!("../../../web/js/quick.js")),
    ("related.js", include_str!("../../../web/js/related.js")),
    ("reminder.js", include_str!("../../../web/js/reminder.js")),
    ("stats.js", include_str!("../../../web/js/stats.js")),
    ("store.js", include_str!("../../../web/js/store.js")),
    ("tags.js", include_str!("../../../web/js/tags.js")),
    ("today.js", include_str!("../../../web/js/today.js")),
    ("transfer.js", include_str!("../../../web/js/transfer.js")),
    ("trash.js", include_str!("../../../web/js/trash.js")),
    ("voice.js", include_str!("../../../web/js/voice.js")),
    ("wav.js", include_str!("../../../web/js/wav.js")),
];

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((CONTENT_SECURITY_POLICY, CSP))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .body(body)
}

/// The page as this run of the service serves it: its assets under `/assets/<run>/`,
/// `<run>` random for each start. The modules import each other by relative paths, so
/// they all come from the same place.
#[derive(Debug, Clone)]
pub struct PageAssets {
    index_html: String,
    quick_html: String,
}

impl PageAssets {
    /// The page of a run whose asset path is `/assets/<run>/`.
    pub fn for_run(run: &str) -> PageAssets {
        let under_run = |html: &str| html.replace("\"/assets/", &format!("\"/assets/{run}/"));
        PageAssets {
            index_html: under_run(INDEX_HTML),
            quick_html: under_run(QUICK_HTML),
        }
    }

    /// A fresh run: 16 random bytes as hex.
    pub fn fresh() -> anyhow::Result<PageAssets> {
        let run = crate::identity::new_nonce()?;
        Ok(PageAssets::for_run(&run[..32]))
    }
}

/// `GET /`: the page. It holds no data; it asks the API once it has a session.
pub async fn index(page: web::Data<PageAssets>) -> HttpResponse {
    html(page.index_html.clone())
}

/// `GET /quick`: the quick-capture window. Like the page, it holds no data and signs in
/// the same way (a one-time code in its address); it only ever adds a note.
pub async fn quick(page: web::Data<PageAssets>) -> HttpResponse {
    html(page.quick_html.clone())
}

fn html(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((CONTENT_SECURITY_POLICY, CSP))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .body(body)
}

/// `GET /assets/{run}/{name}`: what the page asks for. Any run is answered (the path
/// only needs to be one nobody else could have put in the browser's cache).
pub async fn run_assets(path: web::Path<(String, String)>) -> HttpResponse {
    asset_named(&path.1)
}

/// `GET /assets/{name}`: the same, for scripts and tools.
pub async fn assets(name: web::Path<String>) -> HttpResponse {
    asset_named(&name)
}

fn asset_named(name: &str) -> HttpResponse {
    match name {
        "app.js" => asset("text/javascript; charset=utf-8", APP_JS),
        "style.css" => asset("text/css; charset=utf-8", STYLE_CSS),
        "quick.css" => asset("text/css; charset=utf-8", QUICK_CSS),
        "i18n.json" => asset("application/json", I18N_JSON),
        "icon.svg" => asset("image/svg+xml", APP_ICON_SVG),
        module => match MODULES.iter().find(|(file, _)| *file == module) {
            Some((_, body)) => asset("text/javascript; charset=utf-8", body),
            None => HttpResponse::NotFound().json(Refusal::new("no such asset")),
        },
    }
}

#[cfg(test)]
mod tests;
