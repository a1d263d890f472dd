//! The inbox page's behaviour in Chromium, one file per feature: the session, the
//! banners, live events, the notes, and the other views.

mod banners;
mod live;
mod notes;
mod session;
mod views;
mod window;

use crate::fake_ollama::Reply;
use crate::harness::Browser;
use serde_json::json;

/// Captures through the API (as the CLI does) and waits until the failed count is `n`.
async fn failed_notes(browser: &Browser, n: usize) {
    browser.fake.push(&vec![Reply::WrongSchema; 3 * n]);
    for i in 0..n {
        browser
            .api(
                "POST",
                "/api/notes",
                Some(json!({ "body": format!("note {i} that fails") })),
            )
            .await;
    }
    browser
        .wait_for_api("the notes failed", "/api/inbox/failed-count", |count| {
            *count == json!(n)
        })
        .await;
}
