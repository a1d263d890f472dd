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
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// Pulls from an answer, counted; dropped (the model's request with it) when set.
    #[derive(Clone, Default)]
    struct Model {
        pulls: Rc<Cell<usize>>,
        dropped: Rc<Cell<bool>>,
    }

    struct Dropped(Rc<Cell<bool>>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }

    impl Model {
        /// An answer that never ends: `piece` at once, or every `pace` of virtual time.
        fn endless(
            &self,
            piece: &'static str,
            pace: Option<Duration>,
        ) -> LocalBoxStream<'static, Result<String, ProviderError>> {
            let pulls = self.pulls.clone();
            let guard = Dropped(self.dropped.clone());
            futures_util::stream::unfold(guard, move |guard| {
                let pulls = pulls.clone();
                async move {
                    if let Some(pace) = pace {
                        actix_rt::time::sleep(pace).await;
                    }
                    pulls.set(pulls.get() + 1);
                    Some((Ok(piece.to_string()), guard))
                }
            })
            .boxed_local()
        }
    }

    const WIDE: AnswerLimits = AnswerLimits {
        most_bytes: usize::MAX,
        longest: Duration::from_secs(365 * 24 * 3600),
    };

    /// Lets every task run until all wait: on paused time the clock only moves on when
    /// nothing else can run, so after this the pump is blocked.
    async fn until_idle() {
        actix_rt::time::sleep(Duration::from_secs(1)).await;
    }

    /// Before: the pump read the model as fast as it wrote, into an unbounded channel
    /// (5.9 GB with a client that read nothing).
    #[actix_rt::test]
    async fn the_model_is_read_only_as_the_person_reads_and_the_end_still_gets_through() {
        tokio::time::pause();
        let model = Model::default();
        let (updates, mut receiver) = ask_channel();
        let mut lines = AskLines::default();
        let id = lines.open(updates);
        let task = actix_rt::spawn(pump(
            model.endless("word ", None),
            lines.updates(id).unwrap(),
            WIDE,
        ));
        until_idle().await;
        assert_eq!(
            model.pulls.get(),
            ASK_PIECES_AHEAD,
            "a person who reads nothing"
        );
        for read in 1..=3 {
            assert!(matches!(receiver.recv().await, Some(AskUpdate::Piece(_))));
            until_idle().await;
            assert_eq!(model.pulls.get(), ASK_PIECES_AHEAD + read);
        }
        // The answer ends (a newer question, the service stopping) with the channel
        // full: its end still goes down, after the pieces.
        task.abort();
        assert!(task.await.unwrap_err().is_cancelled());
        lines.close(id, AskEnd::Answered);
        assert!(model.dropped.get(), "the model's request dropped");
        let mut pieces = 0;
        let end = loop {
            match receiver.recv().await {
                Some(AskUpdate::Piece(_)) => pieces += 1,
                Some(AskUpdate::End(end)) => break end,
                Some(AskUpdate::Given(_)) | None => panic!("no end"),
            }
        };
        assert_eq!((pieces, end), (ASK_PIECES_AHEAD, AskEnd::Answered));
        assert!(receiver.recv().await.is_none());
    }

    /// Drains `receiver`, the person reading at once: the text, in order.
    fn reader(mut receiver: Receiver<AskUpdate>) -> actix_rt::task::JoinHandle<String> {
        actix_rt::spawn(async move {
            let mut text = String::new();
            while let Some(AskUpdate::Piece(piece)) = receiver.recv().await {
                text.push_str(&piece);
            }
            text
        })
    }

    #[actix_rt::test]
    async fn an_endless_answer_is_cut_at_its_length_on_a_character_and_the_model_dropped() {
        tokio::time::pause();
        let model = Model::default();
        let (updates, receiver) = ask_channel();
        let read = reader(receiver);
        let limits = AnswerLimits {
            most_bytes: 1001,
            ..WIDE
        };
        // Three bytes a piece: "é" is two, so the limit falls inside one.
        let outcome = pump(model.endless("aé", None), updates, limits).await;
        assert_eq!(outcome, AskOutcome::Cut(Cut::Length(1001)));
        assert!(model.dropped.get());
        let text = read.await.unwrap();
        assert_eq!(text.len(), 1000, "333 pieces and the \"a\" of the next");
        assert!(text.ends_with("aéa"));
    }

    #[actix_rt::test]
    async fn an_answer_that_goes_on_too_long_is_cut_at_its_time_whatever_its_pace() {
        tokio::time::pause();
        let model = Model::default();
        let (updates, receiver) = ask_channel();
        let read = reader(receiver);
        let limits = AnswerLimits {
            longest: Duration::from_secs(60),
            ..WIDE
        };
        let started = tokio::time::Instant::now();
        let outcome = pump(
            model.endless("word ", Some(Duration::from_secs(7))),
            updates,
            limits,
        )
        .await;
        assert_eq!(outcome, AskOutcome::Cut(Cut::Time(Duration::from_secs(60))));
        assert_eq!(started.elapsed().as_secs(), 60);
        assert!(model.dropped.get());
        assert_eq!(read.await.unwrap(), "word ".repeat(8));

        // A person who reads nothing does not hold the model past it either.
        let model = Model::default();
        let (updates, _unread) = ask_channel();
        let started = tokio::time::Instant::now();
        let outcome = pump(model.endless("word ", None), updates, limits).await;
        assert_eq!(outcome, AskOutcome::Cut(Cut::Time(Duration::from_secs(60))));
        assert_eq!(started.elapsed().as_secs(), 60);
        assert!(model.dropped.get());
    }

    #[actix_rt::test]
    async fn a_person_who_hangs_up_frees_the_answer_at_once() {
        tokio::time::pause();
        let model = Model::default();
        let (updates, receiver) = ask_channel();
        let task = actix_rt::spawn(pump(model.endless("word ", None), updates, WIDE));
        until_idle().await;
        assert!(!model.dropped.get());
        drop(receiver);
        assert_eq!(task.await.unwrap(), AskOutcome::HungUp);
        assert!(model.dropped.get());
    }

    #[test]
    fn the_limits_give_the_first_piece_its_wait_and_the_writing_its_time() {
        let plan = ChatPlan {
            messages: Vec::new(),
            context_tokens: 8192,
            output_tokens: 512,
            first_piece: Duration::from_secs(120),
            stall: Duration::from_secs(60),
        };
        assert_eq!(
            AnswerLimits::of(&plan),
            AnswerLimits {
                most_bytes: ASK_MOST_BYTES,
                longest: Duration::from_secs(420)
            }
        );
    }
}
