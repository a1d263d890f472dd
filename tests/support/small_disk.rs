//! A small file system of the test's own, for disk-full tests: a tmpfs mounted on a
//! temporary directory, filled to its last page on demand (`fill`), given its space
//! back (`free`), and unmounted when dropped. A real ENOSPC from the kernel, the
//! error SQLite and the log writers meet on a full disk.
//!
//! Mounting needs root or CAP_SYS_ADMIN, which the test command and CI have (they run
//! apt). Without them `mount` panics, naming what is missing: a disk test that
//! cannot make its full disk fails rather than pass without asserting anything.

// Shared by two test binaries; each uses part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct SmallDisk {
    mount_point: tempfile::TempDir,
    filler: PathBuf,
}

impl SmallDisk {
    /// A fresh tmpfs of `size_kib` KiB. Panics when this machine does not allow one,
    /// saying what is missing.
    pub fn mount(size_kib: u64) -> SmallDisk {
        let mount_point = tempfile::tempdir().expect("a mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o"])
            .arg(format!("size={size_kib}k,mode=0700"))
            .arg("tmpfs")
            .arg(mount_point.path())
            .output();
        match mounted {
            Ok(output) if output.status.success() => {
                let filler = mount_point.path().join("filler");
                SmallDisk {
                    mount_point,
                    filler,
                }
            }
            Ok(output) => panic!(
                "this disk test cannot run: mounting its small tmpfs needs root or \
                 CAP_SYS_ADMIN (run the tests as root, as scripts/test.sh and CI do): {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            Err(e) => panic!(
                "this disk test cannot run: the `mount` command (util-linux), run as \
                 root or with CAP_SYS_ADMIN, mounts its small tmpfs: {e}"
            ),
        }
    }

    pub fn path(&self) -> &Path {
        self.mount_point.path()
    }

    /// Takes every free byte, so the next write that needs a new page fails with ENOSPC.
    pub fn fill(&self) {
        let mut file = std::fs::File::create(&self.filler).expect("the filler file");
        let chunk = vec![0u8; 4096];
        loop {
            match file.write(&chunk) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.raw_os_error() == Some(28) => break, // ENOSPC
                Err(e) => panic!("filling the small disk: {e}"),
            }
        }
    }

    /// Remounts the file system read-only (nothing may have a file open for writing).
    pub fn make_read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.mount_point.path())
            .status()
            .expect("run mount");
        assert!(status.success(), "remount read-only");
    }

    /// Gives the space back.
    pub fn free(&self) {
        std::fs::remove_file(&self.filler).expect("remove the filler");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazy: a file still open (a database) must not keep the mount around.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.mount_point.path())
            .status();
    }
}
