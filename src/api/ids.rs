//! A note named by the start of its id (the CLI takes any unique prefix and lists
//! short ids): what a prefix may be, `GET /api/notes/ids?prefix=` and its answer,
//! `POST /api/notes/short-ids` and its answer. Both sides use these.

use serde::{Deserialize, Serialize};

/// The most notes `GET /api/notes/ids` names: enough to say which notes a prefix
/// matches when it is not unique.
pub const MOST_MATCHES: usize = 10;
/// The most ids one `POST /api/notes/short-ids` shortens (a list's page is at most
/// 1,000 notes).
pub const MOST_SHORTENED: usize = 1000;
/// The longest id a note may have: an imported note keeps its own (letters, digits,
/// `-` and `_`; `crate::export`); the service's own are UUIDs, 36 characters.
pub const MAX_ID_CHARS: usize = crate::export::MAX_ID_CHARS;

/// `GET /api/notes/ids` query string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdsQuery {
    pub prefix: String,
}

/// `GET /api/notes/ids`: the ids that begin with the prefix, in order, at most
/// [`MOST_MATCHES`]; `more` when others do too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdsReply {
    pub ids: Vec<String>,
    pub more: bool,
}

/// `POST /api/notes/short-ids` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShortIdsRequest {
    pub ids: Vec<String>,
}

/// `POST /api/notes/short-ids`: each id, in the order given, cut to the shortest
/// prefix no other note's id begins with today.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortIdsReply {
    pub short: Vec<String>,
}

/// The start of an id as typed (spaces around it dropped), or why it cannot be one:
/// an id has only letters, digits, `-` and `_`, at most [`MAX_ID_CHARS`]. Its case is
/// kept: an imported note's id may have capitals (the service looks for the lower
/// case too, as a UUID copied in capitals).
pub fn id_prefix(typed: &str) -> Result<String, String> {
    let prefix = typed.trim().to_string();
    if prefix.is_empty() {
        return Err("give a note's id, or the start of it".into());
    }
    if prefix.chars().count() > MAX_ID_CHARS {
        return Err(format!(
            "\"{}…\" is longer than a note's id can be ({MAX_ID_CHARS} characters)",
            typed.chars().take(MAX_ID_CHARS).collect::<String>()
        ));
    }
    if let Some(bad) = prefix
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && *c != '-' && *c != '_')
    {
        return Err(format!(
            "a note's id has only letters, digits, - and _, not {bad:?}"
        ));
    }
    Ok(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_what_an_id_may_hold_as_typed_up_to_the_longest_id() {
        assert_eq!(id_prefix(" 01A24926-88 ").as_deref(), Ok("01A24926-88"));
        assert_eq!(id_prefix("old_one").as_deref(), Ok("old_one"), "imported");
        assert!(id_prefix("").is_err());
        assert!(id_prefix("01a2 x").unwrap_err().contains("' '"));
        assert!(id_prefix("01a2%").unwrap_err().contains("'%'"));
        assert!(id_prefix(&"0".repeat(65)).unwrap_err().contains("longer"));
        assert!(id_prefix(&"0".repeat(64)).is_ok());
    }
}
