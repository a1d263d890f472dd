//! The inbox page's banners in Chromium: failed notes, Ollama down or back, the model
//! download, slow notes, another program on Ollama's port, and their order.

use serde_json::json;

use super::failed_notes;
use crate::fake_ollama::Reply;
use crate::harness::start;

#[actix_rt::test]
async fn the_failed_banner_shows_n_retry_hides_it_at_once_and_the_notes_finish() {
    let browser = start(&[]).await;
    failed_notes(&browser, 2).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;
    assert_eq!(
        browser.text("#failed-banner .text").await,
        "The AI couldn't finish 2 notes. They're safe."
    );
    let colours = browser
        .eval("const s = getComputedStyle(document.getElementById('failed-banner')); return [s.backgroundColor, s.color];")
        .await;
    assert_eq!(colours, json!(["rgb(252, 228, 228)", "rgb(170, 51, 51)"]));

    browser.fake.set_default(Reply::Ok);
    // Clicking Retry hides the banner before any answer comes back (optimistic).
    let shown_after_click = browser
        .eval(&format!(
            "document.getElementById('retry').click(); return {};",
            crate::harness::shown("failed-banner")
        ))
        .await;

    assert_eq!(shown_after_click, json!(false), "hidden at once");
    browser
        .wait_until(
            "both notes done",
            "document.querySelectorAll('#notes li[data-status=done]').length === 2",
        )
        .await;
    assert!(!browser.is_shown("failed-banner").await);
    browser.close().await;
}

#[actix_rt::test]
async fn when_ollama_comes_back_the_banner_goes_and_the_recovery_toast_shows() {
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    assert!(!browser.is_shown("provider-banner").await);

    // Ollama stops; the next call fails and the monitor confirms the outage.
    browser.fake.stop();
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "while it is down" })),
        )
        .await;
    browser.wait_visible("provider-banner").await;
    assert!(!browser.is_shown("recovery-toast").await);

    // Back within a health interval: the banner goes, the toast says so, the note runs.
    browser.fake.start().await;
    browser.wait_visible("recovery-toast").await;
    assert!(!browser.is_shown("provider-banner").await);
    assert_eq!(
        browser.text("#recovery-toast").await,
        "Ollama is back: processing your notes."
    );
    browser
        .wait_until(
            "the note is enriched after the recovery",
            "[...document.querySelectorAll('#notes li[data-status=done] h3')].some(h => h.textContent === 'while it is down')",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_korean_page_shows_the_seed_strings() {
    let browser = start(&[("INKLING_LOCALE", "ko")]).await;
    failed_notes(&browser, 1).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;

    assert_eq!(
        browser.text("#failed-banner .text").await,
        "AI가 노트 1개를 끝내지 못했습니다. 노트는 안전합니다."
    );
    assert_eq!(browser.text("#retry").await, "다시 시도");
    assert_eq!(
        browser.eval("return document.documentElement.lang;").await,
        json!("ko")
    );
    for id in [
        "provider-banner",
        "recovery-toast",
        "pending-banner",
        "expiry-banner",
        "filter-chip",
    ] {
        assert!(
            !browser.is_shown(id).await,
            "{id} shows with nothing to say"
        );
    }
    browser.close().await;
}

#[actix_rt::test]
async fn the_banners_stack_in_the_seed_order() {
    // Every note counts as expired at once, so the expiry banner shows too.
    let browser = start(&[
        ("INKLING_EXPIRY__CHOICE", "on"),
        ("INKLING_EXPIRY__DAYS", "0"),
    ])
    .await;
    failed_notes(&browser, 1).await;
    browser.fake.set_default(Reply::Hang);
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "waiting for the model" })),
        )
        .await;
    browser.fake.set_models(&[]);
    browser
        .api("POST", "/api/ollama/recheck", Some(json!({})))
        .await;

    browser.open_inbox().await;
    for id in ["provider-banner", "failed-banner", "expiry-banner"] {
        browser.wait_visible(id).await;
    }
    browser.click("#review-expired").await;
    browser.wait_visible("filter-chip").await;
    browser
        .wait_until(
            "notes listed",
            "document.querySelectorAll('#notes li').length === 2",
        )
        .await;

    let order = browser
        .eval(
            "const ids = ['provider-banner', 'recovery-toast', 'pending-banner', 'failed-banner', 'expiry-banner', 'filter-chip', 'notes'];
             const nodes = ids.map(id => document.getElementById(id));
             const inDomOrder = nodes.every((n, i) => i === 0 || (nodes[i - 1].compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING));
             const visible = nodes.filter(n => n.getClientRects().length > 0).map(n => n.getBoundingClientRect().top);
             const topToBottom = visible.every((y, i) => i === 0 || visible[i - 1] < y);
             return [inDomOrder, topToBottom, visible.length];",
        )
        .await;
    // While Ollama cannot work, nothing is processing: the waiting note is said in the
    // Ollama banner, and the pending line stays away. Looking through the old notes
    // answered the expiry question: its banner has gone (web/js/expiry.js).
    assert_eq!(order, json!([true, true, 4]));
    assert!(!browser.is_shown("expiry-banner").await);
    assert!(!browser.is_shown("pending-banner").await);
    assert_eq!(
        browser.text("#provider-banner .text").await,
        "The AI model llama3.2 isn't installed. 1 note waits for it."
    );
    // The command is behind "Details".
    let detail = browser
        .eval("return document.querySelector('#provider-banner .detail').textContent;")
        .await;
    assert!(
        detail.as_str().unwrap().contains("ollama pull llama3.2"),
        "{detail}"
    );
    assert!(
        !browser.is_shown("recovery-toast").await,
        "no toast without a recovery"
    );
    browser.close().await;
}

