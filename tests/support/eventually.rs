//! Waiting, in real time, for something another thread or process does: a desktop bus,
//! a browser, a child process. Written once so that every such wait has a limit and
//! says what it waited for when the limit passes.
//!
//! Not for the pipeline's tests on virtual time: there "nothing happened" and "it
//! happened" are shown by a barrier through the actors (`Pipeline::settle`), never by
//! polling.

#![allow(dead_code)] // each test crate uses what it needs

use std::future::Future;
use std::time::{Duration, Instant};

/// How long [`eventually`] waits before it fails the test.
pub const LIMIT: Duration = Duration::from_secs(10);
/// The pause between two looks.
const PAUSE: Duration = Duration::from_millis(25);

/// Looks with `probe` until it gives `Some`, and returns that; panics naming `what`
/// after [`LIMIT`].
pub async fn eventually<T, Probe, Look>(what: &str, probe: Probe) -> T
where
    Probe: FnMut() -> Look,
    Look: Future<Output = Option<T>>,
{
    eventually_within(LIMIT, what, probe).await
}

/// [`eventually`] with a limit of its own (a browser start, a model download).
pub async fn eventually_within<T, Probe, Look>(limit: Duration, what: &str, probe: Probe) -> T
where
    Probe: FnMut() -> Look,
    Look: Future<Output = Option<T>>,
{
    eventually_within_every(limit, PAUSE, what, probe).await
}

/// [`eventually_within`] looking every `pause`: for a wait of minutes (a real model's
/// answers), where looking forty times a second would only take CPU from the model.
pub async fn eventually_within_every<T, Probe, Look>(
    limit: Duration,
    pause: Duration,
    what: &str,
    mut probe: Probe,
) -> T
where
    Probe: FnMut() -> Look,
    Look: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "waited {limit:?} and never saw {what}"
        );
        tokio::time::sleep(pause).await;
    }
}
