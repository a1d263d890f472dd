//! Paired devices and the web clipper, as they cross the wire: the pairing code that
//! `inkling pair` shows, what an extension sends to trade it (`POST /pair`) and what it
//! gets back, a paired device as `inkling sessions` lists it, and a clipped page
//! (`POST /api/clip`) with the rule that turns it into a note's Markdown.
//!
//! The clip's rule lives here, beside its request, because it is plain data → text and
//! both the route and its tests read it; the service's side (who may clip) is in
//! `src/http/scopes.rs` and `src/devices.rs`.

use serde::{Deserialize, Serialize};

/// What a credential may do. The token and the page's sessions are `Full`; a paired
/// device is `Capture`: it may save a note and nothing else (`src/http/scopes.rs` says
/// which routes each may reach).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Capture,
    Full,
}

impl Scope {
    /// Whether a credential of this scope may use a route that needs `required`.
    pub fn admits(self, required: Scope) -> bool {
        self == Scope::Full || self == required
    }
}

/// `POST /api/devices/pairing-code` → a code for `POST /pair`, one use, for a few
/// minutes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairingCode {
    pub code: String,
    pub expires_in_s: u64,
}

/// `POST /pair` body: the code shown by `inkling pair`, and a name for the device
/// ("Chromium clipper"), which `inkling sessions` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairRequest {
    pub code: String,
    pub name: String,
}

/// `POST /pair` → the device's token (capture only), shown this once; the service
/// keeps its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    pub id: String,
    pub name: String,
    pub token: String,
    pub scope: Scope,
}

/// A paired device, as `GET /api/devices` lists it (never its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceView {
    pub id: String,
    pub name: String,
    pub scope: Scope,
    pub paired_at: chrono::DateTime<chrono::Utc>,
    pub last_used: chrono::DateTime<chrono::Utc>,
}

/// The longest page address a clip takes (browsers' own limits are near this).
pub const MAX_URL_CHARS: usize = 2048;
/// The longest page title a clip takes.
pub const MAX_TITLE_CHARS: usize = 500;

/// `POST /api/clip` body: the page being read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipRequest {
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The text selected on the page, if any.
    #[serde(default)]
    pub selection: String,
}

impl ClipRequest {
    /// The note's Markdown: the link (`[title](url)`), then the selection quoted
    /// (`> …`), or a sentence saying what is wrong with the clip (nothing is saved).
    /// The size of the whole is held to the note limit by `NoteBody::parse`.
    pub fn to_markdown(&self) -> Result<String, String> {
        let url = checked_url(&self.url)?;
        let title = one_line(&self.title);
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(format!(
                "the page's title is longer than {MAX_TITLE_CHARS} characters"
            ));
        }
        let text = if title.is_empty() { url } else { &title };
        let mut markdown = format!("[{}]({})", escape_link_text(text), escape_url(url));
        let selection = self.selection.trim();
        if !selection.is_empty() {
            markdown.push_str("\n\n");
            for line in selection.lines() {
                let line = line.trim_end();
                if line.is_empty() {
                    markdown.push_str(">\n");
                } else {
                    markdown.push_str("> ");
                    markdown.push_str(line);
                    markdown.push('\n');
                }
            }
            markdown.truncate(markdown.trim_end().len());
        }
        Ok(markdown)
    }
}

/// An `http` or `https` address with a host and nothing a link cannot hold.
fn checked_url(url: &str) -> Result<&str, String> {
    let url = url.trim();
    if url.is_empty() {
        return Err("a clip needs the page's address (url)".into());
    }
    if url.chars().count() > MAX_URL_CHARS {
        return Err(format!(
            "the page's address is longer than {MAX_URL_CHARS} characters"
        ));
    }
    let lower = url.to_ascii_lowercase();
    let rest = ["http://", "https://"]
        .iter()
        .find_map(|scheme| lower.strip_prefix(scheme))
        .ok_or("only http:// and https:// pages can be clipped")?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err("the page's address has no host".into());
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("the page's address holds spaces or control characters".into());
    }
    Ok(url)
}

/// A title on one line: control characters and line breaks become spaces, runs of
/// spaces one.
fn one_line(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Link text that cannot close the link or start markup of its own.
fn escape_link_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | ']' | '\\' | '*' | '_' | '`' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Parentheses would end the link's destination early: percent-encoded, they mean
/// the same address.
fn escape_url(url: &str) -> String {
    url.replace('(', "%28").replace(')', "%29")
}

#[cfg(test)]
mod tests;
