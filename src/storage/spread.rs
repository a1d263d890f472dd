//! Whether an embedding model's vectors tell the notes apart (issue #37): plain
//! functions over a sample of vectors.
//!
//! Cosine similarities are not comparable between models. Measured on 16 varied notes
//! of a real day (issue #37): with Gemma 3 270M's vectors (`--pooling mean`) the
//! median pair of unrelated notes is at 0.71 and the closest at 0.84, related pairs at
//! 0.89 to 0.93; with SmolLM2-135M's, unrelated pairs reach 0.93. A fixed floor of 0.5
//! let every note through as "related". So "near" is judged against the model's own
//! spread (the floor is retrieval's: `crate::search::floors::neighbours_floor`), and a
//! model whose similarities hardly spread at all says nothing about which notes are
//! alike.
//!
//! "Hardly" is judged on the scale that floor uses: the distance from the median to 1
//! (a floor is the median plus a share of it). The built-in embedder's model,
//! multilingual-e5-small, is trained with a low temperature, so its cosines bunch: on
//! the same 16 notes its median is 0.80 and the 10th to 90th percentiles 0.073 apart;
//! on a narrower set 0.015 apart around 0.82. A fixed least spread of 0.04 called it
//! degenerate, though its nearest notes are the right ones; against its 0.2 from the
//! median to 1 its spread is 0.37 (0.08 on the narrower set), Gemma's 1.6. A model
//! that gives every text nearly the same vector has its median within
//! [`MIN_DISTANCE`] of 1, or a spread under [`MIN_RELATIVE_SPREAD`] of that distance.

use crate::api::status::VectorSpread;

use super::vectors::cosine;

/// How many of the newest notes' vectors are compared with each other (276 pairs).
pub const SAMPLE_NOTES: usize = 24;
/// The fewest notes whose pairs say anything about the model (three pairs).
pub const MIN_NOTES: usize = 3;
/// A median similarity closer than this to 1: every note has nearly the same vector.
pub const MIN_DISTANCE: f32 = 0.02;
/// Below this share of the distance from the median to 1, the spread between the 10th
/// and 90th percentiles of the similarities says nothing of which notes are alike.
/// Measured over 16 varied notes: 1.6 for Gemma 3 270M's vectors, 0.37 for
/// multilingual-e5-small's (0.08 on a narrower set); a model that gives every text
/// nearly the same vector comes out near 0.
pub const MIN_RELATIVE_SPREAD: f32 = 0.05;

/// The cosine similarities of every pair of `vectors` (each of length 1, one model).
pub fn pairwise(vectors: &[Vec<f32>]) -> Vec<f32> {
    let mut similarities = Vec::new();
    for (i, a) in vectors.iter().enumerate() {
        for b in &vectors[i + 1..] {
            similarities.push(cosine(a, b));
        }
    }
    similarities
}

/// The judgement on a sample of `notes` notes whose pairs have these `similarities`.
pub fn judge(notes: usize, similarities: &[f32]) -> VectorSpread {
    let notes_count = u32::try_from(notes).unwrap_or(u32::MAX);
    let mut sorted: Vec<f32> = similarities
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .collect();
    if notes < MIN_NOTES || sorted.is_empty() {
        return VectorSpread::TooFewNotes { notes: notes_count };
    }
    sorted.sort_by(f32::total_cmp);
    let at = |fraction: f32| sorted[((sorted.len() - 1) as f32 * fraction).round() as usize];
    let (median, spread) = (at(0.5), at(0.9) - at(0.1));
    let distance = 1.0 - median;
    if distance < MIN_DISTANCE || spread < MIN_RELATIVE_SPREAD * distance {
        VectorSpread::Degenerate {
            notes: notes_count,
            median,
            spread,
        }
    } else {
        VectorSpread::TellsNotesApart {
            notes: notes_count,
            median,
            spread,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / length).collect()
    }

    #[test]
    fn vectors_that_spread_tell_notes_apart_and_nearly_equal_ones_do_not() {
        let apart: Vec<Vec<f32>> = [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.9, 0.1, 0.0],
            [0.0, 0.0, 1.0],
        ]
        .iter()
        .map(|v| unit(v))
        .collect();
        assert!(matches!(
            judge(apart.len(), &pairwise(&apart)),
            VectorSpread::TellsNotesApart { notes: 4, .. }
        ));
        // Every vector nearly the same: every note "near" every other.
        let same: Vec<Vec<f32>> = (0..6)
            .map(|i| unit(&[1.0, 0.01 * i as f32, 0.002 * (i % 2) as f32]))
            .collect();
        match judge(same.len(), &pairwise(&same)) {
            VectorSpread::Degenerate {
                notes: 6,
                median,
                spread,
            } => {
                assert!(median > 1.0 - MIN_DISTANCE, "{median} {spread}");
            }
            other => panic!("degenerate: {other:?}"),
        }
    }

    #[test]
    fn the_built_in_embedders_bunched_cosines_tell_notes_apart_a_flat_spread_does_not() {
        // multilingual-e5-small measured: median 0.82, the 10th to 90th percentiles
        // 0.015 apart (the narrowest set seen), which a fixed least spread of 0.04 called
        // degenerate. (tests/real_model/builtin.rs judges its real vectors.)
        let e5: Vec<f32> = (0..=100)
            .map(|i| 0.8125 + 0.015 * i as f32 / 100.0)
            .collect();
        assert!(matches!(
            judge(16, &e5),
            VectorSpread::TellsNotesApart { .. }
        ));
        // The same median with the similarities all but equal: degenerate.
        let flat: Vec<f32> = (0..=100)
            .map(|i| 0.8195 + 0.001 * i as f32 / 100.0)
            .collect();
        assert!(matches!(judge(16, &flat), VectorSpread::Degenerate { .. }));
    }

    #[test]
    fn too_few_notes_are_not_judged() {
        let two = [unit(&[1.0, 0.0]), unit(&[0.0, 1.0])];
        assert_eq!(
            judge(2, &pairwise(&two)),
            VectorSpread::TooFewNotes { notes: 2 }
        );
        assert_eq!(judge(0, &[]), VectorSpread::TooFewNotes { notes: 0 });
    }
}
