//! `ModelPullActor`: downloads the configured models through Ollama (`POST /api/pull`)
//! when the person asks for it (`inkling pull-model`, the page's Download button), so
//! the first day of an install does not need a terminal: the chat model, then the
//! embedding model (`ollama.embedding_model`, for related notes and the neighbours'
//! tags), one after the other ([`models_to_pull`]).
//!
//! One download at a time: asking while one runs joins it. Each step is published as
//! `ModelPullProgress`, naming the model it is about (the page's progress bar, through
//! the live feed) and sent to whoever asked for it (the CLI's progress line, through
//! the streamed answer). After each model the monitor checks at once and announces
//! what it finds (`CheckAndAnnounce`): with the chat model there the worker starts on
//! the titles while the embedding model downloads, and with the embedding model there
//! it makes the vectors it found missing. The download is done after the last model.

use std::rc::Rc;

use actix::prelude::*;
use tokio::sync::mpsc::UnboundedSender;

use super::handling;
use super::hub::Hub;
use super::mailbox::Mailbox;
use super::provider_monitor::{CheckAndAnnounce, ProviderMonitorActor};
use crate::ai::{ProviderError, Pull, PullProgress};
use crate::events::{ModelPullProgress, PullState};

/// Download the model (or join the download under way); its progress goes to
/// `watcher` as well as to the hub, up to and including the last step.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct PullModel {
    pub watcher: Option<UnboundedSender<ModelPullProgress>>,
}

/// The models a download fetches, in order: the chat model, then the embedding model
/// when one is configured (empty: no vectors) and it is another.
pub fn models_to_pull(chat: &str, embedding: &str) -> Vec<String> {
    let mut models = vec![chat.to_string()];
    let embedding = embedding.trim();
    if !embedding.is_empty() && embedding != chat {
        models.push(embedding.to_string());
    }
    models
}

pub struct ModelPullActor {
    provider: Rc<dyn Pull>,
    /// What a download fetches, in order ([`models_to_pull`]); never empty.
    models: Vec<String>,
    hub: Mailbox<Hub>,
    monitor: Mailbox<ProviderMonitorActor>,
    /// The download under way: its last step, and who watches it.
    running: Option<Running>,
}

struct Running {
    last: ModelPullProgress,
    watchers: Vec<UnboundedSender<ModelPullProgress>>,
    /// Which of the models is downloading.
    index: usize,
    /// That model's download said "success": when its stream ends, the next starts.
    pulled: bool,
}

impl ModelPullActor {
    pub fn new(
        provider: Rc<dyn Pull>,
        models: Vec<String>,
        hub: Mailbox<Hub>,
        monitor: Mailbox<ProviderMonitorActor>,
    ) -> Self {
        ModelPullActor {
            provider,
            models,
            hub,
            monitor,
            running: None,
        }
    }

    /// The model downloading now.
    fn model(&self) -> &str {
        let index = self.running.as_ref().map_or(0, |running| running.index);
        self.models.get(index).map_or("", String::as_str)
    }

    fn progress(&self, state: PullState) -> ModelPullProgress {
        ModelPullProgress {
            model: self.model().to_string(),
            state,
        }
    }

    /// The monitor checks now and announces what it finds: the worker asks again for a
    /// model it found missing.
    fn check_models(&self, ctx: &mut Context<Self>) {
        let check = self.monitor.send(CheckAndAnnounce);
        ctx.spawn(actix::fut::wrap_future(async move {
            let _ = check.await;
        }));
    }

    /// Publishes a step to the hub and the watchers; the last one ends the download.
    fn announce(&mut self, progress: ModelPullProgress) {
        self.hub.do_send(progress.clone());
        let over = progress.state.is_over();
        if let Some(running) = self.running.as_mut() {
            running
                .watchers
                .retain(|watcher| watcher.send(progress.clone()).is_ok());
            running.last = progress;
        }
        if over {
            self.running = None;
        }
    }
}

impl Actor for ModelPullActor {
    type Context = Context<Self>;
}

impl Handler<PullModel> for ModelPullActor {
    type Result = ();

    fn handle(&mut self, msg: PullModel, ctx: &mut Context<Self>) {
        let _handled = handling!("PullModel");
        if let Some(running) = self.running.as_mut() {
            // Joining: the step so far first.
            if let Some(watcher) = msg.watcher {
                if watcher.send(running.last.clone()).is_ok() {
                    running.watchers.push(watcher);
                }
            }
            return;
        }
        let first = ModelPullProgress {
            model: self.models.first().cloned().unwrap_or_default(),
            state: PullState::Running {
                status: "starting".into(),
                completed: None,
                total: None,
            },
        };
        self.running = Some(Running {
            last: first.clone(),
            watchers: msg.watcher.into_iter().collect(),
            index: 0,
            pulled: false,
        });
        tracing::info!(model = %self.model(), "downloading the model");
        self.announce(first);
        ctx.add_stream(self.provider.pull_model(self.model()));
    }
}

/// The download's steps as they come.
impl StreamHandler<Result<PullProgress, ProviderError>> for ModelPullActor {
    fn handle(&mut self, step: Result<PullProgress, ProviderError>, ctx: &mut Context<Self>) {
        let _handled = handling!("PullStep");
        let last_model = self
            .running
            .as_ref()
            .is_none_or(|running| running.index + 1 >= self.models.len());
        let state = match step {
            Ok(progress) if progress.status == "success" && last_model => PullState::Done,
            Ok(progress) if progress.status == "success" => {
                // This model is there; the next starts when this stream ends.
                tracing::info!(model = %self.model(), "model downloaded");
                self.check_models(ctx);
                if let Some(running) = self.running.as_mut() {
                    running.pulled = true;
                }
                PullState::Running {
                    status: progress.status,
                    completed: progress.completed,
                    total: progress.total,
                }
            }
            Ok(progress) => PullState::Running {
                status: progress.status,
                completed: progress.completed,
                total: progress.total,
            },
            Err(error) => {
                tracing::warn!(%error, "the model download failed");
                PullState::Failed {
                    error: error.to_string(),
                }
            }
        };
        if state == PullState::Done {
            tracing::info!(model = %self.model(), "model downloaded");
            // The monitor finds it installed and announces "ready": the work starts.
            self.check_models(ctx);
        }
        self.announce(self.progress(state));
    }

    /// A model's stream ended: after its "success", the next model starts; without it,
    /// the download ends as failed. The actor itself goes on (the default would stop
    /// it).
    fn finished(&mut self, ctx: &mut Context<Self>) {
        if let Some(running) = self.running.as_mut().filter(|running| running.pulled) {
            running.index += 1;
            running.pulled = false;
            tracing::info!(model = %self.model(), "downloading the next model");
            ctx.add_stream(self.provider.pull_model(self.model()));
            return;
        }
        if self.running.is_some() {
            let ended = PullState::Failed {
                error: "the download ended before Ollama said it was complete".into(),
            };
            self.announce(self.progress(ended));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chat_model_is_pulled_first_then_the_embedding_model_if_any_and_another() {
        assert_eq!(
            models_to_pull("llama3.2", "embeddinggemma"),
            ["llama3.2", "embeddinggemma"]
        );
        assert_eq!(models_to_pull("llama3.2", ""), ["llama3.2"], "no vectors");
        assert_eq!(models_to_pull("llama3.2", "  "), ["llama3.2"]);
        assert_eq!(
            models_to_pull("nomic-embed-text", "nomic-embed-text"),
            ["nomic-embed-text"],
            "one model doing both is pulled once"
        );
    }
}
