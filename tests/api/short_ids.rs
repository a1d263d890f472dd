//! A note named by any unique start of its id, in the CLI and the API (issue #42
//! point 5): notes captured close together share their ids' first dozen characters,
//! so lists print the shortest start that names each, and every command taking an id
//! takes any start no other note's id has, saying which notes match when several do.

use serde_json::Value;

use crate::helpers::{free_port, ServiceProcess};
use crate::service_process::blocking_request;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn get(service: &ServiceProcess, port: u16, path: &str) -> (u16, Value) {
    let token = service.token().expect("the API token");
    let (status, body) =
        blocking_request(port, "GET", path, Some(&token), None).expect("an answer");
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[test]
fn any_unique_start_of_an_id_names_its_note_and_lists_show_the_shortest() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let mut ids = Vec::new();
    for body in ["call the plumber", "buy oat milk", "renew the insurance"] {
        let out = service.cli(&["--json", "capture", body]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let note: Value = serde_json::from_slice(&out.stdout).unwrap();
        ids.push(note["id"].as_str().unwrap().to_string());
    }
    // Captured within a second: their ids begin with the same time, so they share a
    // start (the first 8 characters change every 65 s).
    let common = (0..36)
        .take_while(|&i| {
            ids.iter()
                .all(|id| id.as_bytes()[i] == ids[0].as_bytes()[i])
        })
        .count();
    assert!(common >= 6, "{ids:?}");
    let shared = &ids[0][..common];

    // The API: the notes a start matches, and the shortest start of each.
    let (status, matched) = get(&service, port, &format!("/api/notes/ids?prefix={shared}"));
    assert_eq!(status, 200, "{matched}");
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(matched["ids"], serde_json::json!(sorted));
    assert_eq!(matched["more"], false);
    let (status, refused) = get(&service, port, "/api/notes/ids?prefix=01a2%25");
    assert_eq!(status, 400, "{refused}");

    // The list prints each note's shortest unique start, which names it.
    let list = text(&service.cli(&["list"]).stdout);
    let shown: Vec<&str> = list
        .lines()
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(shown.len(), 3, "{list}");
    for short in &shown {
        assert!(short.len() >= 8 && short.len() < 36, "{list}");
        let owners: Vec<&String> = ids.iter().filter(|id| id.starts_with(short)).collect();
        assert_eq!(owners.len(), 1, "{short} names one note: {list}");
        let show = service.cli(&["--json", "show", short]);
        assert!(show.status.success(), "{}", text(&show.stderr));
        let note: Value = serde_json::from_slice(&show.stdout).unwrap();
        assert_eq!(note["id"].as_str(), Some(owners[0].as_str()));
    }
    // In capitals too, as a person may copy it.
    let upper = shown[0].to_uppercase();
    assert!(service.cli(&["show", &upper]).status.success());

    // A start several notes share is refused, naming them; nothing changes.
    let trash = service.cli(&["trash", shared]);
    assert_eq!(trash.status.code(), Some(1));
    let said = text(&trash.stderr);
    assert!(
        said.contains(&format!("{shared} begins the ids of 3 notes")),
        "{said}"
    );
    assert!(ids.iter().all(|id| said.contains(id.as_str())), "{said}");
    let (_, listed) = get(&service, port, "/api/notes");
    assert_eq!(listed.as_array().map(Vec::len), Some(3), "none was trashed");
    // A start no note has.
    let none = service.cli(&["show", "ffff"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        text(&none.stderr).contains("no note's id begins with ffff"),
        "{}",
        text(&none.stderr)
    );
    // A unique start works for every command taking an id: trash, then restore.
    assert!(service.cli(&["trash", shown[1]]).status.success());
    assert!(service.cli(&["restore", shown[1]]).status.success());
}
