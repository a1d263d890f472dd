//! A note named by any unique start of its id, and short ids in lists. Ids are UUID v7:
//! notes captured close together share their first dozen characters, so typing a whole
//! id was the rule; now the start is enough, and a start that names several notes says
//! which. The service finds the matches (`GET /api/notes/ids`) and the shortest unique
//! prefixes (`POST /api/notes/short-ids`); what to make of them is decided here.

use std::collections::HashMap;

use crate::api::ids::{id_prefix, IdsReply, MOST_SHORTENED};
use crate::client::{ClientError, ServiceClient};

/// The whole id of the one note `typed` names: itself when it is a whole id, else the
/// one note whose id begins with it.
pub async fn resolve(client: &ServiceClient, typed: &str) -> Result<String, ClientError> {
    let prefix = id_prefix(typed).map_err(ClientError::Api)?;
    let reply = client.ids_with_prefix(&prefix).await?;
    the_one(&prefix, reply).map_err(ClientError::Api)
}

/// The one id of `reply`, or in words why there is not one: none begins with the
/// prefix, or several do (named, so the person can give more of the one meant). A
/// whole id is the one it names even when it begins others too (an imported `a` and
/// `ab`).
pub fn the_one(prefix: &str, reply: IdsReply) -> Result<String, String> {
    if let Some(whole) = reply.ids.iter().find(|id| id.eq_ignore_ascii_case(prefix)) {
        return Ok(whole.clone());
    }
    match reply.ids.as_slice() {
        [] => Err(format!(
            "no note's id begins with {prefix} (`inkling list` shows the notes' ids)"
        )),
        [one] => Ok(one.clone()),
        several => {
            let count = if reply.more {
                format!("more than {}", several.len())
            } else {
                several.len().to_string()
            };
            Err(format!(
                "{prefix} begins the ids of {count} notes; give more of the one you mean:\n  {}",
                several.join("\n  ")
            ))
        }
    }
}

/// Each id's short form, as the service says today. Short ids are a convenience: when
/// the service does not give them (an older one, a refusal) the list shows whole ids.
pub async fn short_forms(client: &ServiceClient, ids: &[String]) -> HashMap<String, String> {
    let mut short = HashMap::with_capacity(ids.len());
    // A list may be every note: asked a page of ids at a time.
    for page in ids.chunks(MOST_SHORTENED) {
        match client.short_ids(page.to_vec()).await {
            Ok(reply) => short.extend(page.iter().cloned().zip(reply.short)),
            Err(error) => {
                tracing::debug!(%error, "no short ids: the whole ids are shown");
                break;
            }
        }
    }
    short
}

/// The form of `id` to show: its short form when there is one.
pub fn shown<'a>(short: &'a HashMap<String, String>, id: &'a str) -> &'a str {
    short.get(id).map_or(id, String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(ids: &[&str], more: bool) -> IdsReply {
        IdsReply {
            ids: ids.iter().map(|id| id.to_string()).collect(),
            more,
        }
    }

    #[test]
    fn a_prefix_names_one_note_or_says_why_not() {
        assert_eq!(
            the_one("01a2", reply(&["01a24926-8892"], false)).as_deref(),
            Ok("01a24926-8892")
        );
        let none = the_one("ff", reply(&[], false)).unwrap_err();
        assert!(none.starts_with("no note's id begins with ff"), "{none}");
        let several =
            the_one("01a2", reply(&["01a24926-8890", "01a24926-8892"], false)).unwrap_err();
        assert!(
            several.starts_with("01a2 begins the ids of 2 notes")
                && several.contains("\n  01a24926-8890\n  01a24926-8892"),
            "{several}"
        );
        let many = the_one("0", reply(&["0a", "0b"], true)).unwrap_err();
        assert!(many.contains("more than 2 notes"), "{many}");
        // A whole id names its note, even when it begins another's.
        assert_eq!(the_one("a", reply(&["a", "ab"], false)).as_deref(), Ok("a"));
    }
}
