//! `GET /api/changes` (issue #36 point 3): the change log a page at a time over HTTP,
//! bad input refused; and the log kept whole by the real binary killed with SIGKILL
//! while it writes: every note stored has its change, and the numbers follow each other
//! with no gap.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use inkling::api::changes::{ChangeKind, ChangesPage};
use inkling::storage::Store;
use serde_json::json;

use crate::helpers::{blocking_request, free_port, spawn_app, ServiceProcess};

#[actix_rt::test]
async fn the_changes_come_a_page_at_a_time_oldest_first_with_the_next_page_s_since() {
    let app = spawn_app().await;
    let a = app.capture("first").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let b = app.capture("second").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = app
        .post_json(&format!("/api/notes/{a}/trash"), &json!({}))
        .await;
    assert_eq!(status, 200);

    let page = |path: String| {
        let app = &app;
        async move {
            let (status, body) = app.get(&path).await;
            assert_eq!(status, 200, "{body}");
            serde_json::from_value::<ChangesPage>(body).unwrap()
        }
    };
    let first = page("/api/changes?since=0&limit=2".into()).await;
    let seen: Vec<(&str, ChangeKind)> = first
        .changes
        .iter()
        .map(|c| (c.note_id.as_str(), c.kind))
        .collect();
    assert_eq!(
        seen,
        [
            (a.as_str(), ChangeKind::Captured),
            (b.as_str(), ChangeKind::Captured)
        ]
    );
    assert_eq!((first.next, first.more), (first.changes[1].seq, true));

    let second = page(format!("/api/changes?since={}&limit=2", first.next)).await;
    assert_eq!(second.changes.len(), 1);
    assert_eq!(
        (second.changes[0].note_id.as_str(), second.changes[0].kind),
        (a.as_str(), ChangeKind::Trashed)
    );
    assert_eq!((second.next, second.more), (second.changes[0].seq, false));

    let none = page(format!("/api/changes?since={}", second.next)).await;
    assert!(none.changes.is_empty());
    assert_eq!(
        (none.next, none.more),
        (second.next, false),
        "the same since: nothing new"
    );
    let all = page("/api/changes".into()).await;
    assert_eq!(all.changes.len(), 3, "no since: from the beginning");
}

