use super::*;

fn date(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

#[test]
fn file_names_round_trip_and_sort_by_date_then_part() {
    let dir = tempfile::tempdir().unwrap();
    for (d, part) in [
        ("2026-03-02", 0),
        ("2026-03-01", 1),
        ("2026-03-01", 0),
        ("2026-03-01", 10),
    ] {
        fs::write(dir.path().join(file_name(date(d), part)), "").unwrap();
    }
    fs::write(dir.path().join("notes.txt"), "").unwrap();
    let order: Vec<(String, u32)> = list_files(dir.path())
        .unwrap()
        .into_iter()
        .map(|f| (f.date.to_string(), f.part))
        .collect();
    assert_eq!(
        order,
        [
            ("2026-03-01".to_string(), 0),
            ("2026-03-01".to_string(), 1),
            ("2026-03-01".to_string(), 10),
            ("2026-03-02".to_string(), 0)
        ]
    );
}

#[test]
fn a_torn_last_line_and_garbage_are_skipped_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join(file_name(date("2026-03-01"), 0)),
        concat!(
            r#"{"ts":"2026-03-01T10:00:00.000Z","kind":"note_captured","payload":{}}"#,
            "\n",
            "not json\n",
            r#"{"ts":"2026-03-01T10:01:00.000Z","kind":"ai_done","payload":{"latencyMs":5}}"#,
            "\n",
            r#"{"ts":"2026-03-01T10:02:00.000Z","kind":"ai_do"#,
        ),
    )
    .unwrap();
    let contents = read_events(dir.path()).unwrap();
    assert_eq!(contents.events.len(), 2);
    assert_eq!(contents.skipped_lines, 2);
}

#[test]
fn prune_deletes_only_days_before_the_cutoff() {
    let dir = tempfile::tempdir().unwrap();
    for d in ["2026-01-01", "2026-02-01", "2026-03-01"] {
        fs::write(dir.path().join(file_name(date(d), 0)), "").unwrap();
    }
    assert_eq!(prune(dir.path(), date("2026-02-01")).unwrap(), 1);
    assert_eq!(list_files(dir.path()).unwrap().len(), 2);
}

#[test]
fn an_export_copies_the_log_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("telemetry");
    fs::create_dir(&log).unwrap();
    fs::write(log.join(file_name(date("2026-03-01"), 0)), "line\n").unwrap();
    let out = dir.path().join("exports").join("one");
    export(&log, &out, "# stats").unwrap();
    assert_eq!(
        fs::read_to_string(out.join("events-2026-03-01.jsonl")).unwrap(),
        "line\n"
    );
    assert_eq!(fs::read_to_string(out.join("stats.md")).unwrap(), "# stats");
    assert!(export(&log, &out, "# again").is_err());
    assert_eq!(fs::read_to_string(out.join("stats.md")).unwrap(), "# stats");
}

#[cfg(unix)]
#[test]
fn a_link_among_the_log_files_is_passed_over_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("events-2026-03-01.jsonl");
    fs::write(
        &real,
        "{\"ts\":\"2026-03-01T12:00:00.000Z\",\"kind\":\"note_captured\",\"payload\":{}}\n",
    )
    .unwrap();
    // /dev/zero reads for ever: following it would fill the memory.
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("events-2026-03-02.jsonl")).unwrap();
    let files = list_files(dir.path()).unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(read_events(dir.path()).unwrap().events.len(), 1);
    assert!(open_without_following(&dir.path().join("events-2026-03-02.jsonl")).is_err());
}
