//! One typed method per API route the CLI uses: the path, the request body and the
//! answer's type (from `crate::api`, the types the routes write), so the CLI names
//! what it wants (`client.trash(id)`) and reads fields, never a path or raw JSON.

use std::path::PathBuf;

use super::{ClientError, ServiceClient};
use crate::api::ask::{AskEvent, AskRequest};
use crate::api::changes::{ChangesPage, ChangesQuery};
use crate::api::devices::{DeviceView, PairingCode};
use crate::api::ids::{IdsQuery, IdsReply, ShortIdsReply, ShortIdsRequest};
use crate::api::notes::RelatedNotes;
use crate::api::pull::ModelPullProgress;
use crate::api::reminders::{RemindersAnswer, RemindersQuery};
use crate::api::replies::{
    Count, ExportedTo, ImportedCount, OpenCode, TagCount, TagRenamed, TrashedExpired,
};
use crate::api::requests::{
    CaptureRequest, EditRequest, ExportRequest, ImportRequest, ListQuery, RenameTagRequest,
};
use crate::api::search::SearchAnswer;
use crate::api::status::{ProviderHealth, ServiceStatus};
use crate::domain::Note;
use crate::export::ImportedNote;

/// What a route with nothing to be told is sent: `{}` (the routes take JSON).
#[derive(serde::Serialize)]
struct NoBody {}

const NO_BODY: NoBody = NoBody {};

impl ServiceClient {
    /// `POST /api/notes`: the note, stored.
    pub async fn capture(&self, body: &str) -> Result<Note, ClientError> {
        let request = CaptureRequest { body: body.into() };
        self.post("/api/notes", &request).await
    }

    /// `POST /api/notes/voice`: the recording, stored as a pending voice note.
    pub async fn capture_voice(
        &self,
        audio: Vec<u8>,
        format: crate::api::voice::AudioFormat,
    ) -> Result<Note, ClientError> {
        self.post_bytes("/api/notes/voice", format.content_type(), audio)
            .await
    }

    /// `GET /api/transcription`: whether voice notes are on, the server's state.
    pub async fn transcription(
        &self,
    ) -> Result<crate::api::voice::TranscriptionStatus, ClientError> {
        self.get("/api/transcription").await
    }

    /// `GET /api/notes?…`: one page of notes, newest first (`query.q` unset).
    pub async fn list(&self, query: &ListQuery) -> Result<Vec<Note>, ClientError> {
        self.get_query("/api/notes", query).await
    }

    /// `GET /api/search?q=…`: the hybrid search, the notes found by the words of
    /// `query.q` and by its meaning, best first, and why the meaning was not used.
    pub async fn search(&self, query: &ListQuery) -> Result<SearchAnswer, ClientError> {
        self.get_query("/api/search", query).await
    }

    /// `GET /api/notes/{id}`: the note (its detail's other fields are the page's).
    pub async fn show(&self, id: &str) -> Result<Note, ClientError> {
        self.get(&note_path(id, "")).await
    }

    /// `GET /api/notes/ids?prefix=…`: the notes whose id begins with `prefix`.
    pub async fn ids_with_prefix(&self, prefix: &str) -> Result<IdsReply, ClientError> {
        let query = IdsQuery {
            prefix: prefix.into(),
        };
        self.get_query("/api/notes/ids", &query).await
    }

    /// `POST /api/notes/short-ids`: each id's shortest unique prefix, in order.
    pub async fn short_ids(&self, ids: Vec<String>) -> Result<ShortIdsReply, ClientError> {
        self.post("/api/notes/short-ids", &ShortIdsRequest { ids })
            .await
    }

    /// `GET /api/notes/{id}/related`: the notes nearest to it, best first.
    pub async fn related(&self, id: &str) -> Result<RelatedNotes, ClientError> {
        self.get(&note_path(id, "/related")).await
    }

    /// `GET /api/changes?since=…&limit=…`: a page of the change log, oldest first.
    pub async fn changes(&self, query: &ChangesQuery) -> Result<ChangesPage, ClientError> {
        self.get_query("/api/changes", query).await
    }

