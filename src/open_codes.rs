//! One-time codes that open the inbox page: what `inkling open` and the tray's "Open
//! inbox" put in the address instead of the API token.
//!
//! The token in the address went into `xdg-open`'s arguments (which every user on the
//! machine can read with `ps`) and into the browser's history, for good. A code is
//! random, good for one minute and one use: the page trades it for its session at once,
//! so a copy read from `ps` or the history a moment later opens nothing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a code can be traded.
pub const VALID_FOR: Duration = Duration::from_secs(60);

/// The codes handed out and not traded yet.
#[derive(Debug, Default)]
pub struct OpenCodes {
    minted: Mutex<HashMap<String, Instant>>,
}

impl OpenCodes {
    /// A new code, good for [`VALID_FOR`] from `now`.
    pub fn mint(&self, now: Instant) -> anyhow::Result<String> {
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes)
            .map_err(|e| anyhow::anyhow!("no randomness for a code: {e}"))?;
        let code: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut minted = self.minted.lock().unwrap_or_else(|p| p.into_inner());
        // Codes nobody traded (a browser that never opened) go with the next one.
        minted.retain(|_, at| now.duration_since(*at) <= VALID_FOR);
        minted.insert(code.clone(), now);
        Ok(code)
    }

    /// Trades `code`: true once, within [`VALID_FOR`] of its minting; never again.
    pub fn redeem(&self, code: &str, now: Instant) -> bool {
        let mut minted = self.minted.lock().unwrap_or_else(|p| p.into_inner());
        minted
            .remove(code)
            .is_some_and(|at| now.duration_since(at) <= VALID_FOR)
    }
}

#[cfg(test)]
mod tests;
