//! `inkling export-notes --out` into a folder other users can write to (`/tmp`): the
//! export's folder name is predictable (`notes-<time>`), so another real user
//! (`inkling-test-other`, tests/support/other_user.rs) can plant it first, as a folder
//! or a link. The export makes its own folder, under a fresh name, and writes nothing
//! into what it did not make (docs/SECURITY.md).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::other_user::OtherUser;
use crate::ports::free_port;
use crate::service_process::ServiceProcess;

/// Plants, as the other user, every `notes-<time>` of the next two minutes in `shared`:
/// open folders (mode 0777) for even seconds, links to a folder of its own for odd
/// ones. Prints the link target.
const PLANT: &str = r#"
import datetime, os, sys
shared = sys.argv[1]
target = os.path.join(shared, "the-other-users-own")
os.mkdir(target)
os.chmod(target, 0o777)
now = datetime.datetime.now(datetime.timezone.utc)
for s in range(-5, 120):
    at = now + datetime.timedelta(seconds=s)
    path = os.path.join(shared, at.strftime("notes-%Y-%m-%dT%H-%M-%S"))
    if at.second % 2 == 0:
        os.mkdir(path)
        os.chmod(path, 0o777)
    else:
        os.symlink(target, path)
print(target)
"#;

fn entries(folder: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// Before, the export failed ("cannot create …: File exists") whenever the name was
/// planted. Now it makes a folder of its own with a fresh name; the planted folders
/// and the link's target stay empty.
#[test]
fn an_export_into_a_shared_folder_is_not_blocked_or_redirected_by_names_another_user_planted() {
    let other = OtherUser::get();
    let data_dir = tempfile::tempdir().unwrap();
    let service = ServiceProcess::start(data_dir.path(), free_port());
    assert!(service
        .cli(&["capture", "my bank PIN is 4711"])
        .status
        .success());

    // A shared folder, as /tmp is: anyone may add a name, only its owner remove it.
    let shared = tempfile::tempdir().unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let planted = other.run_python(PLANT, &[shared.path().to_str().unwrap()]);
    assert!(
        planted.status.success(),
        "{}",
        String::from_utf8_lossy(&planted.stderr)
    );
    let target = PathBuf::from(String::from_utf8_lossy(&planted.stdout).trim());
    let before = entries(shared.path());

    for format in ["markdown", "json"] {
        let output = service.cli(&[
            "--json",
            "export-notes",
            "--format",
            format,
            "--out",
            shared.path().to_str().unwrap(),
        ]);
        assert!(
            output.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let said: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(said["notes"], 1, "{said}");
        let folder = PathBuf::from(said["path"].as_str().unwrap());
        assert!(
            !before.contains(&folder),
            "{format}: wrote into a planted name {folder:?}"
        );
        let meta = std::fs::symlink_metadata(&folder).unwrap();
        assert!(meta.is_dir(), "{folder:?}");
        // SAFETY: geteuid has no preconditions.
        assert_eq!(
            meta.uid(),
            unsafe { libc::geteuid() },
            "the export's own folder"
        );
        assert_eq!(meta.mode() & 0o777, 0o700);
        assert_eq!(entries(&folder).len(), 1, "{format}: its note");
    }
    for name in &before {
        if name.is_dir() && name != &target {
            assert!(entries(name).is_empty(), "nothing written into {name:?}");
        }
    }
    assert!(
        entries(&target).is_empty(),
        "nothing written through the links"
    );
}
