//! `inkling capture --clipboard`: the text on the desktop's clipboard.
//!
//! arboard reads it. On Wayland it asks the compositor through the data-control
//! protocol (wlroots-based compositors and KDE offer it; GNOME's does not, and there
//! arboard falls back to X11 through Xwayland, which sees what X11 programs copied). On
//! X11 it asks the owner of the CLIPBOARD selection, so the program that copied must
//! still be running, as for any paste. With neither display set there is no clipboard
//! at all: the message says how to pipe the text in instead.

use crate::client::ClientError;

/// Whether this process sees a desktop session, by the variables a display server sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {
    Desktop,
    None,
}

impl Session {
    fn of_this_process() -> Self {
        let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
        if set("WAYLAND_DISPLAY") || set("DISPLAY") {
            Session::Desktop
        } else {
            Session::None
        }
    }
}

/// The clipboard's text, up to `limit` bytes.
pub fn read_text(limit: usize) -> Result<String, ClientError> {
    let session = Session::of_this_process();
    if session == Session::None {
        return Err(refusal(None, session));
    }
    let text = arboard::Clipboard::new()
        .and_then(|mut clipboard| clipboard.get_text())
        .map_err(|e| refusal(Some(&e), session))?;
    if text.len() > limit {
        return Err(super::input::too_large(limit));
    }
    Ok(text)
}

/// What the person reads when the clipboard cannot give a note: what is wrong, then
/// what to do; arboard's own words last, for whoever digs further.
fn refusal(error: Option<&arboard::Error>, session: Session) -> ClientError {
    const PIPE: &str = "pipe the text in instead: `xclip -o -selection clipboard | inkling capture -` (X11) or `wl-paste | inkling capture -` (Wayland)";
    match (session, error) {
        (Session::None, _) => ClientError::Api(format!(
            "there is no desktop session here (neither WAYLAND_DISPLAY nor DISPLAY is set), so no clipboard to read; {PIPE}"
        )),
        (_, Some(arboard::Error::ContentNotAvailable)) => ClientError::Api(
            "the clipboard holds no text (it is empty, or holds a picture or files); nothing was captured".into(),
        ),
        (_, Some(e)) => ClientError::Api(format!(
            "cannot read the clipboard ({e}); {PIPE}"
        )),
        (_, None) => ClientError::Api(format!("cannot read the clipboard; {PIPE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_no_desktop_session_the_person_is_told_how_to_pipe_the_text_in() {
        let message = refusal(None, Session::None).to_string();
        assert!(
            message.starts_with("there is no desktop session here"),
            "{message}"
        );
        assert!(message.contains("| inkling capture -"), "{message}");
    }

    #[test]
    fn a_clipboard_without_text_captures_nothing_and_says_so() {
        let message =
            refusal(Some(&arboard::Error::ContentNotAvailable), Session::Desktop).to_string();
        assert_eq!(
            message,
            "the clipboard holds no text (it is empty, or holds a picture or files); nothing was captured"
        );
    }

    #[test]
    fn another_failure_names_the_cause_after_the_way_around_it() {
        let message = refusal(
            Some(&arboard::Error::ClipboardNotSupported),
            Session::Desktop,
        )
        .to_string();
        assert!(
            message.starts_with("cannot read the clipboard ("),
            "{message}"
        );
        assert!(
            message.contains("wl-paste | inkling capture -"),
            "{message}"
        );
    }
}
