//! `inkling mcp`: a Model Context Protocol server on standard input and output, so the
//! AI tools a person already uses (Claude Desktop, editors, agents) can search, read and
//! add their notes (docs/MCP.md).
//!
//! It is a client of the running service, like every other subcommand: each tool asks
//! the service through `crate::client` and never opens the database. It starts and lists
//! its tools with the service stopped; each call then answers how to start it.
//!
//! - `tools.rs`: the tools (rmcp's `#[tool_router]`), each a short call to the client;
//! - `arguments.rs`: what each tool takes, its JSON schema and its checks;
//! - `replies.rs`: what each tool answers a model with, and its errors in plain words;
//! - `ask.rs`: `ask_notes`'s one call to the service (the merge point for `/api/ask`);
//! - `framing.rs`: each line of standard input checked before rmcp reads it (a line
//!   that is not JSON gets a parse error, a repeated key an invalid request).
//!
//! Standard output is the protocol: nothing else may write there. The log goes to
//! standard error only (no log file: the service's log is the service's).

mod arguments;
mod ask;
mod framing;
mod replies;
mod tools;

use anyhow::Context;
use rmcp::ServiceExt;

use crate::configuration::Settings;
pub use tools::{InklingTools, CAPTURE_TOOL, CAPTURE_TURNED_OFF};

/// Serves MCP on standard input and output until the client hangs up (then `Ok`).
pub fn run(settings: Settings) -> anyhow::Result<()> {
    // Standard error only: standard output carries the protocol.
    let _no_file_writer = crate::logging::init(&settings.log.level, None)?;
    // The actix runtime, for the CLI's client (awc); rmcp's `local` feature runs the
    // server's tasks on it.
    actix_rt::System::new().block_on(async move {
        let stdio = framing::checked_stdio();
        let server = InklingTools::new(settings)
            .serve((stdio.read, stdio.write))
            .await
            .context("the MCP client did not complete the handshake")?;
        server.waiting().await.context("the MCP server stopped")?;
        // rmcp's last answers reach standard output before the process ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stdio.written).await;
        Ok(())
    })
}
