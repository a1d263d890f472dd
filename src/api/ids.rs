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
/// An id's length (a UUID with its dashes).
pub const ID_CHARS: usize = 36;

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

/// The prefix of an id as typed, in the ids' own form (lower case), or why it cannot
/// be one: only hex digits and dashes, at most an id's length, not empty.
pub fn id_prefix(typed: &str) -> Result<String, String> {
    let prefix = typed.trim().to_ascii_lowercase();
    if prefix.is_empty() {
        return Err("give a note's id, or the start of it".into());
    }
    if prefix.chars().count() > ID_CHARS {
        return Err(format!(
            "\"{}…\" is longer than a note's id ({ID_CHARS} characters)",
            typed.chars().take(ID_CHARS).collect::<String>()
        ));
    }
    if let Some(bad) = prefix.chars().find(|c| !c.is_ascii_hexdigit() && *c != '-') {
        return Err(format!(
            "a note's id has only the digits 0-9, the letters a-f and dashes, not {bad:?}"
        ));
    }
    Ok(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_hex_and_dashes_in_lower_case_up_to_an_ids_length() {
        assert_eq!(id_prefix(" 01A24926-88 ").as_deref(), Ok("01a24926-88"));
        assert!(id_prefix("").is_err());
        assert!(id_prefix("01a2 x").unwrap_err().contains("' '"));
        assert!(id_prefix("01a2%").unwrap_err().contains("'%'"));
        assert!(id_prefix(&"0".repeat(37)).unwrap_err().contains("longer"));
        assert!(id_prefix(&"0".repeat(36)).is_ok());
    }
}
