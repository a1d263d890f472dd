//! The worker's shell for a person's question (`Ask`): the core decides when it runs
//! (`core/ask.rs`); the actor (`mod.rs`) streams its answer from the provider down the
//! ask's channel ([`pump`]), watches the channel for the person hanging up, and drops
//! the stream of an ask that is over (the provider's request with it, which stops the
//! model). Here: the message, and the asks in hand ([`AskLines`]).

use std::collections::HashMap;

use actix::prelude::*;
use futures_util::stream::LocalBoxStream;
use futures_util::StreamExt;
use tokio::sync::mpsc::UnboundedSender;

use super::core::AskOutcome;
use crate::ai::ask::{AskEnd, AskUpdate};
use crate::ai::ProviderError;
use crate::domain::Note;

/// A person's question, with the notes retrieved for it (best first) and the channel
/// its answer goes down ([`AskUpdate`]s, the last one `End`). Closing the receiver is
/// hanging up: the answer stops.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Ask {
    /// Who asked (a page's session): a newer question of theirs replaces this one.
    pub asker: Option<String>,
    pub question: String,
    pub notes: Vec<Note>,
    pub updates: UnboundedSender<AskUpdate>,
}

/// One ask the actor carries: its channel, the task that notices a hang-up, and its
/// answer's stream while it runs.
struct AskLine {
    updates: UnboundedSender<AskUpdate>,
    watch: Option<SpawnHandle>,
    stream: Option<SpawnHandle>,
}

/// The asks in hand, by id.
#[derive(Default)]
pub struct AskLines {
    lines: HashMap<u64, AskLine>,
    last_id: u64,
}

impl AskLines {
    /// Takes an ask's channel in: its id.
    pub fn open(&mut self, updates: UnboundedSender<AskUpdate>) -> u64 {
        self.last_id += 1;
        self.lines.insert(
            self.last_id,
            AskLine {
                updates,
                watch: None,
                stream: None,
            },
        );
        self.last_id
    }

    /// The ask's channel, while it is in hand.
    pub fn updates(&self, id: u64) -> Option<UnboundedSender<AskUpdate>> {
        self.lines.get(&id).map(|line| line.updates.clone())
    }

    /// The task watching for a hang-up (`None`: it has ended).
    pub fn set_watch(&mut self, id: u64, task: Option<SpawnHandle>) {
        if let Some(line) = self.lines.get_mut(&id) {
            line.watch = task;
        }
    }

    /// The task streaming the answer (`None`: it has ended).
    pub fn set_stream(&mut self, id: u64, task: Option<SpawnHandle>) {
        if let Some(line) = self.lines.get_mut(&id) {
            line.stream = task;
        }
    }

    /// The ask is over: `end` goes down its channel (unless the person hung up), the
    /// channel closes, and its tasks still running are returned, to be cancelled.
    pub fn close(&mut self, id: u64, end: AskEnd) -> Vec<SpawnHandle> {
        let Some(line) = self.lines.remove(&id) else {
            return Vec::new();
        };
        match &end {
            AskEnd::NotAnswered { reason, detail } => {
                tracing::info!(?reason, %detail, "a question got no complete answer")
            }
            AskEnd::Answered => tracing::debug!("a question was answered"),
            AskEnd::HungUp => tracing::debug!("the person asking went away"),
        }
        if end != AskEnd::HungUp {
            let _ = line.updates.send(AskUpdate::End(end));
        }
        [line.watch, line.stream].into_iter().flatten().collect()
    }
}

/// Sends each piece of `answer` down `updates` as it comes; how the answer ended. A
/// closed channel is a hang-up, which the ask's watch reports.
pub async fn pump(
    mut answer: LocalBoxStream<'static, Result<String, ProviderError>>,
    updates: UnboundedSender<AskUpdate>,
) -> AskOutcome {
    while let Some(piece) = answer.next().await {
        match piece {
            Ok(text) => {
                let _ = updates.send(AskUpdate::Piece(text));
            }
            Err(error) => return AskOutcome::Failed(error),
        }
    }
    AskOutcome::Answered
}
