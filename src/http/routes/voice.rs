//! Voice notes: `POST /api/notes/voice` (the recording as the body, its type as the
//! `Content-Type`: 201 with the pending note, stored durably before the answer; 415,
//! 400 or 413 with nothing stored) and `GET /api/transcription` (whether voice notes
//! are on, the speech-to-text server's health, how many wait). The rules are
//! `crate::api::voice`'s; the use case is `Inbox::capture_voice`.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{web, HttpRequest, HttpResponse};

use crate::actors::transcriber::GetTranscriptionStatus;
use crate::api::voice::{accept_recording, TranscriptionStatus, VoiceRefusal};
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// `POST /api/notes/voice` → 201 with the pending voice note.
pub async fn capture_voice(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let content_type = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok());
    let format = accept_recording(
        content_type,
        body.len() as u64,
        state.services.voice.max_audio_bytes,
    )
    .map_err(|refusal| match refusal {
        VoiceRefusal::Empty => ApiError::BadRequest(refusal.to_string()),
        VoiceRefusal::TooLarge { .. } => ApiError::PayloadTooLarge(refusal.to_string()),
        VoiceRefusal::WrongType(_) => ApiError::UnsupportedMediaType(refusal.to_string()),
    })?;
    let note = state
        .services
        .inbox
        .capture_voice(body.to_vec(), format)
        .await?;
    tracing::info!(note_id = %note.id, format = format.extension(), "voice note captured");
    Ok(HttpResponse::Created().json(state.note_view(note)))
}

/// `GET /api/transcription` → whether voice notes are on, and the server's state.
pub async fn status(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let max_audio_bytes = state.services.voice.max_audio_bytes;
    let status = match &state.services.transcriber {
        None => TranscriptionStatus {
            enabled: false,
            health: None,
            max_audio_bytes,
            waiting: 0,
        },
        Some(transcriber) => transcriber
            .send(GetTranscriptionStatus)
            .await
            .map_err(|e| {
                ApiError::Unavailable(format!("the voice notes' worker is not running ({e})"))
            })?,
    };
    Ok(HttpResponse::Ok().json(status))
}
