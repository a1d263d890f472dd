//! The worker's shell for a person's question (`Ask`): the core decides when it runs
//! (`core/ask.rs`); the actor (`mod.rs`) streams its answer from the provider down the
//! ask's channel ([`pump`]), watches the channel for the person hanging up, and drops
//! the stream of an ask that is over (the provider's request with it, which stops the
//! model). Here: the message, the channel ([`ask_channel`]), the asks in hand
//! ([`AskLines`]) and the pump with its limits ([`AnswerLimits`]).
//!
//! An answer is never held in memory beyond a few pieces, whatever the model server
//! sends and however slowly the person reads: the channel is bounded, and the pump
//! reads the model's next piece only once the channel has room for it, so a client that
//! reads nothing stops the reading from the model (its connection's window fills and
//! the server waits). An answer is also cut at [`ASK_MOST_BYTES`] and at
//! [`AnswerLimits::longest`], whatever the server does with the answer's token limit;
//! the cut answer ends with `too_long` (what came stands).

use std::collections::HashMap;
use std::time::Duration;

use actix::prelude::*;
use futures_util::stream::LocalBoxStream;
use futures_util::StreamExt;
use tokio::sync::mpsc::{channel, OwnedPermit, Receiver, Sender};

use super::core::{AskOutcome, Cut};
use crate::ai::ask::{AskEnd, AskUpdate, ChatPlan};
use crate::ai::ProviderError;
use crate::domain::Note;

/// Pieces of an answer waiting for the person, at most: a few, so the model's next
/// piece is read only as the person reads (each piece is a few tokens).
pub const ASK_PIECES_AHEAD: usize = 8;

/// The longest answer, in bytes of text (`crate::api::ask::MAX_ANSWER_BYTES`).
pub const ASK_MOST_BYTES: usize = crate::api::ask::MAX_ANSWER_BYTES;

/// How long the answer may take once its first piece may have come: a CPU writes the
/// answer's room in a minute or two.
pub const ASK_WRITING_TIME: Duration = Duration::from_secs(5 * 60);

/// An ask's channel: [`ASK_PIECES_AHEAD`] pieces, and one more place kept for the end
/// ([`AskLines::open`]), so the end is said even to a person who reads nothing.
pub fn ask_channel() -> (Sender<AskUpdate>, Receiver<AskUpdate>) {
    channel(ASK_PIECES_AHEAD + 1)
}

/// How much an answer may be, whatever the server does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerLimits {
    /// Bytes of text, at most.
    pub most_bytes: usize,
    /// From the call's start to the answer's end, at most.
    pub longest: Duration,
}

impl AnswerLimits {
    /// The limits of a planned answer: [`ASK_MOST_BYTES`], and the first piece's wait
    /// with [`ASK_WRITING_TIME`] after it.
    pub fn of(plan: &ChatPlan) -> Self {
        AnswerLimits {
            most_bytes: ASK_MOST_BYTES,
            longest: plan.first_piece + ASK_WRITING_TIME,
        }
    }
}

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
    /// From [`ask_channel`].
    pub updates: Sender<AskUpdate>,
}

/// One ask the actor carries: its channel, the place kept in it for the end, the task
/// that notices a hang-up, and its answer's stream while it runs.
struct AskLine {
    updates: Sender<AskUpdate>,
    /// `None` when the person had hung up already.
    end: Option<OwnedPermit<AskUpdate>>,
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
    /// Takes an ask's channel in (fresh from [`ask_channel`]): its id. The end's place
    /// is taken now, while the channel is empty.
    pub fn open(&mut self, updates: Sender<AskUpdate>) -> u64 {
        self.last_id += 1;
        let end = updates.clone().try_reserve_owned().ok();
        self.lines.insert(
            self.last_id,
            AskLine {
                updates,
                end,
                watch: None,
                stream: None,
            },
        );
        self.last_id
    }

    /// The ask's channel, while it is in hand.
    pub fn updates(&self, id: u64) -> Option<Sender<AskUpdate>> {
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
        if let Some(place) = line.end.filter(|_| end != AskEnd::HungUp) {
            place.send(AskUpdate::End(end));
        }
        [line.watch, line.stream].into_iter().flatten().collect()
    }
}

/// Sends each piece of `answer` down `updates`, reading the next piece from the model
/// only once the channel has room for it; how the answer ended. A closed channel is a
/// hang-up (which the ask's watch reports too). The answer is cut past `limits`: the
/// piece that passes `most_bytes` goes as far as the limit, and nothing is read after
/// `longest`, whatever the model or the person is doing then.
pub async fn pump(
    mut answer: LocalBoxStream<'static, Result<String, ProviderError>>,
    updates: Sender<AskUpdate>,
    limits: AnswerLimits,
) -> AskOutcome {
    let pumping = async move {
        let mut written = 0usize;
        loop {
            let Ok(place) = updates.reserve().await else {
                return AskOutcome::HungUp;
            };
            let piece = match answer.next().await {
                None => return AskOutcome::Answered,
                Some(Err(error)) => return AskOutcome::Failed(error),
                Some(Ok(piece)) => piece,
            };
            let room = limits.most_bytes - written;
            if piece.len() > room {
                let mut end = room;
                while !piece.is_char_boundary(end) {
                    end -= 1;
                }
                if end > 0 {
                    place.send(AskUpdate::Piece(piece[..end].to_string()));
                }
                return AskOutcome::Cut(Cut::Length(limits.most_bytes));
            }
            written += piece.len();
            place.send(AskUpdate::Piece(piece));
        }
    };
    actix_rt::time::timeout(limits.longest, pumping)
        .await
        .unwrap_or(AskOutcome::Cut(Cut::Time(limits.longest)))
}

#[cfg(test)]
mod tests;
