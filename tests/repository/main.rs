//! The repository (docs/DESIGN.md, "Data"): the store's operations, its invariants,
//! its list filters, its index use, and the actor in front of it. One file per feature,
//! as `src/storage/store/` is cut; the set-up they share is here.

use chrono::{DateTime, Utc};
use inkling::domain::{Enrichment, Note, NoteBody, NoteEdit};
use inkling::storage::{Job, Store, StoreResult};

mod actor;
mod changes;
mod expiry;
mod group_commit;
mod integrity;
mod invariants;
mod nearest;
mod notes;
mod queue;
mod reminders;
mod search;
mod search_index;
mod tags;
mod transfer;
mod trash;
mod vectors;

const EXPIRY_DAYS: u32 = 30;

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn store() -> Store {
    Store::open_in_memory(EXPIRY_DAYS).unwrap()
}

fn body(text: &str) -> NoteBody {
    NoteBody::parse(text.to_string(), 65536).unwrap()
}

/// Puts a note with each text in the group commit's queue, as the inbox does, at `t0`.
fn queue_all<T: AsRef<str>>(
    captures: &inkling::actors::repository::Captures,
    texts: impl IntoIterator<Item = T>,
) -> Vec<inkling::actors::repository::Queued> {
    texts
        .into_iter()
        .map(|text| captures.queue(body(text.as_ref()), inkling::domain::NoteKind::Note, t0()))
        .collect()
}

/// Captures a note at `at` and returns its id.
fn capture(store: &mut Store, text: &str, at: DateTime<Utc>) -> String {
    store.capture(&body(text), at).unwrap().id
}

/// Saves an AI answer for the note's body as it is now (what the worker read).
fn save_answer(
    store: &mut Store,
    id: &str,
    enrichment: &Enrichment,
    at: DateTime<Utc>,
) -> StoreResult<Note> {
    let body = store.get(id)?.body;
    store.save_enrichment(id, &body, enrichment, at)
}

/// Captures a note and drives it to `failed` through the store's own operations.
fn failed_note(store: &mut Store, text: &str, at: DateTime<Utc>) -> String {
    let id = capture(store, text, at);
    store.mark_ai_failed(&id, "schema: bad JSON", at).unwrap();
    id
}

fn enrichment(tags: &[&str]) -> Enrichment {
    Enrichment {
        title: "A title".into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        summary: "A summary.".into(),
        read_chars: None,
        remind_phrase: None,
    }
}

fn enriched(title: &str, tags: &[&str]) -> Enrichment {
    Enrichment {
        title: title.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        summary: "A summary.".into(),
        read_chars: None,
        remind_phrase: None,
    }
}

fn job_row(store: &Store, id: &str) -> Option<(u32, String, Option<String>)> {
    store
        .connection()
        .query_row(
            "SELECT attempts, next_run_at, last_error FROM pending_jobs WHERE note_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok()
}

fn assert_invariants(store: &Store) {
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

fn edit(body: Option<&str>, title: Option<&str>, tags: Option<&[&str]>) -> NoteEdit {
    NoteEdit::parse(
        body.map(String::from),
        title.map(String::from),
        tags.map(|tags| tags.iter().map(|t| t.to_string()).collect()),
        65536,
    )
    .unwrap()
}

/// The jobs due at `now`, earliest first, as the worker finds them: of every job of an
/// active note (`Store::all_jobs`, what it loads at start), those whose time has come.
fn due(store: &Store, now: DateTime<Utc>) -> Vec<Job> {
    store
        .all_jobs()
        .unwrap()
        .into_iter()
        .filter(|job| job.next_run_at <= now)
        .collect()
}

/// `count` done notes with `tags`, imported in one go (bodies "note 0", "note 1", …).
fn tagged_notes(store: &mut Store, count: usize, tags: &[&str]) {
    let at = inkling::domain::timestamp(t0());
    let notes: Vec<inkling::domain::Note> = (0..count)
        .map(|i| inkling::domain::Note {
            id: String::new(),
            body: format!("note {i}"),
            title: Some(format!("Title {i}")),
            summary: None,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            ai_status: inkling::domain::AiStatus::Done,
            ai_error: None,
            created_at: at.clone(),
            updated_at: at.clone(),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
            edited_at: None,
            remind_at: None,
            remind_state: None,
            kind: inkling::domain::NoteKind::Note,
            imported_at: None,
            remind_suggested_at: None,
            remind_suggestion_dismissed: false,
            opened_at: None,
        })
        .collect();
    store.import(&notes, t0()).unwrap();
}
