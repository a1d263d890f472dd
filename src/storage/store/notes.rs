//! Notes as the user sees them: capture, one note, lists (their filters and keyset
//! pages, shared with search), edits, and the pending/failed/expired counts the
//! banners and the tray show. A row of `notes` becomes a `Note` in `note_from_row`.

use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, OptionalExtension, Row};

use super::tags::{tags_in_use, to_json};
use super::{Store, StoreError, StoreResult};
use crate::api::changes::ChangeKind;
use crate::api::notes::NoteCounts;
use crate::domain::{timestamp, AiStatus, ListFilter, Note, NoteBody, NoteEdit, NoteKind};
use crate::reminders::ReminderState;

/// A note after an edit, with what it was before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub note: Note,
    /// Its AI status before the edit.
    pub was: AiStatus,
    /// The body changed so that the AI's result no longer holds: the note is pending
    /// again with a fresh job. A checklist tick changes the body and not this
    /// (`render::only_ticks_differ`).
    pub queued_afresh: bool,
    /// Anything was written.
    pub changed: bool,
}

/// Active notes with a status (?1).
pub const COUNT_WITH_STATUS_SQL: &str =
    "SELECT COUNT(*) FROM notes WHERE ai_status = ?1 AND deleted_at IS NULL";

/// The expired notes, as a `WHERE` clause: active, came (were written here, or imported)
/// before ?1, never kept. One text for the count, keep all and trash all, word for word
/// migration 0012's partial index, so SQLite reads only that index.
macro_rules! expired_where {
    () => {
        "deleted_at IS NULL AND coalesce(imported_at, created_at) < ?1 AND kept_at IS NULL"
    };
}
pub(super) use expired_where;

/// How many notes are expired at the edge ?1.
pub const COUNT_EXPIRED_SQL: &str = concat!("SELECT COUNT(*) FROM notes WHERE ", expired_where!());

/// The columns [`note_from_row`] reads, in its order (a macro, so that constant SQL can
/// be put together with `concat!`).
macro_rules! note_columns {
    () => {
        "n.id, n.body, n.title, n.summary, n.tags, n.ai_status, n.ai_error, \
         n.created_at, n.updated_at, n.deleted_at, n.kept_at, n.title_set_by_user, \
         n.tags_set_by_user, n.ai_read_chars, n.edited_at, n.remind_at, n.remind_state, n.kind, \
         n.imported_at, n.remind_suggested_at, n.remind_suggestion_dismissed, n.opened_at"
    };
}

/// The columns [`note_from_row`] reads, in its order.
pub(super) const NOTE_COLUMNS: &str = note_columns!();

/// One note by its id: a constant, so its statement is compiled once per connection
/// (the statement cache keys on the text; a `format!` per call built it anew).
const GET_NOTE_SQL: &str = concat!("SELECT ", note_columns!(), " FROM notes n WHERE n.id = ?1");

impl Store {
    /// Stores a new pending note and its job row in one transaction. Durable on return.
    pub fn capture(&mut self, body: &NoteBody, now: DateTime<Utc>) -> StoreResult<Note> {
        self.capture_kind(body, NoteKind::Note, now)
    }

    /// [`Store::capture`] of a note of `kind` (an answer saved from Ask).
    pub fn capture_kind(
        &mut self,
        body: &NoteBody,
        kind: NoteKind,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        let mut notes = self.capture_all(&[(body, kind, now)])?;
        notes
            .pop()
            .ok_or_else(|| StoreError::Unavailable("a capture stored no note".into()))
    }

    /// Stores new pending notes, each with its job row, all in one transaction (group
    /// commit: one fsync for the notes that arrived while the last commit was on the
    /// disk). Durable on return; on an error none is stored.
    pub fn capture_all(
        &mut self,
        notes: &[(&NoteBody, NoteKind, DateTime<Utc>)],
    ) -> StoreResult<Vec<Note>> {
        self.write(|w| {
            let mut stored = Vec::with_capacity(notes.len());
            // Cached: the insert compiles the search index's triggers with it, which
            // cost a capture ~0.1 ms of parsing each time (docs/PERFORMANCE.md).
            let mut note_row = w.prepare_cached(
                "INSERT INTO notes (id, body, ai_status, created_at, updated_at, kind)
                 VALUES (?1, ?2, 'pending', ?3, ?3, ?4)",
            )?;
            let mut job_row = w.prepare_cached(
                "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)",
            )?;
            for (body, kind, now) in notes {
                let id = uuid::Uuid::now_v7().to_string();
                let at = timestamp(*now);
                note_row.execute(params![id, body.as_str(), at, kind.as_str()])?;
                job_row.execute(params![id, at])?;
                w.record(&id, ChangeKind::Captured, *now)?;
                stored.push(Note {
                    id,
                    body: body.as_str().to_string(),
                    title: None,
                    summary: None,
                    tags: Vec::new(),
                    ai_status: AiStatus::Pending,
                    ai_error: None,
                    created_at: at.clone(),
                    updated_at: at,
                    deleted_at: None,
                    kept_at: None,
                    title_set_by_user: false,
                    tags_set_by_user: false,
                    ai_read_chars: None,
                    edited_at: None,
                    remind_at: None,
                    remind_state: None,
                    kind: *kind,
                    imported_at: None,
                    remind_suggested_at: None,
                    remind_suggestion_dismissed: false,
                    opened_at: None,
                });
            }
            Ok(stored)
        })
    }

