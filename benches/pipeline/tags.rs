//! The tag benchmarks: the prompt's most used tags and an answer's save over 100,000
//! tagged notes, and a rename over 20,000 of them while a client captures.

use std::rc::Rc;
use std::time::Instant;

use chrono::Utc;
use inkling::actors::repository::{CaptureNote, RepositoryActor};
use inkling::storage::Store;

use crate::{body, report};

/// Notes and distinct tags of the tags benchmark.
pub(crate) const TAG_NOTES: usize = 100_000;
const DISTINCT_TAGS: usize = 2_000;
const TAG_ROUNDS: usize = 200;

/// [`TAG_NOTES`] done notes with three tags each (a few tags on many notes, most on a
/// few: tag k's share falls as 1/k), each body `tagged note {i}` then `filler`.
pub(crate) fn tagged_notes(filler: &str) -> Vec<inkling::domain::Note> {
    let pick = |i: usize, j: usize| {
        let x = ((i * 7 + j * 13) % 1_000 + 1) as f64 / 1_000.0;
        let k = ((DISTINCT_TAGS as f64).powf(x) as usize).min(DISTINCT_TAGS);
        format!("topic {k}")
    };
    let at = inkling::domain::timestamp(Utc::now());
    (0..TAG_NOTES)
        .map(|i| inkling::domain::Note {
            id: String::new(),
            body: format!("tagged note {i}{filler}"),
            title: Some(format!("Note {i}")),
            summary: Some("A summary.".into()),
            tags: {
                let mut tags: Vec<String> = (0..3).map(|j| pick(i, j)).collect();
                tags.dedup();
                tags
            },
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
        .collect()
}

pub(crate) async fn tags() {
    println!(
        "tags: {TAG_NOTES} notes with 3 tags each out of {DISTINCT_TAGS}, {TAG_ROUNDS} rounds"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, 30).unwrap();
    let notes = tagged_notes("");
    store.import(&notes, Utc::now()).unwrap();
    let distinct = store.tags(None).unwrap().len();
    println!("  ({distinct} distinct tags in use)");

    let mut vocabulary = Vec::new();
    let started = Instant::now();
    for _ in 0..TAG_ROUNDS {
        let at = Instant::now();
        let top = store
            .tags(Some(inkling::tags::VOCABULARY_IN_PROMPT))
            .unwrap();
        vocabulary.push(at.elapsed());
        assert_eq!(top.len(), inkling::tags::VOCABULARY_IN_PROMPT);
    }
    report(
        "the prompt's 50 tags (Store::tags)",
        vocabulary,
        started.elapsed(),
    );

    let ids: Vec<String> = (0..TAG_ROUNDS)
        .map(|i| store.capture(&body(i), Utc::now()).unwrap().id)
        .collect();
    let enrichment = inkling::domain::Enrichment {
        title: "A title".into(),
        tags: vec!["Topic-1".into(), "topic 17".into(), "brand new".into()],
        summary: "A summary.".into(),
        read_chars: None,
        remind_phrase: None,
    };
    let mut saves = Vec::new();
    let started = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let at = Instant::now();
        store
            .save_enrichment(id, body(i).as_str(), &enrichment, Utc::now())
            .unwrap();
        saves.push(at.elapsed());
    }
    report("save an answer, tags tidied", saves, started.elapsed());
    let mut captures = Vec::new();
    let started = Instant::now();
    for i in 0..TAG_ROUNDS {
        let at = Instant::now();
        store.capture(&body(i), Utc::now()).unwrap();
        captures.push(at.elapsed());
    }
    report("a capture, for scale", captures, started.elapsed());

    // The same without the commit's fsync, which on a slow disk hides everything else:
    // what the save itself costs (its statements, the search index's triggers and the
    // pages written to the WAL).
    store
        .connection()
        .pragma_update(None, "synchronous", "OFF")
        .unwrap();
    let ids: Vec<String> = (0..TAG_ROUNDS)
        .map(|i| store.capture(&body(i), Utc::now()).unwrap().id)
        .collect();
    let mut saves = Vec::new();
    let started = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let at = Instant::now();
        store
            .save_enrichment(id, body(i).as_str(), &enrichment, Utc::now())
            .unwrap();
        saves.push(at.elapsed());
    }
    report("save an answer, no fsync", saves, started.elapsed());
    let mut captures = Vec::new();
    let started = Instant::now();
    for i in 0..TAG_ROUNDS {
        let at = Instant::now();
        store.capture(&body(i), Utc::now()).unwrap();
        captures.push(at.elapsed());
    }
    report("a capture, no fsync", captures, started.elapsed());
}

/// Notes of the rename benchmark, and how many of them have the renamed tag.
const RENAME_NOTES: usize = 100_000;
const RENAMED_NOTES: usize = 20_000;

pub(crate) async fn rename() {
    use inkling::actors::repository::RenameTag;
    println!("rename: a tag on {RENAMED_NOTES} of {RENAME_NOTES} notes, captures meanwhile");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, 30).unwrap();
    let at = inkling::domain::timestamp(Utc::now());
    let notes: Vec<inkling::domain::Note> = (0..RENAME_NOTES)
        .map(|i| inkling::domain::Note {
            id: String::new(),
            body: format!(
                "note {i}: a thought of ordinary length about the garden, the house and the rest of the day"
            ),
            title: Some(format!("A title for note {i}")),
            summary: Some("A summary.".into()),
            tags: {
                let mut tags = vec![format!("topic {}", i % 500), format!("area {}", i % 37)];
                if i % (RENAME_NOTES / RENAMED_NOTES) == 0 {
                    tags.push("gardening".into());
                }
                tags
            },
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
    store.import(&notes, Utc::now()).unwrap();
    drop(notes);
    let hub = inkling::actors::mailbox::Mailbox::from(actix::Actor::start(
        inkling::actors::hub::Hub::default(),
    ));
    let repository = RepositoryActor::start(store, path.clone(), hub);

    // One client capturing note after note for as long as the rename runs.
    let renaming = Rc::new(std::cell::Cell::new(true));
    let capturer = {
        let repository = repository.clone();
        let renaming = renaming.clone();
        actix_rt::spawn(async move {
            let mut samples = Vec::new();
            let mut i = 0;
            while renaming.get() {
                let at = Instant::now();
                repository
                    .send(CaptureNote {
                        body: body(i),
                        now: Utc::now(),
                    })
                    .await
                    .unwrap()
                    .unwrap();
                samples.push(at.elapsed());
                i += 1;
            }
            samples
        })
    };
    let (done, ended) = tokio::sync::oneshot::channel();
    let started = Instant::now();
    repository
        .send(RenameTag {
            from: "gardening".into(),
            to: "garden".into(),
            now: Utc::now(),
            done,
        })
        .await
        .unwrap()
        .unwrap();
    let renamed = ended.await.unwrap().unwrap();
    let took = started.elapsed();
    renaming.set(false);
    let captures = capturer.await.unwrap();
    assert_eq!(renamed.notes as usize, RENAMED_NOTES);
    println!(
        "  rename of {} notes through the repository: {:.2} s",
        renamed.notes,
        took.as_secs_f64()
    );
    report(
        &format!("{} captures meanwhile", captures.len()),
        captures,
        took,
    );

    // The same rename with nothing else to do, straight on the store.
    let mut store = Store::open(&path, 30).unwrap();
    let started = Instant::now();
    let back = store.rename_tag("garden", "gardening", Utc::now()).unwrap();
    println!(
        "  rename of {} notes alone (Store::rename_tag): {:.2} s",
        back.notes,
        started.elapsed().as_secs_f64()
    );
}
