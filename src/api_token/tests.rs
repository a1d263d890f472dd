use super::*;

#[test]
fn the_token_is_created_once_with_mode_0600_and_then_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api-token");
    let first = load_or_create(&path).unwrap();
    assert_eq!(first.len(), 64);
    assert_eq!(load_or_create(&path).unwrap(), first);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[cfg(unix)]
#[test]
fn a_token_readable_by_others_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api-token");
    load_or_create(&path).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    let err = load_or_create(&path).unwrap_err().to_string();
    assert!(err.contains("readable by others"), "{err}");
}

fn names(dir: &Path) -> Vec<std::ffi::OsString> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect()
}

#[test]
fn an_empty_token_left_by_a_full_disk_is_replaced_and_no_temporary_file_remains() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api-token");
    fs::write(&path, b"").unwrap();
    let token = load_or_create(&path).unwrap();
    assert_eq!(token.len(), 64);
    assert_eq!(fs::read_to_string(&path).unwrap(), token);
    assert_eq!(
        names(dir.path()),
        ["api-token"],
        "nothing else left beside it"
    );
}

#[test]
fn a_failed_write_leaves_no_secret_behind() {
    // A directory where the file should go: the rename fails.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api-token");
    fs::create_dir(&path).unwrap();
    fs::write(path.join("x"), b"in the way").unwrap();
    assert!(write_atomically(&path, b"secret").is_err());
    assert_eq!(
        names(dir.path()),
        ["api-token"],
        "the temporary file was removed"
    );
}

#[test]
fn tokens_compare_exactly() {
    assert!(matches("abc", "abc"));
    assert!(!matches("abc", "abd"));
    assert!(!matches("abc", "ab"));
}