    /// One note, trashed or not.
    pub fn get(&self, id: &str) -> StoreResult<Note> {
        self.conn
            .prepare_cached(GET_NOTE_SQL)?
            .query_row([id], note_from_row)
            .optional()?
            .ok_or_else(|| StoreError::NotFound(id.to_string()))
    }

    /// Notes matching `filter`, newest first, one page.
    pub fn list(&self, filter: &ListFilter, now: DateTime<Utc>) -> StoreResult<Vec<Note>> {
        let (sql, args) = self.list_query(filter, now)?;
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let notes = stmt
            .query_map(params_from_iter(args), note_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(notes)
    }

    /// The SQL and arguments of [`Store::list`] (public for `EXPLAIN QUERY PLAN` tests).
    pub fn list_query(
        &self,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<(String, Vec<Value>)> {
        let mut sql = format!("SELECT {NOTE_COLUMNS} FROM notes n");
        let mut args: Vec<Value> = Vec::new();
        self.push_filter(filter, now, &mut sql, &mut args);
        if let Some(before) = &filter.before {
            let cursor = self.get(before)?;
            sql.push_str(" AND (n.created_at, n.id) < (?, ?)");
            args.push(Value::Text(cursor.created_at));
            args.push(Value::Text(cursor.id));
        }
        sql.push_str(" ORDER BY n.created_at DESC, n.id DESC LIMIT ?");
        args.push(Value::Integer(i64::from(filter.effective_limit())));
        Ok((sql, args))
    }

    /// Appends what a list and a search share to a query over `notes n`: the tag's
    /// join, then the trash, status and expiry conditions (the `WHERE` begins here).
    pub(super) fn push_filter(
        &self,
        filter: &ListFilter,
        now: DateTime<Utc>,
        sql: &mut String,
        args: &mut Vec<Value>,
    ) {
        if let Some(tag) = &filter.tag {
            sql.push_str(" JOIN note_tags t ON t.note_id = n.id AND t.tag = ?");
            args.push(Value::Text(tag.clone()));
        }
        sql.push_str(if filter.trash {
            " WHERE n.deleted_at IS NOT NULL"
        } else {
            " WHERE n.deleted_at IS NULL"
        });
        if let Some(status) = filter.status {
            sql.push_str(" AND n.ai_status = ?");
            args.push(Value::Text(status.as_str().into()));
        }
        if filter.expired {
            match self.expired_before(now) {
                Some(edge) => {
                    sql.push_str(
                        " AND coalesce(n.imported_at, n.created_at) < ? AND n.kept_at IS NULL",
                    );
                    args.push(Value::Text(edge));
                }
                // Expiry is off: no note is expired.
                None => sql.push_str(" AND 0"),
            }
        }
    }

    pub fn count_failed(&self) -> StoreResult<u64> {
        self.count_with_status(AiStatus::Failed)
    }

    pub fn count_pending(&self) -> StoreResult<u64> {
        self.count_with_status(AiStatus::Pending)
    }

    fn count_with_status(&self, status: AiStatus) -> StoreResult<u64> {
        let count: i64 = self
            .conn
            .prepare_cached(COUNT_WITH_STATUS_SQL)?
            .query_row([status.as_str()], |r| r.get(0))?;
        Ok(count as u64)
    }

    /// Active notes older than `expiry.days` that were never kept.
    pub fn count_expired(&self, now: DateTime<Utc>) -> StoreResult<u64> {
        let Some(edge) = self.expired_before(now) else {
            return Ok(0);
        };
        let count: i64 = self
            .conn
            .prepare_cached(COUNT_EXPIRED_SQL)?
            .query_row([edge], |r| r.get(0))?;
        Ok(count as u64)
    }

    /// Pending, failed and expired counts in one call (one actor round trip).
    pub fn counts(&self, now: DateTime<Utc>) -> StoreResult<NoteCounts> {
        Ok(NoteCounts {
            pending: self.count_pending()?,
            failed: self.count_failed()?,
            expired: self.count_expired(now)?,
        })
    }

    /// Edits a note (docs/DESIGN.md, "Editing"): any of its body, title and tags, in
    /// one transaction. A title or tags given become the user's, kept from the AI from
    /// now on; tags are stored under the spellings already in use. A changed body makes
    /// the AI's output stale: the note goes back to pending with a fresh job (attempts
    /// 0, due now), as a capture does; its old title, tags and summary stay until new
    /// ones replace them. A note in the trash is a conflict. Writes nothing when
    /// nothing differs.
    pub fn edit(
        &mut self,
        note_id: &str,
        edit: &NoteEdit,
        now: DateTime<Utc>,
    ) -> StoreResult<Edited> {
        let before = self.get(note_id)?;
        if before.deleted_at.is_some() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is in the trash; restore it first"
            )));
        }
        if edit
            .made_from_body
            .as_ref()
            .is_some_and(|made_from| *made_from != before.body)
        {
            return Err(StoreError::Conflict(format!(
                "note {note_id} was changed meanwhile (in another window or the command line), so nothing was changed; open it again and retry"
            )));
        }
        let body = edit
            .body
            .as_ref()
            .map(NoteBody::as_str)
            .filter(|body| *body != before.body);
        let title = edit
            .title
            .as_deref()
            .filter(|title| !before.title_set_by_user || before.title.as_deref() != Some(title));
        // Ticks on a note the AI has answered (or given up on) keep its answer: the
        // words it read are the same. A pending note is queued afresh as for any edit,
        // so a call reading the old body is not saved over the new one.
        let ticks_only = body.is_some_and(|body| {
            before.ai_status != AiStatus::Pending
                && crate::render::only_ticks_differ(&before.body, body)
        });
        let changed = self.write(|w| {
            let tags = match &edit.tags {
                Some(tags) => Some(tags_in_use(w)?.tidy(tags.clone())),
                None => None,
            }
            .filter(|tags| !before.tags_set_by_user || *tags != before.tags);
            if body.is_none() && title.is_none() && tags.is_none() {
                return Ok(false);
            }
            let at = timestamp(now);
            // A person's edit: `edited_at` says so (the AI's answer moves `updated_at` only).
            w.execute(
                "UPDATE notes SET updated_at = ?2, edited_at = ?2 WHERE id = ?1",
                params![note_id, at],
            )?;
            if let (Some(body), true) = (body, ticks_only) {
                w.execute(
                    "UPDATE notes SET body = ?2 WHERE id = ?1",
                    params![note_id, body],
                )?;
            }
            if let (Some(body), false) = (body, ticks_only) {
                w.execute(
                    "UPDATE notes SET body = ?2, ai_status = 'pending', ai_error = NULL WHERE id = ?1",
                    params![note_id, body],
                )?;
                // A voice note typed into before its words came: the person's words
                // stand, and it is enriched, not transcribed (its recording stays).
                w.execute(
                    "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)
                     ON CONFLICT (note_id) DO UPDATE SET attempts = 0, slow_timeouts = 0,
                         next_run_at = excluded.next_run_at, wait_reason = NULL, last_error = NULL,
                         kind = 'enrich'",
                    params![note_id, at],
                )?;
                w.execute(
                    "UPDATE voice_recordings SET transcribed_at = ?2
                     WHERE note_id = ?1 AND transcribed_at IS NULL",
                    params![note_id, at],
                )?;
            }
            if let Some(title) = title {
                w.execute(
                    "UPDATE notes SET title = ?2, title_set_by_user = 1 WHERE id = ?1",
                    params![note_id, title],
                )?;
            }
            if let Some(tags) = &tags {
                w.execute(
                    "UPDATE notes SET tags = ?2, tags_set_by_user = 1 WHERE id = ?1",
                    params![note_id, to_json(tags)?],
                )?;
            }
            // The tag index follows the log; so does the vector index, which the edit's
            // trigger (migration 0008) took a changed body's stale vector out of.
            w.record(note_id, ChangeKind::Edited, now)?;
            Ok(true)
        })?;
        if !changed {
            return Ok(Edited {
                note: before.clone(),
                was: before.ai_status,
                queued_afresh: false,
                changed: false,
            });
        }
        Ok(Edited {
            note: self.get(note_id)?,
            was: before.ai_status,
            queued_afresh: body.is_some() && !ticks_only,
            changed: true,
        })
    }
}

