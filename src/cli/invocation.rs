//! One run of a client command: what every command of that run shares.

use std::path::PathBuf;

use super::output::Output;
use crate::client::ServiceClient;

/// One run of a client command: the service it talks to, where its answers go, and
/// what every command shares.
pub(crate) struct Invocation<'a> {
    pub(super) client: &'a ServiceClient,
    pub(super) out: Output,
    /// `--json`: the service's answer as JSON instead of text.
    pub(super) json: bool,
    /// `http.max_body_bytes`: a note read from standard input or a file is refused
    /// above it before it is sent.
    pub(super) max_body_bytes: usize,
    /// Where `export-notes` makes its folder without `--out`.
    pub(super) exports_dir: PathBuf,
    /// `quick.browser`: what `inkling quick` opens its window with.
    pub(super) quick_browser: String,
}
