//! Where the commands' answers go: standard output, written through [`Output`] rather
//! than `println!`. A reader that stops early (`inkling status | head`, `inkling list |
//! less` quit at once) closes the pipe; `println!` panics on that, while `Output`
//! turns it into [`ClientError::OutputClosed`], which ends the command quietly.

use std::fmt::Display;
use std::io::{ErrorKind, Write};

use crate::client::ClientError;

/// Standard output (or, in tests, any writer) for a command's answers.
pub struct Output {
    writer: Box<dyn Write>,
}

impl Output {
    pub fn stdout() -> Self {
        Output::new(Box::new(std::io::stdout()))
    }

    pub fn new(writer: Box<dyn Write>) -> Self {
        Output { writer }
    }

    /// `text` and a line break.
    pub fn line(&mut self, text: impl Display) -> Result<(), ClientError> {
        written(writeln!(self.writer, "{text}"))
    }

    /// `text` as it is, shown at once (a progress line rewritten in place, a report
    /// that ends with its own line break).
    pub fn text(&mut self, text: impl Display) -> Result<(), ClientError> {
        written(write!(self.writer, "{text}").and_then(|()| self.writer.flush()))
    }

    /// `value` as pretty-printed JSON (`--json`).
    pub fn json<T: serde::Serialize>(&mut self, value: &T) -> Result<(), ClientError> {
        match serde_json::to_string_pretty(value) {
            Ok(text) => self.line(text),
            Err(e) => {
                eprintln!("inkling: cannot print JSON: {e}");
                Ok(())
            }
        }
    }
}

/// A write's outcome as the command sees it: a closed pipe is the reader's choice, not
/// a failure; anything else (a full disk behind `>`) is said.
fn written(result: std::io::Result<()>) -> Result<(), ClientError> {
    result.map_err(|e| match e.kind() {
        ErrorKind::BrokenPipe => ClientError::OutputClosed,
        _ => ClientError::Other(anyhow::anyhow!("cannot write to standard output: {e}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe whose reader has gone.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_pipe_ends_the_command_quietly_and_other_errors_are_said() {
        let mut out = Output::new(Box::new(ClosedPipe));
        assert!(matches!(out.line("a"), Err(ClientError::OutputClosed)));
        assert!(matches!(out.text("a"), Err(ClientError::OutputClosed)));
        assert!(matches!(out.json(&1), Err(ClientError::OutputClosed)));
        let full = written(Err(std::io::Error::from_raw_os_error(28)));
        assert!(full
            .unwrap_err()
            .to_string()
            .starts_with("cannot write to standard output: "));
    }
}