pub(super) fn note_from_row(r: &Row) -> rusqlite::Result<Note> {
    let tags: String = r.get(4)?;
    let status: String = r.get(5)?;
    let conversion = |column, e: Box<dyn std::error::Error + Send + Sync>| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, e)
    };
    Ok(Note {
        id: r.get(0)?,
        body: r.get(1)?,
        title: r.get(2)?,
        summary: r.get(3)?,
        tags: serde_json::from_str(&tags).map_err(|e| conversion(4, e.into()))?,
        ai_status: AiStatus::parse(&status)
            .ok_or_else(|| conversion(5, format!("unknown ai_status {status}").into()))?,
        ai_error: r.get(6)?,
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
        deleted_at: r.get(9)?,
        kept_at: r.get(10)?,
        title_set_by_user: r.get(11)?,
        tags_set_by_user: r.get(12)?,
        ai_read_chars: r.get(13)?,
        edited_at: r.get(14)?,
        remind_at: r.get(15)?,
        remind_state: match r.get::<_, Option<String>>(16)? {
            None => None,
            Some(state) => {
                Some(ReminderState::parse(&state).ok_or_else(|| {
                    conversion(16, format!("unknown remind_state {state}").into())
                })?)
            }
        },
        kind: {
            let kind: String = r.get(17)?;
            NoteKind::parse(&kind)
                .ok_or_else(|| conversion(17, format!("unknown kind {kind}").into()))?
        },
        imported_at: r.get(18)?,
        remind_suggested_at: r.get(19)?,
        remind_suggestion_dismissed: r.get(20)?,
        opened_at: r.get(21)?,
    })
}
