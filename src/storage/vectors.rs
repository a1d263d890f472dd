//! The notes' vectors as plain data: how one is stored (little-endian f32 in a BLOB),
//! how two compare (cosine: the dot product of vectors of length 1), and the nearest
//! notes to one by brute force over the others ([`nearest`]). The one place a search
//! over the vectors is written, so an index can replace it (issue #26 point 5).

/// How similar two notes must be, at least, to be shown as related (cosine). Below it
/// the "nearest" notes of a note about nothing else are noise, and nothing is better
/// than noise.
pub const SIMILARITY_FLOOR: f32 = 0.5;

/// How many related notes are shown.
pub const RELATED_NOTES: usize = 5;

/// A vector as stored: each value's four little-endian bytes, in order.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A stored vector; `None` when the bytes are not whole f32s.
pub fn decode(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

/// The cosine of two vectors of length 1: their dot product. Vectors of different
/// lengths are never compared (0).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The `k` candidates most similar to `query`, best first, none below `floor`; ties in
/// candidate order (the caller gives them newest first).
pub fn nearest<I, V>(query: &[f32], candidates: I, k: usize, floor: f32) -> Vec<(String, f32)>
where
    I: IntoIterator<Item = (String, V)>,
    V: AsRef<[f32]>,
{
    let mut best: Vec<(String, f32)> = Vec::with_capacity(k + 1);
    for (id, vector) in candidates {
        let similarity = cosine(query, vector.as_ref());
        if similarity < floor || similarity.is_nan() {
            continue;
        }
        let at = best.partition_point(|(_, s)| *s >= similarity);
        if at < k {
            best.insert(at, (id, similarity));
            best.truncate(k);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_is_stored_as_little_endian_floats_and_read_back_the_same() {
        let vector = [1.0_f32, -0.5, 0.25];
        let bytes = encode(&vector);
        assert_eq!(&bytes[..4], &1.0_f32.to_le_bytes());
        assert_eq!(bytes.len(), 12);
        assert_eq!(decode(&bytes).as_deref(), Some(&vector[..]));
        assert_eq!(decode(&bytes[..5]), None);
    }

    #[test]
    fn the_nearest_are_the_k_most_similar_best_first_and_none_below_the_floor() {
        let query = [1.0, 0.0];
        let others: Vec<(String, Vec<f32>)> = vec![
            ("far".into(), vec![0.0, 1.0]),
            ("close".into(), vec![0.9, 0.436]),
            ("same".into(), vec![1.0, 0.0]),
            ("closer".into(), vec![0.95, 0.312]),
            ("other dims".into(), vec![1.0, 0.0, 0.0]),
        ];
        let found = nearest(
            &query,
            others.iter().map(|(id, v)| (id.clone(), v.as_slice())),
            2,
            0.5,
        );
        let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["same", "closer"]);
        let all = nearest(
            &query,
            others.iter().map(|(id, v)| (id.clone(), v.as_slice())),
            5,
            0.5,
        );
        assert_eq!(
            all.len(),
            3,
            "the orthogonal one and the other length are out"
        );
        assert!(all.windows(2).all(|w| w[0].1 >= w[1].1));
    }
}