#[actix_rt::test]
async fn a_bad_since_or_limit_is_refused_with_the_reason_and_no_credential_is_refused() {
    let app = spawn_app().await;
    for (query, says) in [
        ("since=-1", "since"),
        ("since=soon", "since"),
        ("limit=0", "limit"),
        ("limit=5001", "limit"),
        ("limit=-3", "limit"),
        ("after=3", "after"),
    ] {
        let (status, body) = app.get(&format!("/api/changes?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{query}: {body}");
    }
    let (status, _) = app.get_with_auth("/api/changes", None).await;
    assert_eq!(status, 401);
}

/// What the change log holds: `(seq, note, kind)`, oldest first.
fn the_log(store: &Store) -> Vec<(i64, String, ChangeKind)> {
    store
        .changes_after(0, usize::MAX)
        .unwrap()
        .into_iter()
        .map(|c| (c.seq, c.note_id, c.kind))
        .collect()
}

/// Four clients capturing, and trashing every third note they captured, as fast as the
/// service answers, until it is gone.
struct Writers {
    clients: Vec<std::thread::JoinHandle<()>>,
    captured: Arc<Mutex<Vec<String>>>,
    trashed: Arc<Mutex<Vec<String>>>,
}

impl Writers {
    fn start(port: u16, token: &str, round: usize) -> Writers {
        let captured = Arc::new(Mutex::new(Vec::<String>::new()));
        let trashed = Arc::new(Mutex::new(Vec::<String>::new()));
        let clients = (0..4)
            .map(|client| {
                let (captured, trashed) = (captured.clone(), trashed.clone());
                let token = token.to_string();
                std::thread::spawn(move || {
                    for i in 0.. {
                        let body =
                            format!(r#"{{"body": "round {round} client {client} note {i}"}}"#);
                        let Ok((201, reply)) =
                            blocking_request(port, "POST", "/api/notes", Some(&token), Some(&body))
                        else {
                            return; // the service is gone
                        };
                        let note: serde_json::Value = serde_json::from_str(&reply).unwrap();
                        let id = note["id"].as_str().unwrap().to_string();
                        captured.lock().unwrap().push(id.clone());
                        if i % 3 == 0 {
                            let path = format!("/api/notes/{id}/trash");
                            match blocking_request(port, "POST", &path, Some(&token), Some("{}")) {
                                Ok((200, _)) => trashed.lock().unwrap().push(id),
                                _ => return,
                            }
                        }
                    }
                })
            })
            .collect();
        Writers {
            clients,
            captured,
            trashed,
        }
    }

    /// Once `count` captures were acknowledged.
    fn wait_for(&self, count: usize) {
        while self.captured.lock().unwrap().len() < count {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The notes whose capture, and those whose trashing, the service acknowledged
    /// (once it is gone: each client ends at its first refused request).
    fn finish(self) -> (Vec<String>, Vec<String>) {
        for client in self.clients {
            client.join().unwrap();
        }
        let captured = self.captured.lock().unwrap().clone();
        let trashed = self.trashed.lock().unwrap().clone();
        (captured, trashed)
    }
}

#[test]
fn every_note_keeps_its_change_and_the_log_has_no_gap_after_kill_9_mid_write() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let db = dir.path().join("inkling.db");
    let (mut all_captured, mut all_trashed) = (Vec::new(), Vec::new());
    for round in 0..3 {
        let mut service = ServiceProcess::start(dir.path(), port);
        let token = service.token().unwrap();
        let writers = Writers::start(port, &token, round);
        writers.wait_for(150);
        service.child.kill().unwrap(); // SIGKILL, mid-write
        service.child.wait().unwrap();
        let (captured, trashed) = writers.finish();
        all_captured.extend(captured);
        all_trashed.extend(trashed);

        let store = Store::open(&db, 30).unwrap();
        assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
        let log = the_log(&store);
        for (i, (seq, _, _)) in log.iter().enumerate() {
            assert_eq!(
                *seq,
                i as i64 + 1,
                "round {round}: the log's numbers have a gap"
            );
        }
        let changed = |id: &str, kind| log.iter().any(|(_, n, k)| n == id && *k == kind);
        for id in &all_captured {
            assert!(
                changed(id, ChangeKind::Captured),
                "round {round}: {id}'s capture is not in the log"
            );
        }
        for id in &all_trashed {
            assert!(
                changed(id, ChangeKind::Trashed),
                "round {round}: {id}'s trashing is not in the log"
            );
        }
        // Nothing in the log that is not stored: each change's note is there (none was
        // deleted), and a trashed one is in the trash.
        for (seq, id, kind) in &log {
            let note = store
                .get(id)
                .unwrap_or_else(|e| panic!("change {seq} names {id}, which is not stored: {e}"));
            if *kind == ChangeKind::Trashed {
                assert!(
                    note.deleted_at.is_some(),
                    "change {seq}: {id} is not in the trash"
                );
            }
        }
    }

    // Started again, the service pages through the same log.
    let store = Store::open(&db, 30).unwrap();
    let log = the_log(&store);
    drop(store);
    let service = ServiceProcess::start(dir.path(), port);
    let token = service.token().unwrap();
    let (mut since, mut read) = (0, Vec::new());
    loop {
        let path = format!("/api/changes?since={since}&limit=100");
        let (status, body) = blocking_request(port, "GET", &path, Some(&token), None).unwrap();
        assert_eq!(status, 200, "{body}");
        let page: ChangesPage = serde_json::from_str(&body).unwrap();
        read.extend(page.changes.into_iter().map(|c| (c.seq, c.note_id, c.kind)));
        since = page.next;
        if !page.more {
            break;
        }
    }
    assert_eq!(read, log);
}

#[test]
fn inkling_changes_prints_a_page_of_the_log_and_where_the_next_begins() {
    let dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(dir.path(), free_port());
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    for body in ["first", "second"] {
        assert!(service.cli(&["capture", body]).status.success());
    }

    let page = service.cli(&["changes", "--limit", "1"]);
    assert!(page.status.success(), "{}", text(&page.stderr));
    let lines: Vec<String> = text(&page.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("1  ") && lines[0].contains("captured"),
        "{lines:?}"
    );
    assert_eq!(lines[1], "next: --since 1 (more follow)");

    let rest = service.cli(&["--json", "changes", "--since", "1"]);
    let rest: ChangesPage = serde_json::from_slice(&rest.stdout).unwrap();
    assert_eq!((rest.changes.len(), rest.next, rest.more), (1, 2, false));

    let refused = service.cli(&["changes", "--limit", "0"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("limit"),
        "{}",
        text(&refused.stderr)
    );
}
