//! A call given up is given up by the real server too: every chat inkling makes is
//! streamed, so dropping the call (its deadline passed, `transport::call_within`)
//! closes the connection, llama-server takes that as a cancel, and its one slot is
//! free for the next note at once instead of writing the rest of an answer nobody
//! reads.
//!
//! The call is dropped here while the model writes its answer (the slot's
//! `n_decoded` above zero), not at a deadline: on a loaded machine a one-second
//! deadline may fall while the server still reads the prompt, which it cannot leave
//! in the middle of a batch. That the deadline drops the call is the fakes' to show
//! (tests/pipeline/openai.rs); what the real server does then is this test's.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use inkling::ai::CallPlan;
use inkling::configuration::{Settings, UserFile};

use crate::eventually::eventually_within;
use crate::llama::{log_tail, LlamaServer, CONTEXT_TOKENS};
use crate::ports::free_port;
use crate::texts;
use crate::tools::{ChatModel, Tools};

/// How soon after the hang-up the slot must be free.
const SLOT_FREED_WITHIN: Duration = Duration::from_secs(1);
/// Reading the prompt and writing a first token, on a loaded machine.
const UNTIL_WRITING: Duration = Duration::from_secs(180);

#[actix_rt::test]
async fn a_streamed_enrichment_dropped_while_the_model_writes_frees_the_slot_within_a_second() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let model = ChatModel::SmolLm2;
    let tools = Tools::for_model(model);
    let dir = tempfile::tempdir().expect("a scratch folder");
    let log = dir.path().join("llama-server.log");
    let port = free_port();
    let server = LlamaServer::start(&tools, port, model.alias(), &log).await;
    let env = HashMap::from([
        ("INKLING_AI__PROVIDER".to_string(), "openai".to_string()),
        (
            "INKLING_OPENAI__URL".to_string(),
            format!("http://127.0.0.1:{port}/v1"),
        ),
        (
            "INKLING_OPENAI__MODEL".to_string(),
            model.alias().to_string(),
        ),
    ]);
    let settings = Settings::load_with_env(&UserFile::None, env).expect("the settings");
    let provider = inkling::ai::provider_for(&settings);

    // A generous deadline: the call is dropped by the test, not by it.
    let plan = CallPlan::first_try(
        texts::ENGLISH,
        &[],
        Duration::from_secs(600),
        CONTEXT_TOKENS,
    );
    let call = actix_rt::spawn(provider.chat.enrich(plan));
    eventually_within(UNTIL_WRITING, "the model writing its answer", || {
        let written = server.tokens_written();
        assert!(
            !call.is_finished(),
            "the answer was complete before the test saw a token of it: nothing to hang up"
        );
        async move { written.filter(|n| *n > 0) }
    })
    .await;
    call.abort();
    let _ = call.await;
    let hung_up = Instant::now();

    let freed = eventually_within(SLOT_FREED_WITHIN * 10, "llama-server's slot free", || {
        let busy = server.is_processing();
        async move { (!busy).then(Instant::now) }
    })
    .await;
    let log = log_tail(&log);
    assert!(
        freed - hung_up <= SLOT_FREED_WITHIN,
        "the slot was busy {:?} after the hang-up; the server's log:\n{log}",
        freed - hung_up
    );
    assert!(
        log.contains("cancel task"),
        "the server finished the call instead of taking the hang-up as a cancel:\n{log}"
    );
}
