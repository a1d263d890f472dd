//! Reciprocal-rank fusion, the one way rankings are merged in retrieval: a hit's score
//! is the sum, over the rankings it is in, of `1 / (RRF_K + rank)`, its rank counted
//! from 1 ([`rrf`]). Two callers, one score: the hybrid search and a question's notes
//! merge the words' ranking with the meaning's ([`fuse`]); a question's words, each
//! searched alone, are ranked together with the notes found by more words first
//! ([`fuse_counted`]). docs/DESIGN.md, "Hybrid search", says why.

use std::collections::HashMap;

use crate::api::search::FoundBy;

/// Reciprocal-rank fusion's constant. 60 is the value of the method's paper (Cormack et
/// al., 2009) and of the products that use it (Karakeep, Elastic): it keeps the first
/// few ranks of either list from drowning the other.
pub const RRF_K: f64 = 60.0;

/// One ranking's share of a hit's score, at `rank` (the first is 1).
pub fn rrf(rank: usize) -> f64 {
    1.0 / (RRF_K + rank as f64)
}

/// `keyword` and `semantic` (ids, each best first) merged best first, at most `limit`:
/// each id scored by reciprocal-rank fusion; ties go to the better keyword rank (the
/// words typed are the person's own), then the better semantic rank.
pub fn fuse(keyword: &[String], semantic: &[String], limit: usize) -> Vec<(String, FoundBy)> {
    // (score, keyword rank, semantic rank) per id; usize::MAX: not in that ranking.
    let mut scored: HashMap<&str, (f64, usize, usize)> = HashMap::new();
    for (place, id) in keyword.iter().enumerate() {
        let entry = scored.entry(id).or_insert((0.0, usize::MAX, usize::MAX));
        if entry.1 == usize::MAX {
            entry.0 += rrf(place + 1);
            entry.1 = place;
        }
    }
    for (place, id) in semantic.iter().enumerate() {
        let entry = scored.entry(id).or_insert((0.0, usize::MAX, usize::MAX));
        if entry.2 == usize::MAX {
            entry.0 += rrf(place + 1);
            entry.2 = place;
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

/// Many rankings (`found`: each best first) ranked together, best first, at most
/// `limit`: an id in more of the rankings first; among equals, the higher its
/// reciprocal-rank fusion score, then the order the ids were first met in.
pub fn fuse_counted(found: &[Vec<String>], limit: usize) -> Vec<String> {
    // (rankings, score, first met) per id.
    let mut scores: HashMap<&str, (usize, f64, usize)> = HashMap::new();
    let mut order = 0;
    for hits in found {
        for (place, id) in hits.iter().enumerate() {
            let entry = scores.entry(id.as_str()).or_insert_with(|| {
                order += 1;
                (0, 0.0, order)
            });
            entry.0 += 1;
            entry.1 += rrf(place + 1);
        }
    }
    let mut ranked: Vec<(&str, (usize, f64, usize))> = scores.into_iter().collect();
    ranked.sort_by(|(_, a), (_, b)| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    ranked
        .into_iter()
        .take(limit)
        .map(|(id, _)| id.to_string())
        .collect()
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
    fn ranks_are_counted_from_one() {
        assert_eq!(rrf(1), 1.0 / 61.0);
        assert!(rrf(1) > rrf(2));
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
    fn ids_found_in_more_rankings_rank_first_then_by_their_places() {
        let found = vec![ids(&["a", "b", "c"]), ids(&["c", "d"]), ids(&["d"])];
        // c and d are found twice; d is first for one ranking and second for another.
        assert_eq!(fuse_counted(&found, 10), ["d", "c", "a", "b"]);
        assert_eq!(fuse_counted(&found, 2), ["d", "c"]);
        assert!(fuse_counted(&[], 5).is_empty());
    }

    #[test]
    fn both_fusions_score_a_place_alike() {
        // One ranking each: the order is the ranking's, whichever fusion reads it.
        let ranking = ids(&["a", "b", "c"]);
        let fused: Vec<String> = fuse(&ranking, &[], 10)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(fused, fuse_counted(&[ranking], 10));
    }
}
