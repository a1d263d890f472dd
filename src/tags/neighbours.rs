//! The tags a note's nearest neighbours suggest for its own: which of their tags the
//! enrichment prompt carries ("Notes like this one are tagged: …"), and in what order.
//!
//! A model choosing tags one note at a time from a list of the most used ones coins a
//! new word whenever none of the list's head fits; the tags of the notes most like
//! this one are the words this person already chose for the same topic (Karakeep
//! #2858: "a lot less tag sprawl"). Only neighbours really near count ([`really_near`]):
//! a model's "nearest" notes of a note about nothing else in the collection are only
//! the least far, and their tags, offered, are copied (Gemma 3 270M gave every note the
//! first note's tags that way). Plain functions over plain data: the worker reads the
//! neighbours and how near is really near for this model (`Store::related`,
//! `crate::search::floors::neighbours_floor`), this decides.

use std::collections::HashMap;

use super::key;

/// The most neighbours' tags one prompt carries: five neighbours of up to five tags
/// each would be 25, most of them said once; the best few are the topic's words.
pub const NEIGHBOUR_TAGS_IN_PROMPT: usize = 8;

/// A neighbour of the note: its tags and how like the note it is (cosine).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub tags: Vec<String>,
    pub similarity: f32,
}

/// The `neighbours` at least `floor` alike, in their order; none without a floor (the
/// embedding model does not tell notes apart, or there are too few notes to judge).
pub fn really_near(neighbours: Vec<Neighbour>, floor: Option<f32>) -> Vec<Neighbour> {
    let Some(floor) = floor else {
        return Vec::new();
    };
    neighbours
        .into_iter()
        .filter(|neighbour| neighbour.similarity >= floor)
        .collect()
}

/// The tags of `neighbours` for the prompt, at most `limit`: each tag weighs the sum of
/// the similarities of the neighbours that carry it (a tag two close notes share beats
/// one a single note has), ties in the order met (the nearest neighbour's first, each
/// neighbour's tags in their own order). Tags that differ only in case, spaces, `-` or
/// `_` are one, under the first spelling met. A neighbour not yet tagged adds nothing.
pub fn neighbour_tags(neighbours: &[Neighbour], limit: usize) -> Vec<String> {
    // key -> (first spelling, weight, order first met)
    let mut weights: HashMap<String, (String, f32, usize)> = HashMap::new();
    let mut met = 0;
    for neighbour in neighbours {
        // A similarity below zero would make a shared tag weigh less than a lone one.
        let weight = neighbour.similarity.max(0.0);
        let mut seen_here = Vec::new();
        for tag in &neighbour.tags {
            let tag_key = key(tag);
            if tag_key.is_empty() || seen_here.contains(&tag_key) {
                continue;
            }
            seen_here.push(tag_key.clone());
            let entry = weights.entry(tag_key).or_insert_with(|| {
                met += 1;
                (tag.clone(), 0.0, met)
            });
            entry.1 += weight;
        }
    }
    let mut ranked: Vec<(String, f32, usize)> = weights.into_values().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    ranked
        .into_iter()
        .take(limit)
        .map(|(tag, _, _)| tag)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(tags: &[&str], similarity: f32) -> Neighbour {
        Neighbour {
            tags: tags.iter().map(|t| t.to_string()).collect(),
            similarity,
        }
    }

    #[test]
    fn a_tag_several_neighbours_share_comes_before_one_the_nearest_has_alone() {
        let neighbours = [
            near(&["running", "knee"], 0.9),
            near(&["running", "shoes"], 0.7),
            near(&["training"], 0.6),
        ];
        assert_eq!(
            neighbour_tags(&neighbours, 10),
            ["running", "knee", "shoes", "training"],
            "running weighs 1.6; then by similarity"
        );
    }

    #[test]
    fn equal_weights_keep_the_order_met_nearest_neighbour_first() {
        let neighbours = [near(&["kitchen", "tiles"], 0.8), near(&["budget"], 0.8)];
        assert_eq!(
            neighbour_tags(&neighbours, 10),
            ["kitchen", "tiles", "budget"]
        );
    }

    #[test]
    fn at_most_the_limit_are_carried() {
        let neighbours = [
            near(&["a", "b", "c", "d", "e"], 0.9),
            near(&["f", "g", "h", "i", "j"], 0.8),
        ];
        assert_eq!(
            neighbour_tags(&neighbours, NEIGHBOUR_TAGS_IN_PROMPT).len(),
            NEIGHBOUR_TAGS_IN_PROMPT
        );
        assert_eq!(neighbour_tags(&neighbours, 2), ["a", "b"]);
    }

    #[test]
    fn spellings_of_one_tag_are_one_under_the_first_met() {
        let neighbours = [
            near(&["half-marathon"], 0.9),
            near(&["Half Marathon", "race"], 0.8),
            near(&["half_marathon"], 0.5),
        ];
        assert_eq!(
            neighbour_tags(&neighbours, 10),
            ["half-marathon", "race"],
            "one tag weighing 2.2, under the nearest note's spelling"
        );
    }

    #[test]
    fn untagged_neighbours_and_empty_tags_add_nothing() {
        assert!(neighbour_tags(&[], 10).is_empty());
        let neighbours = [
            near(&[], 0.9),
            near(&["-", " "], 0.8),
            near(&["garden"], 0.5),
        ];
        assert_eq!(neighbour_tags(&neighbours, 10), ["garden"]);
    }

    #[test]
    fn only_neighbours_at_the_floor_or_above_count_and_none_without_a_floor() {
        let neighbours = vec![near(&["tomatoes"], 0.91), near(&["kitchen"], 0.8)];
        let kept = really_near(neighbours.clone(), Some(0.855));
        assert_eq!(kept, [near(&["tomatoes"], 0.91)]);
        assert_eq!(neighbour_tags(&kept, 10), ["tomatoes"]);
        assert!(really_near(neighbours, None).is_empty());
    }

    #[test]
    fn a_tag_said_twice_by_one_neighbour_counts_once() {
        let neighbours = [near(&["tax", "Tax"], 0.6), near(&["money"], 0.9)];
        assert_eq!(
            neighbour_tags(&neighbours, 10),
            ["money", "tax"],
            "tax weighs 0.6, not 1.2"
        );
    }
}
