//! The built-in embedder as the [`Embed`] capability: the imperative shell over
//! [`BuiltinModel`]. The model is loaded at the first call (~0.5 s, +128 MiB resident: a person
//! who never uses related notes does not pay for it at start), kept for the process's
//! life, and every call runs on tokio's blocking threads, so the arbiter (the worker,
//! the HTTP server's use cases) never waits on the computation.
//!
//! No deadline is applied: a call in the process cannot hang on a network, its time is
//! its computation (~2–3 ms a token on one core of this project's CPU), and dropping the future
//! would not stop the thread. A model not there yet answers
//! [`ProviderError::ModelMissing`], whose fix is `inkling pull-model --embedder`; a
//! damaged one an error saying so.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures_util::future::LocalBoxFuture;

use super::model::{BuiltinModel, LoadError};
use crate::ai::{Embed, EmbedPlan, ProviderError};

/// The built-in embedder, its model in `folder`.
#[derive(Debug, Clone)]
pub struct BuiltinEmbedder {
    folder: PathBuf,
    /// The model once loaded (shared with the blocking threads that use it).
    model: Arc<Mutex<Option<Arc<BuiltinModel>>>>,
}

impl BuiltinEmbedder {
    pub fn new(folder: PathBuf) -> Self {
        BuiltinEmbedder {
            folder,
            model: Arc::new(Mutex::new(None)),
        }
    }

    /// The model, loaded at the first call that needs it (and again after a failure:
    /// a model pulled since is found).
    fn loaded(&self) -> Result<Arc<BuiltinModel>, LoadError> {
        // A panic while the lock was held cannot leave a half-set Option: take it as it is.
        let mut slot = self
            .model
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(model) = slot.as_ref() {
            return Ok(model.clone());
        }
        let model = Arc::new(BuiltinModel::load(&self.folder)?);
        *slot = Some(model.clone());
        Ok(model)
    }

    /// One vector per text of the plan, on the caller's thread.
    pub fn embed_now(&self, plan: &EmbedPlan) -> Result<Vec<Vec<f32>>, ProviderError> {
        let model = self.loaded().map_err(|e| {
            if e.is_missing() {
                ProviderError::ModelMissing(e.to_string())
            } else {
                ProviderError::Unexpected(e.to_string())
            }
        })?;
        Ok(plan
            .texts
            .iter()
            .map(|text| model.embed(text, plan.kind))
            .collect())
    }
}

impl Embed for BuiltinEmbedder {
    fn embed(
        &self,
        plan: EmbedPlan,
    ) -> LocalBoxFuture<'static, Result<Vec<Vec<f32>>, ProviderError>> {
        let embedder = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || embedder.embed_now(&plan))
                .await
                .map_err(|e| {
                    ProviderError::Unexpected(format!("the built-in embedder stopped: {e}"))
                })?
        })
    }
}

#[cfg(test)]
mod tests;
