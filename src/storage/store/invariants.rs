//! Checks of the store after the fact, for tests, fault-injection runs and
//! diagnostics: every breach of the invariants (docs/DESIGN.md, "Data"), and the
//! query plan of a statement (the index tests).

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::{Store, StoreResult};

impl Store {
    /// Every breach of the invariants (docs/DESIGN.md, "Data"), described; empty when all hold. Tests and
    /// fault-injection runs call it after the fact.
    pub fn invariant_violations(&self) -> StoreResult<Vec<String>> {
        let checks = [
            (
                "pending notes without exactly one job row",
                "SELECT COUNT(*) FROM notes n WHERE n.ai_status = 'pending'
                   AND (SELECT COUNT(*) FROM pending_jobs j WHERE j.note_id = n.id) <> 1",
            ),
            (
                "done or failed notes with a job row",
                "SELECT COUNT(*) FROM pending_jobs j JOIN notes n ON n.id = j.note_id
                 WHERE n.ai_status <> 'pending'",
            ),
            (
                "job rows without a note",
                "SELECT COUNT(*) FROM pending_jobs j
                 WHERE NOT EXISTS (SELECT 1 FROM notes n WHERE n.id = j.note_id)",
            ),
            (
                "reminders with a time and no state, or a state and no time",
                "SELECT COUNT(*) FROM notes WHERE (remind_at IS NULL) <> (remind_state IS NULL)",
            ),
            (
                "suggested reminders beside a reminder, or after a dismissal",
                "SELECT COUNT(*) FROM notes WHERE remind_suggested_at IS NOT NULL
                   AND (remind_at IS NOT NULL OR remind_suggestion_dismissed)",
            ),
            (
                "failed notes without an error",
                "SELECT COUNT(*) FROM notes WHERE ai_status = 'failed' AND ai_error IS NULL",
            ),
            (
                "notes whose search entry is missing or stale",
                "SELECT COUNT(*) FROM notes n
                 LEFT JOIN note_search_keys k ON k.note_id = n.id
                 LEFT JOIN search_titles st ON st.rowid = k.key
                 LEFT JOIN search_bodies sb ON sb.rowid = k.key
                 WHERE k.key IS NULL
                    OR (k.key NOT IN (SELECT key FROM search_pending)
                        AND (st.rowid IS NULL OR sb.rowid IS NULL OR sb.body IS NOT n.body
                             OR st.title IS NOT coalesce(n.title, '')))",
            ),
            (
                "notes waiting for search entries they have, or that are gone",
                "SELECT COUNT(*) FROM search_pending p
                 WHERE p.key NOT IN (SELECT key FROM note_search_keys)
                    OR EXISTS (SELECT 1 FROM search_titles WHERE rowid = p.key)
                    OR EXISTS (SELECT 1 FROM search_bodies WHERE rowid = p.key)",
            ),
            (
                "tags whose search entry is missing or stale",
                "SELECT COUNT(*) FROM tag_uses u
                 LEFT JOIN tag_search_keys k ON k.tag = u.tag
                 LEFT JOIN search_tags s ON s.rowid = k.key
                 WHERE s.rowid IS NULL OR s.tag IS NOT u.tag",
            ),
            (
                "tag rows whose active flag disagrees with their note",
                "SELECT COUNT(*) FROM note_tags t JOIN notes n ON n.id = t.note_id
                 WHERE t.active IS NOT (n.deleted_at IS NULL)",
            ),
            (
                "tag counts that disagree with the notes' tags",
                "SELECT COUNT(*) FROM (
                     SELECT tag, COUNT(*) AS uses, SUM(active) AS active_uses
                     FROM note_tags GROUP BY tag) counted
                 FULL OUTER JOIN tag_uses kept USING (tag)
                 WHERE counted.uses IS NOT kept.uses
                    OR counted.active_uses IS NOT kept.active_uses",
            ),
            (
                "search entries without a note",
                "SELECT (SELECT COUNT(*) FROM search_titles) + (SELECT COUNT(*) FROM search_bodies)
                        + 2 * (SELECT COUNT(*) FROM search_pending)
                        + (SELECT COUNT(*) FROM note_search_keys) - 3 * (SELECT COUNT(*) FROM notes)",
            ),
            (
                "notes without a change in the log",
                "SELECT COUNT(*) FROM notes n
                 WHERE NOT EXISTS (SELECT 1 FROM note_changes c WHERE c.note_id = n.id)",
            ),
            (
                "notes whose tag rows disagree with their tags",
                "SELECT COUNT(*) FROM notes n
                 WHERE EXISTS (SELECT 1 FROM json_each(n.tags) j WHERE j.type = 'text'
                         AND NOT EXISTS (SELECT 1 FROM note_tags t
                                         WHERE t.note_id = n.id AND t.tag = j.value))
                    OR EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = n.id
                         AND t.tag NOT IN (SELECT value FROM json_each(n.tags)))",
            ),
            (
                "search entries without a tag",
                "SELECT (SELECT COUNT(*) FROM search_tags) + (SELECT COUNT(*) FROM tag_search_keys)
                        - 2 * (SELECT COUNT(*) FROM tag_uses)",
            ),
        ];
        let mut violations = Vec::new();
        for (what, sql) in checks {
            let count: i64 = self.conn.query_row(sql, [], |r| r.get(0))?;
            if count > 0 {
                violations.push(format!("{count} {what}"));
            }
        }
        Ok(violations)
    }

    /// `EXPLAIN QUERY PLAN` of a statement, one line per step (tests, diagnostics).
    pub fn query_plan(&self, sql: &str, args: &[Value]) -> StoreResult<Vec<String>> {
        let mut stmt = self.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let steps = stmt
            .query_map(params_from_iter(args.iter()), |r| r.get::<_, String>(3))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(steps)
    }
}
