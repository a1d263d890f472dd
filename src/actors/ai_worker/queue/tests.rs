use super::*;

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("in range")
}

#[test]
fn the_earliest_job_comes_first_and_ties_go_by_note_id() {
    let mut queue = Queue::default();
    queue.upsert("b".into(), QueuedJob::fresh(at(10)));
    queue.upsert("c".into(), QueuedJob::fresh(at(5)));
    queue.upsert("a".into(), QueuedJob::fresh(at(10)));
    assert_eq!(queue.first(), Some((at(5), "c")));
    assert_eq!(queue.ids_in_order().collect::<Vec<_>>(), ["c", "a", "b"]);
}

#[test]
fn the_latest_due_jobs_come_from_the_end_and_not_yet_due_ones_are_left_out() {
    let mut queue = Queue::default();
    for (id, seconds) in [("a", 1), ("b", 5), ("c", 10), ("later", 100)] {
        queue.upsert(id.into(), QueuedJob::fresh(at(seconds)));
    }
    let latest: Vec<&str> = queue.latest_due(at(10)).map(|(_, id)| id).collect();
    assert_eq!(latest, ["c", "b", "a"], "due at 10 is due by 10");
    assert_eq!(queue.latest_due(at(0)).count(), 0);
}

#[test]
fn replacing_or_rescheduling_a_job_leaves_one_entry_in_the_order() {
    let mut queue = Queue::default();
    queue.upsert("a".into(), QueuedJob::fresh(at(10)));
    queue.upsert("a".into(), QueuedJob::fresh(at(20)));
    queue.reschedule("a", at(30), Some(WaitReason::Retry));
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.ids_in_order().count(), 1);
    assert_eq!(queue.first(), Some((at(30), "a")));
    queue.reschedule("not queued", at(0), None);
    assert_eq!(queue.len(), 1, "rescheduling never adds a job");
    assert!(queue.remove("a").is_some());
    assert!(queue.is_empty() && queue.first().is_none());
}

#[test]
fn only_jobs_parked_on_the_provider_and_not_yet_due_wait_on_it() {
    let mut queue = Queue::default();
    let parked = QueuedJob {
        wait_reason: Some(WaitReason::Provider),
        ..QueuedJob::fresh(at(60))
    };
    queue.upsert("parked".into(), parked);
    queue.upsert(
        "due".into(),
        QueuedJob {
            next_run_at: at(0),
            ..parked
        },
    );
    queue.upsert(
        "retry".into(),
        QueuedJob {
            wait_reason: Some(WaitReason::Retry),
            ..parked
        },
    );
    assert_eq!(queue.waiting_on_provider(at(0)), ["parked"]);
}
