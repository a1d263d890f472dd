//! The actor graph on virtual time.
//!
//! Tests run under `#[actix_rt::test(system = "PausedSystem")]`: tokio's clock starts
//! paused and moves only when the test calls `advance`, so a 900 s backoff takes no
//! real time. Two rules keep that exact (docs/PLATFORM.md, "actix: timers, cancellation and virtual time"):
//! - the runtime must never go idle while real work is pending (an idle paused
//!   runtime jumps to its next timer). The repository answers from its own thread, so
//!   tests never `.await` an actor's reply while timers are pending; they wait with
//!   [`Pipeline::settle_until`], which keeps yielding (never idle) and reads the
//!   database through its own connection;
//! - the fake provider runs on the same runtime, so its answers need no real time.
//!
//! The provider is the fake Ollama, or with [`Pipeline::start_openai`] the fake
//! OpenAI-compatible server (`ai.provider = "openai"`); [`Pipeline::start_voice`] adds
//! the fake speech-to-text server (`[transcription]`, voice notes on).

use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use inkling::actors::ai_worker::GetWorkerStatus;
use inkling::actors::hub::Subscribe;
use inkling::actors::mailbox::Mailbox;
use inkling::actors::provider_monitor::IsChecking;
use inkling::actors::repository::GetCounts;
use inkling::actors::telemetry::FlushUsageLog;
use inkling::actors::transcriber::IsTranscribing;
use inkling::api::worker::WorkerState;
use inkling::clock::{Clock, TokioClock};
use inkling::configuration::Settings;
use inkling::events::FailedCountChanged;
use inkling::services::Services;
use inkling::storage::{Integrity, Store};
use rusqlite::OptionalExtension;

use crate::fake_ollama::FakeOllama;
use crate::fake_openai::FakeOpenAi;
use crate::fake_whisper::FakeWhisper;

/// How long a wait on the actors may take in real time before the test fails. Only a
/// guard against a hang: every wait is for work already set off, on a frozen clock.
/// Generous, because on a loaded machine (CI's two cores shared with other test
/// binaries and builds) the repository's thread and the fake's sockets get the CPU
/// late: 10 s was seen to run out there while nothing was wrong.
pub const REAL_TIME_LIMIT: Duration = Duration::from_secs(60);

pub struct PausedSystem;

impl PausedSystem {
    /// `#[actix_rt::test(system = "...")]` calls `<System>::new()` and wants a runner.
    #[allow(clippy::new_ret_no_self)]
    pub fn new() -> actix_rt::SystemRunner {
        actix_rt::System::with_tokio_rt(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .expect("a paused runtime")
        })
    }
}

pub fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// Records every `FailedCountChanged` the hub publishes.
#[derive(Default, Clone)]
pub struct FailedCounts(pub Arc<Mutex<Vec<u64>>>);

struct FailedCountRecorder(FailedCounts);

impl Actor for FailedCountRecorder {
    type Context = Context<Self>;
}

impl Handler<FailedCountChanged> for FailedCountRecorder {
    type Result = ();
    fn handle(&mut self, msg: FailedCountChanged, _: &mut Context<Self>) {
        self.0 .0.lock().unwrap().push(msg.count);
    }
}

/// A note's row, read from the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteRow {
    pub status: String,
    pub error: Option<String>,
    /// `(attempts, next_run_at, wait_reason)` while it has a job row.
    pub job: Option<(u32, String, Option<String>)>,
}

pub struct Pipeline {
    pub services: Services,
    pub fake: FakeOllama,
    /// The OpenAI-compatible fake, when it is the provider (`fake` then only listens).
    pub openai: Option<FakeOpenAi>,
    /// The speech-to-text fake, when voice notes are on ([`Pipeline::start_voice`]).
    pub whisper: Option<FakeWhisper>,
    pub clock: TokioClock,
    pub failed_counts: FailedCounts,
    pub settings: Settings,
    reader: rusqlite::Connection,
    _dir: tempfile::TempDir,
}

/// Settings for a pipeline test: the fake's URL, a fresh data dir, plus `extra`.
pub fn pipeline_settings(dir: &std::path::Path, url: &str, extra: &[(&str, &str)]) -> Settings {
    let mut env = vec![("INKLING_OLLAMA__URL", url)];
    env.extend_from_slice(extra);
    crate::service::test_settings(dir, &env)
}

impl Pipeline {
    /// Starts the actors with the fake provider up and answering `Ok`.
    pub async fn start(extra: &[(&str, &str)]) -> Pipeline {
        let fake = FakeOllama::start_new().await;
        Self::start_with(fake, tempfile::tempdir().unwrap(), extra).await
    }

