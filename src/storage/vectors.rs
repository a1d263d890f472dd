//! The notes' vectors as plain data: how one is stored (little-endian f32 in a BLOB),
//! how two compare (cosine: the dot product of vectors of length 1, also straight from
//! the stored bytes), and the `k` most similar kept as they are compared ([`Best`],
//! [`nearest`]). The exact search (every vector compared) and the index's rescoring of
//! its candidates (`vector_index.rs`) both rank with these.

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

/// The cosine of `query` and a vector as stored (its little-endian bytes), read in
/// place: no vector is made for it. `None` when the bytes are not `query`'s length.
pub fn cosine_stored(query: &[f32], bytes: &[u8]) -> Option<f32> {
    if bytes.len() != query.len() * 4 {
        return None;
    }
    Some(
        query
            .iter()
            .zip(bytes.chunks_exact(4))
            .map(|(q, b)| q * f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .sum(),
    )
}

/// The `k` most similar so far, best first, none below the floor; on a tie the one
/// offered first stays ahead. An id is copied only when it is kept.
#[derive(Debug, Clone)]
pub struct Best {
    k: usize,
    floor: f32,
    kept: Vec<(String, f32)>,
}

impl Best {
    pub fn new(k: usize, floor: f32) -> Self {
        Best {
            k,
            floor,
            kept: Vec::with_capacity(k + 1),
        }
    }

    /// Keeps `id` when `similarity` is among the `k` best so far.
    pub fn offer(&mut self, id: &str, similarity: f32) {
        if similarity < self.floor || similarity.is_nan() {
            return;
        }
        let at = self.kept.partition_point(|(_, s)| *s >= similarity);
        if at < self.k {
            self.kept.insert(at, (id.to_string(), similarity));
            self.kept.truncate(self.k);
        }
    }

    pub fn into_vec(self) -> Vec<(String, f32)> {
        self.kept
    }
}

/// The `k` candidates most similar to `query`, best first, none below `floor`; ties in
/// candidate order (the caller gives them newest first).
pub fn nearest<I, V>(query: &[f32], candidates: I, k: usize, floor: f32) -> Vec<(String, f32)>
where
    I: IntoIterator<Item = (String, V)>,
    V: AsRef<[f32]>,
{
    let mut best = Best::new(k, floor);
    for (id, vector) in candidates {
        best.offer(&id, cosine(query, vector.as_ref()));
    }
    best.into_vec()
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

    #[test]
    fn a_stored_vector_is_compared_in_place_as_its_floats_would_be() {
        let (a, b) = ([0.6_f32, 0.8], [0.8_f32, 0.6]);
        assert_eq!(cosine_stored(&a, &encode(&b)), Some(cosine(&a, &b)));
        assert_eq!(cosine_stored(&a, &encode(&[1.0, 0.0, 0.0])), None);
    }

    #[test]
    fn on_a_tie_the_first_offered_stays_ahead() {
        let mut best = Best::new(2, 0.5);
        for (id, s) in [("newer", 0.9), ("older", 0.9), ("best", 0.95), ("low", 0.4)] {
            best.offer(id, s);
        }
        let ids: Vec<String> = best.into_vec().into_iter().map(|(id, _)| id).collect();
        assert_eq!(ids, ["best", "newer"]);
    }
}
