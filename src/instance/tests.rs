use super::*;

#[test]
fn a_second_lock_on_the_same_dir_is_refused_with_the_holder_and_released_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = InstanceLock::acquire(dir.path()).unwrap();
    first
        .record(&Holder {
            pid: 42,
            url: "http://127.0.0.1:7373".into(),
        })
        .unwrap();

    let err = InstanceLock::acquire(dir.path()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "already running (pid 42, http://127.0.0.1:7373)"
    );

    drop(first);
    assert!(InstanceLock::acquire(dir.path()).is_ok());
}

#[test]
fn two_data_dirs_have_two_locks() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let _first = InstanceLock::acquire(a.path()).unwrap();
    assert!(InstanceLock::acquire(b.path()).is_ok());
}
