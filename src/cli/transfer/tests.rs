use super::*;

#[test]
fn a_folder_is_read_once_without_following_links() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let folder = dir.path().join("notes");
    std::fs::create_dir_all(folder.join("sub")).expect("folders");
    std::fs::write(folder.join("a.md"), "first").expect("a note");
    std::fs::write(folder.join("sub").join("b.md"), "second").expect("a note");
    let outside = dir.path().join("outside.md");
    std::fs::write(&outside, "not in the folder").expect("a note");
    // A link to the folder itself (it would loop) and one to a file elsewhere.
    std::os::unix::fs::symlink(&folder, folder.join("again")).expect("a link");
    std::os::unix::fs::symlink(&outside, folder.join("elsewhere.md")).expect("a link");
    let notes = read_notes(&folder).expect("read");
    let bodies: Vec<&str> = notes.iter().map(|(_, note)| note.body.as_str()).collect();
    assert_eq!(bodies, ["first", "second"]);
}