    /// `PATCH /api/notes/{id}`: the note as edited.
    pub async fn edit(&self, id: &str, edit: &EditRequest) -> Result<Note, ClientError> {
        self.patch(&note_path(id, ""), edit).await
    }

    /// `GET /api/reminders?until=…`: the reminders not done up to `until` (absent: the
    /// end of today), earliest first.
    pub async fn reminders(&self, until: Option<String>) -> Result<RemindersAnswer, ClientError> {
        self.get_query("/api/reminders", &RemindersQuery { until })
            .await
    }

    /// `POST /api/notes/{id}/enrich`: the note, pending and next in line.
    pub async fn enrich(&self, id: &str) -> Result<Note, ClientError> {
        self.post(&note_path(id, "/enrich"), &NO_BODY).await
    }

    /// `POST /api/notes/{id}/trash`: the note, in the trash.
    pub async fn trash(&self, id: &str) -> Result<Note, ClientError> {
        self.post(&note_path(id, "/trash"), &NO_BODY).await
    }

    /// `POST /api/notes/{id}/restore`: the note, out of the trash.
    pub async fn restore(&self, id: &str) -> Result<Note, ClientError> {
        self.post(&note_path(id, "/restore"), &NO_BODY).await
    }

    /// `POST /api/notes/{id}/keep`: the note, kept past expiry.
    pub async fn keep(&self, id: &str) -> Result<Note, ClientError> {
        self.post(&note_path(id, "/keep"), &NO_BODY).await
    }

    /// `DELETE /api/notes/{id}`: a note in the trash, deleted for good.
    pub async fn delete_forever(&self, id: &str) -> Result<(), ClientError> {
        self.delete(&note_path(id, "")).await
    }

    /// `POST /api/trash/empty`: how many notes were deleted for good.
    pub async fn empty_trash(&self) -> Result<Count, ClientError> {
        self.post("/api/trash/empty", &NO_BODY).await
    }

    /// `POST /api/inbox/trash-expired`: the notes moved to the trash.
    pub async fn trash_expired(&self) -> Result<TrashedExpired, ClientError> {
        self.post("/api/inbox/trash-expired", &NO_BODY).await
    }

    /// `GET /api/status`.
    pub async fn status(&self) -> Result<ServiceStatus, ClientError> {
        self.get("/api/status").await
    }

    /// `GET /api/inbox/failed-count`: a bare number.
    pub async fn failed_count(&self) -> Result<u64, ClientError> {
        self.get("/api/inbox/failed-count").await
    }

    /// `POST /api/inbox/retry-all-failed`: how many failed notes went back to the AI.
    pub async fn retry_all(&self) -> Result<Count, ClientError> {
        self.post("/api/inbox/retry-all-failed", &NO_BODY).await
    }

    /// `POST /api/provider/recheck`: the provider's health, checked now.
    pub async fn recheck(&self) -> Result<ProviderHealth, ClientError> {
        self.post("/api/provider/recheck", &NO_BODY).await
    }

    /// `POST /api/provider/pull`: each step of the model's download as it comes, given
    /// to `on_step` with its line as sent (`--json` prints it unchanged).
    pub async fn pull_model(
        &self,
        mut on_step: impl FnMut(&str, ModelPullProgress) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        self.post_lines("/api/provider/pull", &NO_BODY, |line| {
            if line.trim().is_empty() {
                return Ok(());
            }
            let step = serde_json::from_str(line)
                .map_err(|e| ClientError::Api(format!("a download step that is not JSON: {e}")))?;
            on_step(line, step)
        })
        .await
    }

    /// `POST /api/ask`: a question asked of the notes; each event of the answer as it
    /// comes, given to `on_event` (the notes first, then the answer's pieces, then
    /// `done`). Stopping early (an error from `on_event`) hangs up, which stops the
    /// model.
    pub async fn ask(
        &self,
        question: &str,
        mut on_event: impl FnMut(AskEvent) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        let request = AskRequest {
            question: question.into(),
        };
        // The model may take minutes on a CPU: the answer's own deadlines are the
        // service's (the first piece, a stall).
        let within = std::time::Duration::from_secs(60 * 60);
        self.post_lines_within(
            "/api/ask",
            &request,
            Some(within),
            |line| match AskEvent::from_line(line) {
                None => Ok(()),
                Some(Ok(event)) => on_event(event),
                Some(Err(e)) => Err(ClientError::Api(format!(
                    "a line of the answer that is not an event: {e}"
                ))),
            },
        )
        .await
    }

