//! The hybrid search's rules, plain functions: how the keyword search's ranking and
//! the semantic one's are merged (reciprocal-rank fusion, [`fuse`]), how close a note's
//! meaning must be to the query's to count ([`SEARCH_FLOOR`]), and what a hit found by
//! its meaning alone shows ([`meaning_snippet`]). The use case (`inbox/search.rs`)
//! carries them out; docs/DESIGN.md, "Hybrid search", says why.

use std::collections::HashMap;

use crate::api::notes::SnippetPart;
use crate::api::search::FoundBy;

/// Reciprocal-rank fusion's constant: a hit's score is the sum over the rankings it is
/// in of `1 / (RRF_K + rank)`, rank counted from 1. 60 is the value of the method's
/// paper (Cormack et al., 2009) and of the products that use it (Karakeep, Elastic):
/// it keeps the first few ranks of either list from drowning the other.
pub const RRF_K: f64 = 60.0;

/// How similar (cosine) a note's vector must be to the query's, at least, to be a
/// semantic hit. A query is short and a note long, so a true match is less similar
/// than two related notes (`vectors::SIMILARITY_FLOOR`, 0.5); below this, what comes
/// back for a query about nothing in the notes is noise, and nothing beats noise.
pub const SEARCH_FLOOR: f32 = 0.45;

/// `keyword` and `semantic` (ids, each best first) merged best first, at most `limit`:
/// each id scored by reciprocal-rank fusion; ties go to the better keyword rank (the
/// words typed are the person's own), then the better semantic rank.
pub fn fuse(keyword: &[String], semantic: &[String], limit: usize) -> Vec<(String, FoundBy)> {
    // (score, keyword rank, semantic rank) per id.
    let mut scored: HashMap<&str, (f64, usize, usize)> = HashMap::new();
    for (rank, id) in keyword.iter().enumerate() {
        let entry = scored.entry(id).or_insert((0.0, usize::MAX, usize::MAX));
        if entry.1 == usize::MAX {
            entry.0 += 1.0 / (RRF_K + rank as f64 + 1.0);
            entry.1 = rank;
        }
    }
    for (rank, id) in semantic.iter().enumerate() {
        let entry = scored.entry(id).or_insert((0.0, usize::MAX, usize::MAX));
        if entry.2 == usize::MAX {
            entry.0 += 1.0 / (RRF_K + rank as f64 + 1.0);
            entry.2 = rank;
        }
    }
    let mut merged: Vec<(&str, (f64, usize, usize))> = scored.into_iter().collect();
    merged.sort_by(|(_, a), (_, b)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    merged
        .into_iter()
        .take(limit)
        .map(|(id, (_, by_words, by_meaning))| {
            let found_by = match (by_words != usize::MAX, by_meaning != usize::MAX) {
                (true, true) => FoundBy::Both,
                (false, true) => FoundBy::Meaning,
                _ => FoundBy::Words,
            };
            (id.to_string(), found_by)
        })
        .collect()
}

/// A hit found by its meaning alone has none of the words (or not all): its snippet is
/// the start of its body, nothing marked.
pub fn meaning_snippet(body: &str) -> Vec<SnippetPart> {
    super::search::snippet(body, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn order(fused: &[(String, FoundBy)]) -> Vec<&str> {
        fused.iter().map(|(id, _)| id.as_str()).collect()
    }

    #[test]
    fn a_hit_in_both_rankings_comes_before_one_in_either() {
        let fused = fuse(&ids(&["a", "b", "c"]), &ids(&["x", "c", "y"]), 10);
        assert_eq!(order(&fused), ["c", "a", "x", "b", "y"]);
        assert_eq!(fused[0].1, FoundBy::Both);
        assert_eq!(fused[1].1, FoundBy::Words);
        assert_eq!(fused[2].1, FoundBy::Meaning);
    }

    #[test]
    fn equal_ranks_go_to_the_words_first_and_the_page_is_cut_at_the_limit() {
        let fused = fuse(&ids(&["a", "b"]), &ids(&["x", "y"]), 3);
        assert_eq!(order(&fused), ["a", "x", "b"]);
    }

    #[test]
    fn one_ranking_alone_is_kept_as_it_is() {
        let words = ids(&["a", "b", "c"]);
        assert_eq!(order(&fuse(&words, &[], 10)), ["a", "b", "c"]);
        assert!(fuse(&words, &[], 10)
            .iter()
            .all(|(_, by)| *by == FoundBy::Words));
        assert_eq!(order(&fuse(&[], &words, 2)), ["a", "b"]);
        assert!(fuse(&[], &[], 10).is_empty());
    }

    #[test]
    fn an_id_twice_in_one_ranking_counts_once_at_its_best_rank() {
        let fused = fuse(&ids(&["a", "b", "a"]), &ids(&["b"]), 10);
        assert_eq!(order(&fused), ["b", "a"]);
    }

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
