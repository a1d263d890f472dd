//! Service workers refused: inkling has none, grants none, and removes any it finds.
//!
//! While inkling is stopped, a program of another user on its port is the page's same
//! origin. A page it serves there can register a service worker, which stays after
//! inkling is back (a 404 for its script does not remove it), sees every later request
//! of the origin (the one-time code in `/?code=…`, the page's access) and can answer
//! them. So every request the browser makes for a worker's script (it says so:
//! `Service-Worker: script`), whatever its path, inside `/api` or not, is answered with
//! [`UNREGISTER_SCRIPT`]: the browser's next update check installs that in place of
//! the squatter's worker, and it clears the origin's caches, unregisters itself and
//! reloads the pages it controlled from the network. `Service-Worker-Allowed` is never
//! sent. The page itself unregisters every registration when it starts and each time
//! it has proved the service again (`web/js/api.js`).

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::middleware::Next;
use actix_web::HttpResponse;

/// The header a browser sends with every fetch of a service worker's script.
const SERVICE_WORKER: &str = "service-worker";

/// The only worker inkling ever serves: one that removes itself at once.
pub const UNREGISTER_SCRIPT: &str = r#"// inkling has no service worker. This one replaces any other program's
// worker registered here: it clears this origin's caches, unregisters
// itself and reloads the pages it controlled from the network.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) await caches.delete(name);
    await self.registration.unregister();
    for (const client of await self.clients.matchAll({ type: "window" })) {
      client.navigate(client.url);
    }
  })());
});
"#;

/// Whether a request with these headers is a browser fetching a worker's script.
pub fn is_worker_script_fetch(service_worker_header: Option<&[u8]>) -> bool {
    service_worker_header.is_some_and(|value| value.eq_ignore_ascii_case(b"script"))
}

/// Answers a worker script's fetch with [`UNREGISTER_SCRIPT`], before any route or
/// credential check; every other request goes on.
pub async fn refuse_service_workers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let header = req.headers().get(SERVICE_WORKER).map(|v| v.as_bytes());
    if is_worker_script_fetch(header) {
        tracing::warn!(path = %req.path(), "a service worker's script was asked for: answered with one that unregisters itself");
        let response = HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, "text/javascript; charset=utf-8"))
            .insert_header((CACHE_CONTROL, "no-store"))
            .body(UNREGISTER_SCRIPT);
        return Ok(req.into_response(response));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_worker_script_fetch_is_answered_with_the_unregistering_worker() {
        assert!(is_worker_script_fetch(Some(b"script")));
        assert!(is_worker_script_fetch(Some(b"Script")));
        assert!(!is_worker_script_fetch(None));
        assert!(!is_worker_script_fetch(Some(b"")));
        assert!(!is_worker_script_fetch(Some(b"scripts")));
    }

    #[test]
    fn the_worker_removes_itself_and_grants_no_scope() {
        assert!(UNREGISTER_SCRIPT.contains("self.registration.unregister()"));
        assert!(UNREGISTER_SCRIPT.contains("caches.delete"));
        assert!(
            !UNREGISTER_SCRIPT.contains("\"fetch\""),
            "it handles no request"
        );
    }
}
