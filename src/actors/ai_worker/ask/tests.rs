//! The unit tests of `ask.rs`.
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
        // The model's pace: one piece a tick of a timer on the test's paused clock.
        let ticks = pace
            .map(|pace| actix_rt::time::interval_at(actix_rt::time::Instant::now() + pace, pace));
        futures_util::stream::unfold((guard, ticks), move |(guard, mut ticks)| {
            let pulls = pulls.clone();
            async move {
                if let Some(ticks) = ticks.as_mut() {
                    ticks.tick().await;
                }
                pulls.set(pulls.get() + 1);
                Some((Ok(piece.to_string()), (guard, ticks)))
            }
        })
        .boxed_local()
    }
}

const WIDE: AnswerLimits = AnswerLimits {
    most_bytes: usize::MAX,
    longest: Duration::from_secs(365 * 24 * 3600),
};

/// Lets the pump run until it is blocked, without a timer: the tasks are polled
/// (`yield_now`) until a round of polls changes nothing the model saw. The pump then
/// waits on the channel (or on the model), which is what the tests look at.
async fn until_idle(model: &Model) {
    loop {
        let before = model.pulls.get();
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
        if model.pulls.get() == before {
            return;
        }
    }
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
    until_idle(&model).await;
    assert_eq!(
        model.pulls.get(),
        ASK_PIECES_AHEAD,
        "a person who reads nothing"
    );
    for read in 1..=3 {
        assert!(matches!(receiver.recv().await, Some(AskUpdate::Piece(_))));
        until_idle(&model).await;
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
    until_idle(&model).await;
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