    /// Starts the actors with the fake OpenAI-compatible server as the provider, up
    /// and answering `Ok`, its model configured.
    pub async fn start_openai(extra: &[(&str, &str)]) -> Pipeline {
        let openai = FakeOpenAi::start_new().await;
        let (url, model) = (openai.url(), openai.model());
        let mut settings = vec![
            ("INKLING_AI__PROVIDER", "openai"),
            ("INKLING_OPENAI__URL", url.as_str()),
            ("INKLING_OPENAI__MODEL", model.as_str()),
        ];
        settings.extend_from_slice(extra);
        let fake = FakeOllama::start_new().await;
        Self::start_on(
            fake,
            Some(openai),
            None,
            tempfile::tempdir().unwrap(),
            &settings,
            Integrity::sound(),
        )
        .await
    }

    /// Starts the actors with the fake Ollama and voice notes on: the fake
    /// speech-to-text server, up and answering, as `[transcription]`.
    pub async fn start_voice(extra: &[(&str, &str)]) -> Pipeline {
        Self::start_voice_in(tempfile::tempdir().unwrap(), extra).await
    }

    /// [`Pipeline::start_voice`] on an existing data dir (a restart).
    pub async fn start_voice_in(dir: tempfile::TempDir, extra: &[(&str, &str)]) -> Pipeline {
        let whisper = FakeWhisper::start_new().await;
        let url = whisper.url();
        let mut settings = vec![("INKLING_TRANSCRIPTION__URL", url.as_str())];
        settings.extend_from_slice(extra);
        let fake = FakeOllama::start_new().await;
        Self::start_on(
            fake,
            None,
            Some(whisper),
            dir,
            &settings,
            Integrity::sound(),
        )
        .await
    }

    /// Starts the actors on an existing data dir (a restart) with a given fake.
    pub async fn start_with(
        fake: FakeOllama,
        dir: tempfile::TempDir,
        extra: &[(&str, &str)],
    ) -> Pipeline {
        Self::start_on(fake, None, None, dir, extra, Integrity::sound()).await
    }

    /// Like [`Pipeline::start_with`], the check at start still reading the file: the
    /// test decides its verdict through the `Integrity` returned.
    pub async fn start_while_checking(
        dir: tempfile::TempDir,
        extra: &[(&str, &str)],
    ) -> (Pipeline, Arc<Integrity>) {
        let integrity = Integrity::undecided();
        let fake = FakeOllama::start_new().await;
        let pipeline = Self::start_on(fake, None, None, dir, extra, integrity.clone()).await;
        (pipeline, integrity)
    }

    async fn start_on(
        fake: FakeOllama,
        openai: Option<FakeOpenAi>,
        whisper: Option<FakeWhisper>,
        dir: tempfile::TempDir,
        extra: &[(&str, &str)],
        integrity: Arc<Integrity>,
    ) -> Pipeline {
        let settings = pipeline_settings(dir.path(), &fake.url(), extra);
        let clock = TokioClock::starting_at(t0());
        let db_path = settings.database_path();
        let store = Store::open_checked(&db_path, settings.expiry.days, integrity).unwrap();
        let provider = inkling::ai::provider_for(&settings)
            .with_transcription(inkling::ai::transcription_for(&settings));
        let services = Services::start(
            &settings,
            Arc::new(clock.clone()),
            store,
            db_path.clone(),
            provider,
        )
        .expect("the services start");
        let failed_counts = FailedCounts::default();
        let recorder = Mailbox::from(FailedCountRecorder(failed_counts.clone()).start());
        services.hub.do_send(Subscribe(recorder.recipient()));
        let reader = rusqlite::Connection::open(&db_path).unwrap();
        let pipeline = Pipeline {
            services,
            fake,
            openai,
            whisper,
            clock,
            failed_counts,
            settings,
            reader,
            _dir: dir,
        };
        pipeline.settle().await;
        pipeline
    }

    /// The speech-to-text fake (a pipeline started with [`Pipeline::start_voice`]).
    pub fn whisper(&self) -> &FakeWhisper {
        self.whisper.as_ref().expect("started with start_voice")
    }

    /// The speech-to-text fake, to stop and start it.
    pub fn whisper_mut(&mut self) -> &mut FakeWhisper {
        self.whisper.as_mut().expect("started with start_voice")
    }

    /// Captures a recording through the inbox use case; returns its note's id.
    pub async fn capture_voice(&self, audio: Vec<u8>) -> String {
        self.run(
            self.services
                .inbox
                .capture_voice(audio, inkling::api::voice::AudioFormat::Wav),
        )
        .await
        .expect("captured")
        .id
    }

