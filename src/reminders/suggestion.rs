//! The AI's suggested reminder (docs/DESIGN.md, "Reminders"), as plain rules.
//!
//! The model is asked only for the words of the note that say a time ("tomorrow at
//! 9", "내일 오전 9시"), never for a date: small models are bad at date arithmetic, and
//! a reminder at the wrong time is worse than none. Those words are checked to be the
//! note's own ([`quoted`]: a guard against invention), read by the same parser as a
//! person's words (`super::when`) against the note's capture time in the person's time
//! zone ([`resolve`]), and kept only when the time comes after both the capture and
//! now. What the store then keeps ([`offered`]) is a suggestion beside the reminder,
//! never the reminder itself: a time a person set or accepted is never changed by the
//! AI, and a note whose suggestion was dismissed is offered none again.

use chrono::{DateTime, TimeZone, Utc};

use super::when;

/// The longest phrase taken from the model: a time is said in a few words, and a long
/// answer is a model that did not understand the field.
pub const MAX_PHRASE_CHARS: usize = 60;

/// Why the model's phrase gives no suggestion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Dropped {
    #[error("the phrase is not in the note's text")]
    NotInNote,
    #[error("the phrase is longer than {MAX_PHRASE_CHARS} characters")]
    TooLong,
    #[error("the phrase cannot be read as a time")]
    Unreadable,
    #[error("the time is not after the note's capture, or has passed")]
    NotAhead,
}

/// The model's `phrase`, trimmed, when `note` says it: compared without regard to case,
/// each run of white space as one space. An empty phrase is none (`Ok(None)`).
pub fn quoted(phrase: &str, note: &str) -> Result<Option<String>, Dropped> {
    let phrase = squeeze(phrase);
    if phrase.is_empty() {
        return Ok(None);
    }
    if phrase.chars().count() > MAX_PHRASE_CHARS {
        return Err(Dropped::TooLong);
    }
    if !squeeze(note).contains(&phrase) {
        return Err(Dropped::NotInNote);
    }
    Ok(Some(phrase))
}

/// `text` in lower case, each run of white space one space, the ends trimmed.
fn squeeze(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The instant `phrase` names for a note captured at `captured_at`, in `zone` (the
/// person's): "tomorrow at 9" is 09:00 on the wall clock the day after the capture,
/// however late the AI reads it. Only a time after the capture and after `now` is one
/// to be reminded at.
pub fn resolve<Tz: TimeZone>(
    phrase: &str,
    captured_at: DateTime<Utc>,
    now: DateTime<Utc>,
    zone: &Tz,
) -> Result<DateTime<Utc>, Dropped> {
    let at = when::parse(phrase, captured_at, zone).map_err(|_| Dropped::Unreadable)?;
    if at <= captured_at || at <= now {
        return Err(Dropped::NotAhead);
    }
    Ok(at)
}

/// Where a note stands when the AI's answer comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// A reminder is set (by hand, or a suggestion accepted), done ones included.
    pub has_reminder: bool,
    /// The person dismissed a suggestion on it.
    pub dismissed: bool,
}

/// The suggestion the note holds after an answer that proposed `proposed` (resolved,
/// or `None`): none on a note with a reminder (it is not changed, and a second time
/// beside it would only confuse) or one whose suggestion was dismissed (it does not
/// come back, not after Try again nor an edit); otherwise the answer's, which replaces
/// an earlier answer's (the note was edited, or asked again).
pub fn offered(standing: Standing, proposed: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    if standing.has_reminder || standing.dismissed {
        return None;
    }
    proposed
}

#[cfg(test)]
mod tests;