#[actix_rt::test]
async fn a_note_the_ai_keeps_taking_too_long_on_is_marked_slow_with_what_to_do() {
    // Short deadlines (real time here): 200 ms, doubling to 800 ms, no waits between.
    let browser = start(&[
        ("INKLING_OLLAMA__REQUEST_TIMEOUT_MS", "200"),
        ("INKLING_OLLAMA__MAX_REQUEST_TIMEOUT_MS", "800"),
        ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0"),
    ])
    .await;
    browser.fake.set_default(Reply::Hang);
    browser.open_inbox().await;
    let note = browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "a very long pasted article" })),
        )
        .await;
    let id = note["id"].as_str().unwrap_or_default().to_string();
    let card = format!("li[data-id=\"{id}\"]");
    browser
        .wait_until(
            "marked slow",
            &format!("document.querySelector('{card} .badge')?.textContent === 'AI slow'"),
        )
        .await;
    let why = browser.text(&format!("{card} .slow-note")).await;
    assert!(
        why.contains("3 times while Ollama was up")
            && why.contains("raise ollama.request_timeout_ms"),
        "{why}"
    );
    assert!(browser.text("#pending-banner").await.contains("1 is slow."));
    // Done at last: the mark goes.
    browser.fake.set_default(Reply::Ok);
    browser
        .wait_until(
            "done, no longer slow",
            &format!("document.querySelector('{card}')?.dataset.status === 'done' && !document.querySelector('{card} .slow-note')"),
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_model_is_downloaded_from_the_banner_with_its_progress_and_the_notes_follow() {
    let browser = start(&[]).await;
    browser.fake.set_models(&[]);
    browser.fake.set_pull_step_seconds(1);
    browser
        .api("POST", "/api/ollama/recheck", Some(json!({})))
        .await;
    let note = browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "before the model was there" })),
        )
        .await;
    browser.open_inbox().await;
    browser.wait_visible("pull-model").await;
    assert_eq!(browser.text("#pull-model").await, "Download llama3.2");

    browser.click("#pull-model").await;
    browser.wait_visible("pull-progress").await;
    browser
        .wait_until(
            "the bar moves",
            "document.getElementById('pull-progress').value >= 0.5",
        )
        .await;
    assert!(browser
        .text("#provider-banner .text")
        .await
        .starts_with("Downloading llama3.2: 50 %"));
    // Installed: the monitor sees it, the banner goes, the note is enriched.
    browser
        .wait_until(
            "the banner gone",
            "document.getElementById('provider-banner').hidden",
        )
        .await;
    let id = note["id"].as_str().unwrap_or_default().to_string();
    browser
        .wait_until(
            "the note done",
            &format!("document.querySelector('li[data-id=\"{id}\"]')?.dataset.status === 'done'"),
        )
        .await;
    // The chat model, then the embedding model, each pulled once.
    crate::eventually::eventually("the embedding model pulled after the chat model", || {
        let pulls = browser.fake.pulls();
        assert!(pulls <= 2, "each model pulled once: {pulls}");
        async move { (pulls == 2).then_some(()) }
    })
    .await;
    browser.close().await;
}

/// While Ollama is stopped another user's program listens on its port: the page says
/// whose it is, that it gets no notes, and what to do.
#[actix_rt::test]
async fn another_users_program_on_ollamas_port_is_named_in_the_banner() {
    use crate::other_user::{FakeModelServer, OtherUser, NAME};
    let other = OtherUser::get();
    let model_port = crate::ports::free_port();
    let squatter = FakeModelServer::start("127.0.0.1", model_port, Some(other));
    let url = format!("http://127.0.0.1:{model_port}");
    let browser = start(&[
        ("INKLING_OLLAMA__URL", url.as_str()),
        ("INKLING_OLLAMA__HEALTH_INTERVAL_MS", "50"),
    ])
    .await;
    browser.open_inbox().await;
    browser.wait_visible("provider-banner").await;
    assert_eq!(
        browser.text("#provider-banner .text").await,
        format!(
            "Another user (uid {}, {NAME}) is listening on Ollama's port {model_port}: inkling sends it no notes.",
            other.uid
        )
    );
    let detail = browser
        .eval("return document.querySelector('#provider-banner .detail').textContent")
        .await;
    let detail = detail.as_str().unwrap_or_default().to_string();
    assert!(
        detail.contains(&format!("add \"{NAME}\" to [ai] trusted_listeners")),
        "{detail}"
    );
    browser.close().await;
    assert!(
        squatter.stop().is_empty(),
        "the other user's program was sent something"
    );
}