    /// `GET /api/tags`: the tags of active notes with their counts, most used first.
    pub async fn tags(&self) -> Result<Vec<TagCount>, ClientError> {
        self.get("/api/tags").await
    }

    /// `POST /api/tags/rename`: renamed, or merged into `new`.
    pub async fn rename_tag(&self, old: &str, new: &str) -> Result<TagRenamed, ClientError> {
        let request = RenameTagRequest {
            tag: old.into(),
            to: new.into(),
        };
        self.post("/api/tags/rename", &request).await
    }

    /// The inbox page's address with a fresh one-time code (a minute, one use), which
    /// the page trades for its session and removes from the address bar. Not the token:
    /// an address is seen by `ps` (the browser's arguments) and kept in the history.
    pub async fn inbox_url(&self) -> Result<String, ClientError> {
        let answer: OpenCode = self.post("/api/open-code", &NO_BODY).await?;
        Ok(format!("{}/?code={}", self.base_url, answer.code))
    }

    /// The quick-capture window's address (`/quick`), signed in the same way.
    pub async fn quick_url(&self) -> Result<String, ClientError> {
        let answer: OpenCode = self.post("/api/open-code", &NO_BODY).await?;
        Ok(format!("{}/quick?code={}", self.base_url, answer.code))
    }

    /// `POST /api/sessions/end-all`: how many inbox pages were signed out.
    pub async fn end_all_sessions(&self) -> Result<Count, ClientError> {
        self.post("/api/sessions/end-all", &NO_BODY).await
    }

    /// `POST /api/devices/pairing-code`: a code that pairs a device (`inkling pair`).
    pub async fn pairing_code(&self) -> Result<PairingCode, ClientError> {
        self.post("/api/devices/pairing-code", &NO_BODY).await
    }

    /// `GET /api/devices`: the paired devices.
    pub async fn devices(&self) -> Result<Vec<DeviceView>, ClientError> {
        self.get("/api/devices").await
    }

    /// `DELETE /api/devices/{id}`: the device unpaired.
    pub async fn revoke_device(&self, id: &str) -> Result<(), ClientError> {
        self.delete(&format!("/api/devices/{}", encode(id))).await
    }

    /// `GET /api/stats`: the usage report, stats.md.
    pub async fn stats_report(&self) -> Result<String, ClientError> {
        self.get_text("/api/stats").await
    }

    /// `POST /api/usage-log/export`: the usage log copied into a new folder in `out`
    /// (an absolute path), or in the data dir's exports.
    pub async fn export_usage_log(&self, out: Option<PathBuf>) -> Result<ExportedTo, ClientError> {
        self.post("/api/usage-log/export", &ExportRequest { out })
            .await
    }

    /// `GET /api/notes/export?format=json`: the export document a line at a time (its
    /// head, one note a line, its tail), never held whole.
    pub async fn export_notes(
        &self,
        on_line: impl FnMut(&str) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        self.get_lines("/api/notes/export?format=json", on_line)
            .await
    }

    /// `POST /api/notes/import`: how many of `notes` came in, and how many were here.
    pub async fn import_notes(
        &self,
        notes: Vec<ImportedNote>,
    ) -> Result<ImportedCount, ClientError> {
        let request = ImportRequest {
            notes,
            markdown: Vec::new(),
        };
        self.post("/api/notes/import", &request).await
    }
}

/// `/api/notes/{id}` and what follows it.
fn note_path(id: &str, rest: &str) -> String {
    format!("/api/notes/{}{rest}", encode(id))
}

/// Everything but RFC 3986's unreserved characters is encoded, so a value is safe in
/// a path segment.
const ENCODED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encodes a path segment (a note's id, a tag).
fn encode(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, ENCODED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_percent_encoded() {
        assert_eq!(encode("a b&c/é"), "a%20b%26c%2F%C3%A9");
        assert_eq!(note_path("n/1", "/trash"), "/api/notes/n%2F1/trash");
    }
}