    /// The OpenAI-compatible fake (a pipeline started with [`Pipeline::start_openai`]).
    pub fn openai(&self) -> &FakeOpenAi {
        self.openai.as_ref().expect("started with start_openai")
    }

    /// Calls the fakes hold open, and calls they have seen (chat and embeddings),
    /// whichever is the provider.
    fn provider_calls(&self) -> (usize, usize) {
        let openai = self.openai.as_ref().map_or((0, 0), |o| {
            (o.held_calls(), o.calls().len() + o.embed_calls().len())
        });
        let whisper = self
            .whisper
            .as_ref()
            .map_or((0, 0), |w| (w.held_calls(), w.calls().len()));
        (
            self.fake.held_calls() + openai.0 + whisper.0,
            self.fake.calls().len() + self.fake.embed_calls().len() + openai.1 + whisper.1,
        )
    }

    /// Seconds of virtual time since the pipeline started.
    pub fn elapsed(&self) -> f64 {
        (self.clock.now() - t0()).num_milliseconds() as f64 / 1000.0
    }

    /// Lets virtual time pass (timers due in it fire), then lets the work settle.
    pub async fn advance(&self, by: Duration) {
        tokio::time::advance(by).await;
        self.settle().await;
    }

    /// A barrier: returns once everything already set off has run its course, with
    /// virtual time standing still. It asks the actors themselves, round trip by round
    /// trip, never waits for a length of real time: the worker has no call or
    /// bookkeeping in flight (a call the fake holds open does not count), the monitor
    /// no health check, and round trips through the repository and the usage log
    /// (first in, first out) show that what was sent to them is done. Two rounds in a
    /// row must agree, so a cascade (a check that resumes the worker) is waited out.
    /// Fails the test after [`REAL_TIME_LIMIT`].
    pub async fn settle(&self) {
        let deadline = std::time::Instant::now() + REAL_TIME_LIMIT;
        let mut last = None;
        loop {
            let worker = self.ask(&self.services.worker, GetWorkerStatus).await;
            let checking = self.ask(&self.services.monitor, IsChecking).await;
            // The voice notes' worker's call in flight counts as the worker's does.
            let transcribing = match &self.services.transcriber {
                Some(transcriber) => self.ask(transcriber, IsTranscribing).await,
                None => false,
            };
            let (held, calls) = self.provider_calls();
            let calling = (matches!(
                worker.state,
                WorkerState::Running { .. }
                    | WorkerState::LoadingModel
                    | WorkerState::Embedding { .. }
            ) || transcribing)
                && held == 0;
            if !calling && !checking {
                let now = self.clock.now();
                let counts = self
                    .ask(&self.services.repository, GetCounts { now })
                    .await
                    .expect("the repository answers");
                self.ask(&self.services.telemetry, FlushUsageLog).await;
                let round = (worker, counts, calls);
                if last.as_ref() == Some(&round) {
                    return;
                }
                last = Some(round);
            } else {
                last = None;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the pipeline never settled"
            );
            tokio::task::yield_now().await;
        }
    }

    /// Yields (never idling, virtual time frozen) until `condition` holds; fails the
    /// test after [`REAL_TIME_LIMIT`].
    pub async fn settle_until(&self, what: &str, condition: impl Fn(&Self) -> bool) {
        let deadline = std::time::Instant::now() + REAL_TIME_LIMIT;
        while !condition(self) {
            assert!(
                std::time::Instant::now() < deadline,
                "never happened: {what}"
            );
            tokio::task::yield_now().await;
        }
    }

    /// Sends a message and waits for the reply without letting the runtime idle
    /// (a plain `.await` could let the paused clock jump while the repository works).
    pub async fn ask<A, M>(&self, addr: &Mailbox<A>, message: M) -> M::Result
    where
        A: Actor + Handler<M>,
        A::Context: actix::dev::ToEnvelope<A, M>,
        M: Message + Send + 'static,
        M::Result: Send + 'static,
    {
        let slot = Rc::new(std::cell::RefCell::new(None));
        let filled = slot.clone();
        let request = addr.send(message);
        actix_rt::spawn(async move {
            *filled.borrow_mut() = Some(request.await);
        });
        let deadline = std::time::Instant::now() + REAL_TIME_LIMIT;
        loop {
            if let Some(reply) = slot.borrow_mut().take() {
                return reply.expect("the actor is running");
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no reply within the real-time limit"
            );
            tokio::task::yield_now().await;
        }
    }

    /// Runs a use case (`p.services.inbox.…`) to its end without letting the runtime
    /// idle: it is polled in place, yielding between polls, as [`Pipeline::ask`] does.
    pub async fn run<F: std::future::Future>(&self, work: F) -> F::Output {
        let mut work = std::pin::pin!(work);
        let deadline = std::time::Instant::now() + REAL_TIME_LIMIT;
        loop {
            let polled =
                std::future::poll_fn(|cx| std::task::Poll::Ready(work.as_mut().poll(cx))).await;
            if let std::task::Poll::Ready(done) = polled {
                return done;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "not done within the real-time limit"
            );
            tokio::task::yield_now().await;
        }
    }

