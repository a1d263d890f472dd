//! A private X server for a test: Xvfb on a display it picks itself, killed on drop.
//! Needs Xvfb (Debian's xvfb; scripts/test.sh installs it); without it the test fails
//! saying so.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The server; killed on drop.
pub struct XServer {
    process: Child,
    /// Its display name (`:N`), for `DISPLAY`.
    pub display: String,
}

impl XServer {
    /// Starts one whose screen is `screen` (`WIDTHxHEIGHTxDEPTH`).
    pub fn start(screen: &str) -> XServer {
        // -displayfd: Xvfb picks a free display number and writes it once it accepts
        // clients, so neither a fixed number nor a wait is needed.
        let mut process = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                screen,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is missing: scripts/test.sh installs it (Debian package xvfb)");
        let mut line = String::new();
        BufReader::new(process.stdout.take().expect("Xvfb's output"))
            .read_line(&mut line)
            .expect("Xvfb says its display");
        assert!(!line.trim().is_empty(), "Xvfb did not start");
        XServer {
            process,
            display: format!(":{}", line.trim()),
        }
    }
}

impl Drop for XServer {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}
