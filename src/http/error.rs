//! `ApiError`: every way a route can fail, and the JSON error body (`api::replies::Refusal`)
//! with the status code each one maps to.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};

use crate::api::replies::Refusal;
use crate::domain::{EditError, NoteBodyError};
use crate::storage::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed: bad JSON, wrong types, unknown fields, bad query.
    #[error("{0}")]
    BadRequest(String),
    #[error("missing or invalid credential: send `Authorization: Bearer <contents of the api-token file>`; the inbox page opens with `inkling open`")]
    Unauthorized,
    /// A credential refused for a reason the person can act on (a wrong or expired
    /// pairing code).
    #[error("{0}")]
    UnauthorizedBecause(String),
    /// A valid credential, beyond its scope (a paired device asking for more than
    /// capture).
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    /// The note is not in the state the request needs (active for a delete for good).
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The request's body did not arrive within its deadline.
    #[error("{0}")]
    RequestTimeout(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The disk is full: nothing was written; the caller may try again later.
    #[error("{0}")]
    InsufficientStorage(String),
    /// A part of the service is not running (e.g. stopping), or the disk cannot be
    /// written (read-only, I/O error): nothing was written; try again later.
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error: {0:#}")]
    Unexpected(#[from] anyhow::Error),
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized | ApiError::UnauthorizedBecause(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Unexpected(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Unexpected(e) => tracing::error!(error = %format!("{e:#}"), "request failed"),
            // The service's own trouble, not the caller's: the log should say so too.
            ApiError::InsufficientStorage(e) | ApiError::Unavailable(e) => {
                tracing::warn!(error = %e, "request refused")
            }
            _ => {}
        }
        HttpResponse::build(self.status_code()).json(Refusal::new(self.to_string()))
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(_) | StoreError::NoSuchTag(_) => ApiError::NotFound(e.to_string()),
            StoreError::Conflict(_) => ApiError::Conflict(e.to_string()),
            StoreError::Full(_) | StoreError::Recording { full: true, .. } => {
                ApiError::InsufficientStorage(e.to_string())
            }
            StoreError::Recording { .. } => ApiError::Unavailable(e.to_string()),
            StoreError::ReadOnly(_)
            | StoreError::DiskIo(_)
            | StoreError::Gone(_)
            | StoreError::Damaged(_) => ApiError::Unavailable(e.to_string()),
            other => ApiError::Unexpected(anyhow::Error::new(other)),
        }
    }
}

impl From<NoteBodyError> for ApiError {
    fn from(e: NoteBodyError) -> Self {
        match e {
            NoteBodyError::Empty => ApiError::BadRequest(e.to_string()),
            NoteBodyError::TooLarge { .. } => ApiError::PayloadTooLarge(e.to_string()),
        }
    }
}

impl From<EditError> for ApiError {
    fn from(e: EditError) -> Self {
        match e {
            EditError::Body(body) => body.into(),
            other => ApiError::BadRequest(other.to_string()),
        }
    }
}

impl From<crate::inbox::TickError> for ApiError {
    fn from(e: crate::inbox::TickError) -> Self {
        use crate::inbox::TickError;
        match e {
            TickError::Store(e) => e.into(),
            TickError::Task(e) => ApiError::BadRequest(e.to_string()),
            TickError::Edit(e) => e.into(),
        }
    }
}

impl From<crate::devices::PairError> for ApiError {
    fn from(e: crate::devices::PairError) -> Self {
        use crate::devices::PairError;
        match e {
            PairError::NoCode
            | PairError::Expired
            | PairError::Wrong { .. }
            | PairError::TooManyTries => ApiError::UnauthorizedBecause(e.to_string()),
            PairError::BadName(_) => ApiError::BadRequest(e.to_string()),
            PairError::TooManyDevices => ApiError::Conflict(e.to_string()),
            PairError::Unexpected(e) => ApiError::Unexpected(e),
        }
    }
}

impl From<actix::MailboxError> for ApiError {
    fn from(e: actix::MailboxError) -> Self {
        ApiError::Unavailable(format!("the service is stopping ({e})"))
    }
}

/// Maps actix-web's JSON extractor errors to our JSON errors.
pub fn json_error(err: actix_web::error::JsonPayloadError) -> ApiError {
    use actix_web::error::JsonPayloadError as E;
    match err {
        E::OverflowKnownLength { length, limit } => ApiError::PayloadTooLarge(format!(
            "the request body is {length} bytes; the limit is {limit}"
        )),
        E::Overflow { limit } => ApiError::PayloadTooLarge(format!(
            "the request body is over the limit of {limit} bytes"
        )),
        E::ContentType => {
            ApiError::UnsupportedMediaType("send the body as Content-Type: application/json".into())
        }
        E::Deserialize(e) => ApiError::BadRequest(format!("invalid JSON body: {e}")),
        other => ApiError::BadRequest(format!("invalid request body: {other}")),
    }
}

/// Maps actix-web's query-string extractor errors to our JSON errors.
pub fn query_error(err: actix_web::error::QueryPayloadError) -> ApiError {
    ApiError::BadRequest(format!("invalid query: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite_failure(code: std::ffi::c_int) -> StoreError {
        StoreError::from(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
    }

    #[test]
    fn disk_trouble_is_the_service_s_error_with_a_message_that_says_what_to_do() {
        let cases = [
            (rusqlite::ffi::SQLITE_FULL, 507, "free some disk space"),
            (rusqlite::ffi::SQLITE_READONLY, 503, "read-only"),
            (rusqlite::ffi::SQLITE_IOERR_WRITE, 503, "disk failed"),
            (rusqlite::ffi::SQLITE_IOERR_FSYNC, 503, "disk failed"),
        ];
        for (code, status, says) in cases {
            assert!(sqlite_failure(code).is_disk_trouble(), "code {code}");
            let error = ApiError::from(sqlite_failure(code));
            assert_eq!(error.status_code().as_u16(), status, "code {code}");
            assert!(error.to_string().contains(says), "{error}");
        }
    }

    #[test]
    fn other_database_errors_are_internal_errors() {
        assert!(!sqlite_failure(rusqlite::ffi::SQLITE_CONSTRAINT).is_disk_trouble());
        let error = ApiError::from(sqlite_failure(rusqlite::ffi::SQLITE_CORRUPT));
        assert_eq!(error.status_code().as_u16(), 500);
    }
}
