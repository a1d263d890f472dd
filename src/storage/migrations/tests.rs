use super::*;

fn columns(conn: &Connection, table: &str) -> Vec<String> {
    let mut stmt = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_fresh_database_gets_every_migration_and_its_version_recorded() {
    let mut conn = Connection::open_in_memory().unwrap();
    assert_eq!(migrate(&mut conn, MIGRATIONS).unwrap(), MIGRATIONS.len());
    assert_eq!(current_version(&conn).unwrap(), MIGRATIONS.len());
    assert_eq!(migrate(&mut conn, MIGRATIONS).unwrap(), 0, "idempotent");
}

#[test]
fn a_database_made_by_migration_1_only_is_upgraded_with_its_data_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let mut conn = Connection::open(&path).unwrap();
        migrate(&mut conn, &MIGRATIONS[..1]).unwrap();
        conn.execute_batch(
                "INSERT INTO notes (id, body, created_at, updated_at)
                   VALUES ('n1', 'old thought', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
                 INSERT INTO pending_jobs (note_id, attempts, next_run_at, last_error)
                   VALUES ('n1', 2, '2026-01-01T00:01:00.000Z', 'boom');",
            )
            .unwrap();
        assert!(!columns(&conn, "pending_jobs").contains(&"wait_reason".to_string()));
    }
    let mut conn = Connection::open(&path).unwrap();
    assert_eq!(
        migrate(&mut conn, MIGRATIONS).unwrap(),
        MIGRATIONS.len() - 1
    );
    assert!(columns(&conn, "pending_jobs").contains(&"wait_reason".to_string()));
    let (body, attempts, error): (String, i64, String) = conn
            .query_row(
                "SELECT n.body, j.attempts, j.last_error FROM notes n JOIN pending_jobs j ON j.note_id = n.id",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
    assert_eq!(
        (body.as_str(), attempts, error.as_str()),
        ("old thought", 2, "boom")
    );
}

#[test]
fn the_change_log_made_again_by_0010_keeps_its_rows_and_numbers() {
    let mut conn = Connection::open_in_memory().unwrap();
    migrate(&mut conn, &MIGRATIONS[..9]).unwrap();
    conn.execute_batch(
        "INSERT INTO note_changes (note_id, kind, at) VALUES
               ('a', 'captured', '2026-01-01T00:00:00.000Z'),
               ('a', 'edited', '2026-01-01T00:00:01.000Z'),
               ('b', 'captured', '2026-01-01T00:00:02.000Z');
             -- the newest rows compacted away: their numbers are not to come again
             DELETE FROM note_changes WHERE seq = 3;",
    )
    .unwrap();
    migrate(&mut conn, MIGRATIONS).unwrap();
    let rows: Vec<(i64, String)> = conn
        .prepare("SELECT seq, kind FROM note_changes ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, [(1, "captured".into()), (2, "edited".into())]);
    conn.execute(
        "INSERT INTO note_changes (note_id, kind, at) VALUES ('a', 'reminded', 'x')",
        [],
    )
    .unwrap();
    assert_eq!(conn.last_insert_rowid(), 4, "3 was handed out before");
    assert!(conn
        .execute(
            "INSERT INTO note_changes (note_id, kind, at) VALUES ('a', 'other', 'x')",
            [],
        )
        .is_err());
    assert!(columns(&conn, "notes").contains(&"remind_at".to_string()));
}

#[test]
fn a_failing_migration_leaves_the_database_at_its_old_version() {
    let mut conn = Connection::open_in_memory().unwrap();
    migrate(&mut conn, &MIGRATIONS[..1]).unwrap();
    let broken = [
        Migration {
            name: "0001_init.sql",
            sql: MIGRATIONS[0].sql,
        },
        Migration {
            name: "0002_ok.sql",
            sql: "CREATE TABLE extra (x INTEGER);",
        },
        Migration {
            name: "0003_broken.sql",
            sql: "THIS IS NOT SQL;",
        },
    ];
    let err = migrate(&mut conn, &broken).unwrap_err();
    assert!(err.to_string().contains("0003_broken.sql"), "{err}");
    assert_eq!(current_version(&conn).unwrap(), 1);
    assert!(columns(&conn, "extra").is_empty(), "0002 was rolled back");
}

#[test]
fn a_database_from_a_newer_build_is_refused() {
    let mut conn = Connection::open_in_memory().unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    assert!(matches!(
        migrate(&mut conn, MIGRATIONS),
        Err(MigrationError::TooNew { found: 99, .. })
    ));
}
