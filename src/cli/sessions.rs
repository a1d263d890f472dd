//! The inbox page and paired devices from the command line: `inkling open` (its
//! address, with a one-time code, in the browser), `inkling quick` (the quick-capture
//! window, signed in the same way), `inkling logout --all` (every page signed out),
//! `inkling pair` (a code that pairs a device such as the web clipper) and
//! `inkling sessions [revoke ID]` (the paired devices, and unpairing one).

use super::render::{device_lines, pairing_code_lines, signed_out_line};
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

/// `inkling pair`.
pub async fn pair(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let code = run.client.pairing_code().await?;
    if run.json {
        return run.out.json(&code);
    }
    for line in pairing_code_lines(&code) {
        run.out.line(line)?;
    }
    Ok(())
}

/// `inkling sessions`: the paired devices.
pub async fn devices(run: &mut Invocation<'_>) -> Result<(), ClientError> {
    let devices = run.client.devices().await?;
    if run.json {
        return run.out.json(&devices);
    }
    for line in device_lines(&devices) {
        run.out.line(line)?;
    }
    Ok(())
}

/// `inkling sessions revoke ID`.
pub async fn revoke(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    run.client.revoke_device(id).await?;
    run.out.line(format!(
        "revoked {id}: that device can no longer save notes"
    ))
}
