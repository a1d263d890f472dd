//! The token guard in front of every `/api` route.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::web;

use super::error::ApiError;
use crate::api_token;

/// The token the service accepts, shared with the middleware.
#[derive(Clone)]
pub struct ApiToken(pub String);

/// Lets a request through only with `Authorization: Bearer <token>`.
pub async fn require_token(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let expected = req
        .app_data::<web::Data<ApiToken>>()
        .map(|t| t.0.clone())
        .ok_or_else(|| ApiError::Unexpected(anyhow::anyhow!("no API token configured")))?;
    let given = req
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(token) if api_token::matches(&expected, token) => next.call(req).await,
        _ => Err(ApiError::Unauthorized.into()),
    }
}
