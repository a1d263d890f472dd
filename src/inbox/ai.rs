//! The AI asked for by hand: retry every failed note (docs/DESIGN.md, "Retry-all"),
//! or one note's AI again. Both mean "try now": the worker is resumed at once.

use super::{unavailable, Inbox};
use crate::actors::ai_worker::{Enqueue, ResumeNow, TrackJob};
use crate::actors::repository::{RequestEnrichment, RetryAllFailed};
use crate::actors::telemetry::Emit;
use crate::domain::{AiStatus, Note};
use crate::storage::StoreResult;
use crate::telemetry::events::{AiEnrichRequested, AiRetryManual, EnrichFrom, UsageEvent};

impl Inbox {
    /// Every failed note back to pending in one transaction, each queued, then
    /// `ai_retry_manual {failedCount}` and the worker resumed. Zero requeued is the
    /// "nothing happened" sentinel: no event, no resume. Replies with how many.
    pub async fn retry_all_failed(&self) -> StoreResult<u64> {
        let now = self.clock.now();
        let ids = self
            .repository
            .send(RetryAllFailed { now })
            .await
            .map_err(unavailable)??;
        let count = ids.len() as u64;
        if count == 0 {
            return Ok(0);
        }
        self.worker.do_send(Enqueue {
            note_ids: ids,
            at: now,
        });
        self.worker.do_send(ResumeNow {
            why: "manual retry of failed notes",
        });
        self.reload_voice_jobs();
        self.telemetry
            .do_send(Emit(UsageEvent::AiRetryManual(AiRetryManual {
                failed_count: count,
            })));
        tracing::info!(count, "failed notes requeued");
        Ok(count)
    }

    /// One note's AI asked for again (done, failed or pending): its job at the front of
    /// the queue with attempts 0, the worker resumed, `ai_enrich_requested {from}`.
    /// Replies with the note, now pending.
    pub async fn enrich(&self, id: String) -> StoreResult<Note> {
        let now = self.clock.now();
        let (note, was) = self
            .repository
            .send(RequestEnrichment { id, now })
            .await
            .map_err(unavailable)??;
        // The job as stored now: at the front, attempts 0.
        self.worker.do_send(TrackJob {
            note_id: note.id.clone(),
        });
        self.worker.do_send(ResumeNow {
            why: "one note's AI asked for by hand",
        });
        self.reload_voice_jobs();
        let from = match was {
            AiStatus::Done => EnrichFrom::Done,
            AiStatus::Failed => EnrichFrom::Failed,
            AiStatus::Pending => EnrichFrom::Pending,
        };
        self.telemetry
            .do_send(Emit(UsageEvent::AiEnrichRequested(AiEnrichRequested {
                from,
            })));
        Ok(note)
    }
}
