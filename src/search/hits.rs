//! What a hit found by its meaning alone shows: it has none of the words (or not all),
//! so its snippet is the start of its body, nothing marked.

use crate::api::notes::SnippetPart;
use crate::storage::search::snippet;

/// The snippet of a hit its words did not find.
pub fn meaning_snippet(body: &str) -> Vec<SnippetPart> {
    snippet(body, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_meaning_hit_shows_the_start_of_its_body_unmarked() {
        let body = format!("Car trouble. {}", "more ".repeat(60));
        let snippet = meaning_snippet(&body);
        assert_eq!(snippet.len(), 1, "{snippet:?}");
        assert!(!snippet[0].matched);
        assert!(snippet[0].text.starts_with("Car trouble."));
        assert!(snippet[0].text.ends_with('…'), "cut, and says so");
    }
}
