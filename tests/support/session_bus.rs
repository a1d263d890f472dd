//! A private D-Bus session bus for a test: `dbus-daemon --session` on a socket in a
//! temporary folder, killed on drop. Needs `dbus-daemon` (Debian's dbus-daemon;
//! scripts/test.sh installs it); without it the test fails saying so.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The daemon; it is killed, and its socket's folder removed, on drop.
pub struct SessionBus {
    child: Child,
    /// The bus's address, for `zbus::connection::Builder::address`.
    pub address: String,
    _dir: tempfile::TempDir,
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SessionBus {
    pub fn start() -> SessionBus {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut child = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .arg(format!(
                "--address=unix:path={}",
                dir.path().join("bus.sock").display()
            ))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "cannot start dbus-daemon: install Debian's dbus-daemon (scripts/test.sh does)",
            );
        let mut address = String::new();
        let stdout = child.stdout.take().expect("its standard output");
        BufReader::new(stdout)
            .read_line(&mut address)
            .expect("dbus-daemon prints its address");
        assert!(!address.trim().is_empty(), "dbus-daemon printed no address");
        SessionBus {
            child,
            address: address.trim().to_string(),
            _dir: dir,
        }
    }
}
