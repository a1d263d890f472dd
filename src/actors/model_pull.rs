//! `ModelPullActor`: downloads the configured model through Ollama (`POST /api/pull`)
//! when the person asks for it (`inkling pull-model`, the page's Download button), so
//! the first day of an install does not need a terminal.
//!
//! One download at a time: asking while one runs joins it. Each step is published as
//! `ModelPullProgress` (the page's progress bar, through the live feed) and sent to
//! whoever asked for it (the CLI's progress line, through the streamed answer). When
//! it is done the monitor checks at once (`CheckNow`): it finds the model, announces
//! "ready", and the worker starts.

use std::rc::Rc;

use actix::prelude::*;
use tokio::sync::mpsc::UnboundedSender;

use super::handling;
use super::hub::Hub;
use super::mailbox::Mailbox;
use super::ollama_monitor::{CheckNow, OllamaMonitorActor};
use crate::ai::{EnrichmentProvider, ProviderError, PullProgress};
use crate::events::{ModelPullProgress, PullState};

/// Download the model (or join the download under way); its progress goes to
/// `watcher` as well as to the hub, up to and including the last step.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct PullModel {
    pub watcher: Option<UnboundedSender<ModelPullProgress>>,
}

pub struct ModelPullActor {
    provider: Rc<dyn EnrichmentProvider>,
    model: String,
    hub: Mailbox<Hub>,
    monitor: Mailbox<OllamaMonitorActor>,
    /// The download under way: its last step, and who watches it.
    running: Option<Running>,
}

struct Running {
    last: ModelPullProgress,
    watchers: Vec<UnboundedSender<ModelPullProgress>>,
}

impl ModelPullActor {
    pub fn new(
        provider: Rc<dyn EnrichmentProvider>,
        model: String,
        hub: Mailbox<Hub>,
        monitor: Mailbox<OllamaMonitorActor>,
    ) -> Self {
        ModelPullActor {
            provider,
            model,
            hub,
            monitor,
            running: None,
        }
    }

    fn progress(&self, state: PullState) -> ModelPullProgress {
        ModelPullProgress {
            model: self.model.clone(),
            state,
        }
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
        tracing::info!(model = %self.model, "downloading the model");
        let first = self.progress(PullState::Running {
            status: "starting".into(),
            completed: None,
            total: None,
        });
        self.running = Some(Running {
            last: first.clone(),
            watchers: msg.watcher.into_iter().collect(),
        });
        self.announce(first);
        ctx.add_stream(self.provider.pull_model());
    }
}

/// The download's steps as they come.
impl StreamHandler<Result<PullProgress, ProviderError>> for ModelPullActor {
    fn handle(&mut self, step: Result<PullProgress, ProviderError>, ctx: &mut Context<Self>) {
        let _handled = handling!("PullStep");
        let state = match step {
            Ok(progress) if progress.status == "success" => PullState::Done,
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
            tracing::info!(model = %self.model, "model downloaded");
            // The monitor finds it installed and announces "ready": the work starts.
            let check = self.monitor.send(CheckNow);
            ctx.spawn(actix::fut::wrap_future(async move {
                let _ = check.await;
            }));
        }
        self.announce(self.progress(state));
    }

    /// A stream that stops without its last step still ends the download; the actor
    /// itself goes on (the default would stop it).
    fn finished(&mut self, _: &mut Context<Self>) {
        if self.running.is_some() {
            let ended = PullState::Failed {
                error: "the download ended before Ollama said it was complete".into(),
            };
            self.announce(self.progress(ended));
        }
    }
}
