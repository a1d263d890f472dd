//! Which credential may reach which route: the one table of what a capture-only
//! credential (a paired device, `src/devices.rs`) may do. Everything not in it needs
//! full scope, so a route added later is closed to devices until someone opens it here
//! on purpose (deny by default). `auth.rs` applies it, in one place, to every `/api`
//! request.
//!
//! The table names exact paths: a path that only *routes* to a capture route (a
//! trailing slash, percent-encoded letters) needs full scope, so the check can only err
//! towards refusing.

use actix_web::http::Method;

use crate::api::devices::Scope;

/// The routes a capture-only credential may use: saving a note, clipping a page.
const CAPTURE_ROUTES: &[(&str, &str)] = &[("POST", "/api/notes"), ("POST", "/api/clip")];

/// The scope a request for `method path` needs.
pub fn required(method: &Method, path: &str) -> Scope {
    if CAPTURE_ROUTES
        .iter()
        .any(|(m, p)| method.as_str() == *m && path == *p)
    {
        Scope::Capture
    } else {
        Scope::Full
    }
}

/// The refusal a device gets for a route beyond its scope.
pub const BEYOND_SCOPE: &str = "this credential can only save notes (it belongs to a paired \
     device, such as the web clipper); use the inbox page (`inkling open`) or the command \
     line for anything else";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_may_capture_and_clip_and_nothing_else() {
        assert_eq!(required(&Method::POST, "/api/notes"), Scope::Capture);
        assert_eq!(required(&Method::POST, "/api/clip"), Scope::Capture);
        for (method, path) in [
            (Method::GET, "/api/notes"),
            (Method::GET, "/api/notes/abc"),
            (Method::PATCH, "/api/notes/abc"),
            (Method::DELETE, "/api/notes/abc"),
            (Method::GET, "/api/notes/export"),
            (Method::GET, "/api/search"),
            (Method::POST, "/api/ask"),
            (Method::GET, "/api/status"),
            (Method::GET, "/api/events"),
            (Method::GET, "/api/changes"),
            (Method::POST, "/api/devices/pairing-code"),
            (Method::GET, "/api/devices"),
            (Method::POST, "/api/open-code"),
            (Method::POST, "/api/notes/abc/trash"),
            (Method::GET, "/api/clip"),
            (Method::PUT, "/api/notes"),
        ] {
            assert_eq!(required(&method, path), Scope::Full, "{method} {path}");
        }
    }

    #[test]
    fn a_path_not_in_the_table_needs_full_scope() {
        for path in [
            "/api/notes/",
            "/api/%6Eotes",
            "/api/notes?x=1",
            "/api//notes",
            "/api/a-route-added-tomorrow",
            "/API/NOTES",
        ] {
            assert_eq!(required(&Method::POST, path), Scope::Full, "{path}");
        }
    }

    #[test]
    fn full_scope_admits_everything_and_capture_only_capture() {
        assert!(Scope::Full.admits(Scope::Full));
        assert!(Scope::Full.admits(Scope::Capture));
        assert!(Scope::Capture.admits(Scope::Capture));
        assert!(!Scope::Capture.admits(Scope::Full));
    }
}