    /// Captures a note through the inbox use case; returns its id.
    pub async fn capture(&self, text: &str) -> String {
        let body = inkling::domain::NoteBody::parse(text.to_string(), 65536).unwrap();
        self.run(self.services.inbox.capture(body))
            .await
            .expect("captured")
            .id
    }

    /// A note's row and job row, read through the test's own connection.
    pub fn note(&self, id: &str) -> NoteRow {
        let (status, error) = self
            .reader
            .query_row(
                "SELECT ai_status, ai_error FROM notes WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let job = self
            .reader
            .query_row(
                "SELECT attempts, next_run_at, wait_reason FROM pending_jobs WHERE note_id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .unwrap();
        NoteRow { status, error, job }
    }

    /// The test's own connection to the database (reads only).
    pub fn reader(&self) -> &rusqlite::Connection {
        &self.reader
    }

    /// One column of a note's row.
    pub fn note_column<T: rusqlite::types::FromSql>(&self, id: &str, column: &str) -> T {
        self.reader
            .query_row(
                &format!("SELECT {column} FROM notes WHERE id = ?1"),
                [id],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// A pending note's count of timeouts while Ollama was up (`None`: no job row).
    pub fn slow_timeouts(&self, id: &str) -> Option<u32> {
        self.reader
            .query_row(
                "SELECT slow_timeouts FROM pending_jobs WHERE note_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .unwrap()
    }

    /// How many notes wait for their search entries (`search_pending`).
    pub fn search_pending(&self) -> i64 {
        self.reader
            .query_row("SELECT count(*) FROM search_pending", [], |r| r.get(0))
            .unwrap()
    }

    /// The change log as `(note, kind)`, oldest first.
    pub fn change_log(&self) -> Vec<(String, String)> {
        let mut stmt = self
            .reader
            .prepare("SELECT note_id, kind FROM note_changes ORDER BY seq")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        rows
    }

    pub fn count_with_status(&self, status: &str) -> i64 {
        self.reader
            .query_row(
                "SELECT COUNT(*) FROM notes WHERE ai_status = ?1",
                [status],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// The highest `attempts` of any job row.
    pub fn max_attempts_spent(&self) -> i64 {
        self.reader
            .query_row(
                "SELECT COALESCE(MAX(attempts), 0) FROM pending_jobs",
                [],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// Every usage event written so far, as `(kind, payload)`.
    pub fn usage_events(&self) -> Vec<(String, serde_json::Value)> {
        let dir = self.settings.data_dir().join("telemetry");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_default()
                    .lines()
                    .map(|line| {
                        let record: serde_json::Value = serde_json::from_str(line).unwrap();
                        (
                            record["kind"].as_str().unwrap().to_string(),
                            record["payload"].clone(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    pub fn events_of(&self, kind: &str) -> Vec<serde_json::Value> {
        self.usage_events()
            .into_iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, payload)| payload)
            .collect()
    }

    /// The note each `/api/chat` call asked about, in order.
    pub fn asked(&self) -> Vec<String> {
        self.fake
            .calls()
            .iter()
            .map(|c| {
                c.request["messages"][1]["content"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    /// Every breach of the database's invariants (`Store::invariant_violations`).
    pub fn invariant_violations(&self) -> Vec<String> {
        Store::open(&self.settings.database_path(), self.settings.expiry.days)
            .unwrap()
            .invariant_violations()
            .unwrap()
    }

    /// When (virtual time) the fake first answered with an enrichment.
    pub fn first_enrichment_at(&self) -> tokio::time::Instant {
        self.fake
            .calls()
            .iter()
            .find(|c| c.reply == crate::fake_ollama::Reply::Ok)
            .expect("an enrichment was answered")
            .at
    }

    /// Seconds (virtual) from the pipeline's start to each `/api/chat` call.
    pub fn call_times(&self, start: tokio::time::Instant) -> Vec<f64> {
        self.fake
            .calls()
            .iter()
            .map(|c| (c.at - start).as_secs_f64())
            .collect()
    }
}

/// Seconds between now (virtual) and a job's `next_run_at`.
pub fn seconds_until(clock: &TokioClock, next_run_at: &str) -> f64 {
    let at = DateTime::parse_from_rfc3339(next_run_at)
        .unwrap()
        .with_timezone(&Utc);
    (at - clock.now()).num_milliseconds() as f64 / 1000.0
}
