//! The inbox page from the command line: `inkling open` (its address, with a one-time
//! code, in the browser), `inkling quick` (the quick-capture window, signed in the same
//! way) and `inkling logout --all` (every page signed out).

use super::render::signed_out_line;
use super::Invocation;
use crate::client::ClientError;

/// `inkling open`: prints the address too, for when no browser opens.
pub async fn open(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let url = run.client.inbox_url().await?;
    run.out.line(&url)?;
    if let Err(e) = crate::desktop::open(&url) {
        eprintln!("inkling: {e}; open the address above yourself");
    }
    Ok(())
}

/// `inkling quick`: the quick-capture window. Prints nothing when it opens (a desktop
/// shortcut runs it); the address only when no window could be opened.
pub async fn quick(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let url = run.client.quick_url().await?;
    if let Err(e) = crate::desktop::quick::open_window(&url, &run.quick_browser) {
        run.out.line(&url)?;
        eprintln!("inkling: {e}; open the address above yourself");
    }
    Ok(())
}

/// `inkling logout --all`.
pub async fn logout_all(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let ended = run.client.end_all_sessions().await?;
    if run.json {
        run.out.json(&ended)
    } else {
        run.out.line(signed_out_line(ended.count))
    }
}
