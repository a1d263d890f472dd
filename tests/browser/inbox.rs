//! The inbox page's behaviour in Chromium (issue: banners, notes, capture, live).

use serde_json::{json, Value};

use crate::fake_ollama::Reply;
use crate::harness::{start, start_with_notes, Browser, HELD_SESSION};

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

#[actix_rt::test]
async fn without_a_session_the_page_shows_how_to_open_it_and_no_data() {
    let browser = start(&[]).await;
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "a private thought" })),
        )
        .await;

    browser.client.goto(&browser.app_url).await.unwrap();
    browser.wait_visible("no-session").await;

    assert!(!browser.is_shown("app").await);
    let text = browser.eval("return document.body.innerText;").await;
    let text = text.as_str().unwrap();
    assert!(text.contains("inkling open"), "{text}");
    assert!(
        !text.contains("a private thought"),
        "no data without a session"
    );
    browser.close().await;
}

/// Another local web server the browser visits (any port of 127.0.0.1 but inkling's):
/// it records the head of every request it gets and answers with an empty page.
fn another_local_server() -> (u16, std::sync::Arc<std::sync::Mutex<String>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heard = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let record = heard.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 16384];
            let n = stream.read(&mut buffer).unwrap_or(0);
            record
                .lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..n]));
            let page = "<!doctype html><title>elsewhere</title>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    (port, heard)
}

/// The page's credential is port-isolated: the cookie it used to be was sent by the
/// browser to every port of 127.0.0.1. The session lives in this origin's IndexedDB:
/// its id and a key the page's own scripts can use but not read; what goes out, as a
/// header of the page's own requests, is an access that lives in memory.
#[actix_rt::test]
async fn the_session_stays_with_this_origin_and_no_other_local_port_receives_it() {
    let browser = start(&[]).await;
    browser.open_inbox().await;
    let url = browser.client.current_url().await.unwrap();
    assert_eq!(
        url.query(),
        None,
        "the code is dropped from the address: {url}"
    );
    assert_eq!(browser.eval("return document.cookie;").await, json!(""));
    assert_eq!(browser.eval("return localStorage.length;").await, json!(0));
    let held = browser.eval(HELD_SESSION).await;
    let session = held["id"]
        .as_str()
        .expect("a session in this origin's IndexedDB")
        .to_owned();
    assert_eq!(session.len(), 64);
    assert_ne!(session, browser.token);
    assert_eq!(
        held["key"],
        json!({ "type": "secret", "extractable": false, "algorithm": "HMAC", "usages": ["sign", "verify"] }),
        "a key no script can read back"
    );

    let (other_port, heard) = another_local_server();
    browser
        .client
        .goto(&format!("http://127.0.0.1:{other_port}/"))
        .await
        .unwrap();
    assert_eq!(
        browser.eval("return localStorage.length;").await,
        json!(0),
        "another port's page sees none of inkling's storage"
    );
    assert_eq!(
        browser.eval(HELD_SESSION).await,
        Value::Null,
        "nor its IndexedDB"
    );
    assert_eq!(browser.eval("return document.cookie;").await, json!(""));
    let heard = heard.lock().unwrap().clone();
    assert!(heard.starts_with("GET / "), "{heard}");
    assert!(!heard.contains(&session), "{heard}");
    assert!(!heard.contains(&browser.token), "{heard}");
    assert!(!heard.to_ascii_lowercase().contains("cookie:"), "{heard}");

    // Back on inkling's own address, with nothing in it: still signed in.
    browser.client.goto(&browser.app_url).await.unwrap();
    browser.wait_visible("app").await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_page_stays_signed_in_across_a_browser_restart_until_logout_all() {
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    // Opening it again (`inkling open` twice) replaces the page's session: the old one
    // is ended, not left to expire.
    browser.open_inbox().await;
    browser.restart_browser().await;
    browser.client.goto(&browser.app_url).await.unwrap();
    browser.wait_visible("app").await;

    // `inkling logout --all`: the open page is signed out, its live feed included.
    let ended = browser
        .api("POST", "/api/sessions/end-all", Some(json!({})))
        .await;
    assert_eq!(ended["count"], 1, "the second open ended the first session");
    browser.wait_visible("no-session").await;
    assert!(!browser.is_shown("app").await);
    browser.close().await;
}

/// What `inkling open` and the tray open: a one-time code in the address, not the
/// token. The page trades it and drops it; the same address opens nothing again.
#[actix_rt::test]
async fn a_one_time_code_opens_the_page_once() {
    let browser = start(&[]).await;
    let code = browser.api("POST", "/api/open-code", Some(json!({}))).await;
    let address = format!(
        "{}/?code={}",
        browser.app_url,
        code["code"].as_str().unwrap()
    );

    browser.client.goto(&address).await.unwrap();
    browser.wait_visible("app").await;
    let url = browser.client.current_url().await.unwrap();
    assert_eq!(url.query(), None, "{url}");

    // Without the session it opened (a fresh profile), the same address opens nothing.
    browser
        .eval("return new Promise((done) => { const r = indexedDB.deleteDatabase('inkling'); r.onsuccess = r.onerror = r.onblocked = () => done(null); });")
        .await;
    browser.client.goto(&address).await.unwrap();
    browser.wait_visible("no-session").await;
    browser.close().await;
}

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

/// A script for the page: it holds every answer to a path starting with `prefix` until
/// the test lets it through (`window.hold.answers[i].release()`), and counts the
/// renders of the page (its `inkling:render` event, web/js/store.js) made after a
/// release (`window.hold.callsAfter`). For the races between an answer and a live
/// event: the test decides which arrives last.
fn hold_answers(prefix: &str) -> String {
    format!(
        r#"
        const hold = {{ answers: [], released: false, callsAfter: 0 }};
        window.hold = hold;
        const realFetch = window.fetch;
        window.fetch = async (path, init) => {{
          const response = await realFetch(path, init);
          if (!String(path).startsWith("{prefix}")) return response;
          const body = await response.text();
          const answer = {{ body }};
          hold.answers.push(answer);
          await new Promise((release) => {{
            answer.release = () => {{ hold.released = true; release(); }};
          }});
          return new Response(body, {{ status: response.status, headers: response.headers }});
        }};
        document.addEventListener("inkling:render", () => {{
          if (hold.released) hold.callsAfter += 1;
        }});
        return true;
        "#
    )
}

/// Every live event carries what changed (the note as it is now, the counts), so the
/// page reads nothing back after one: no fetch of the note, no `/api/status`. (It used
/// to do both, and a status answer overtaken by a live "0 failed" event once brought
/// the failed banner back over notes that were already done.)
#[actix_rt::test]
async fn live_changes_are_shown_from_the_events_alone() {
    let browser = start(&[]).await;
    failed_notes(&browser, 2).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;
    browser
        .eval(
            r#"
            window.fetched = [];
            const realFetch = window.fetch;
            window.fetch = (path, init) => {
              window.fetched.push(String(path));
              return realFetch(path, init);
            };
            return true;
            "#,
        )
        .await;

    browser.fake.set_default(Reply::Ok);
    browser.click("#retry").await;
    browser
        .wait_until(
            "both notes done",
            "document.querySelectorAll('#notes li[data-status=done]').length === 2",
        )
        .await;
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "captured elsewhere" })),
        )
        .await;
    browser
        .wait_until(
            "the new note done on the page",
            "document.querySelectorAll('#notes li[data-status=done]').length === 3",
        )
        .await;
    browser
        .wait_until(
            "the counts from the events: nothing pending, nothing failed",
            "document.getElementById('pending-banner').hidden && document.getElementById('failed-banner').hidden",
        )
        .await;

    let fetched = browser.eval("return window.fetched;").await;
    let fetched: Vec<&str> = fetched
        .as_array()
        .unwrap()
        .iter()
        .map(|path| path.as_str().unwrap())
        .collect();
    // The retry itself, and one reload of the list for the retry's "many changed".
    assert_eq!(fetched[0], "/api/inbox/retry-all-failed", "{fetched:?}");
    assert!(
        fetched[1..]
            .iter()
            .all(|path| path.starts_with("/api/notes?")),
        "read back after an event: {fetched:?}"
    );
    browser.close().await;
}

/// The same race for the list: a reload (after a reconnect, say) asked for while a
/// note was pending, answered after the note's own "done" fetch, showed it pending
/// again until its next change, which never comes.
#[actix_rt::test]
async fn a_list_asked_for_before_a_note_finished_and_read_after_it_does_not_undo_it() {
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    browser.fake.stop();
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "finished while the list was on its way" })),
        )
        .await;
    browser
        .wait_until(
            "the note on the page, pending",
            "document.querySelectorAll('#notes li[data-status=pending]').length === 1",
        )
        .await;

    browser.eval(&hold_answers("/api/notes?")).await;
    // The page's modules are its own: the same module instance, imported again.
    browser
        .eval(&format!(
            "import({}).then((notes) => notes.loadNotes()); return true;",
            crate::harness::module("notes.js")
        ))
        .await;
    browser
        .wait_until(
            "the service has answered the list with the note pending",
            "window.hold.answers.length === 1 && window.hold.answers[0].body.includes('\"pending\"')",
        )
        .await;
    browser.fake.start().await;
    browser
        .wait_until(
            "the note done on the page",
            "document.querySelectorAll('#notes li[data-status=done]').length === 1",
        )
        .await;

    browser
        .eval("window.hold.answers[0].release(); return true;")
        .await;
    browser
        .wait_until("the old list is in", "window.hold.callsAfter >= 1")
        .await;
    browser
        .wait_until(
            "the note shown done again",
            "document.querySelectorAll('#notes li[data-status=done]').length === 1",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn retrying_more_than_a_page_of_failed_notes_reloads_the_list_once() {
    let mut browser = start(&[]).await;
    failed_notes(&browser, 60).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;
    browser
        .wait_until(
            "the page has loaded its list",
            "document.querySelectorAll('#notes li[data-status=failed]').length === 50",
        )
        .await;
    // Ollama goes away: the requeued notes wait, so no completions add fetches.
    browser.fake.stop();
    browser
        .eval("performance.clearResourceTimings(); return true;")
        .await;

    browser.click("#retry").await;

    browser
        .wait_until(
            "the reloaded list shows a page of pending notes",
            "document.querySelectorAll('#notes li[data-status=pending]').length === 50",
        )
        .await;
    let one_by_one = browser
        .eval(
            r"return performance.getEntriesByType('resource')
                .filter(e => /^\/api\/notes\/[0-9a-f-]+$/.test(new URL(e.name).pathname)).length;",
        )
        .await;
    assert_eq!(
        one_by_one,
        json!(0),
        "no fetch per note for 60 requeued notes"
    );
    browser.close().await;
}

#[actix_rt::test]
async fn a_note_captured_and_finished_elsewhere_appears_on_the_open_page_live() {
    let browser = start(&[]).await;
    browser.open_inbox().await;

    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "captured from the command line" })),
        )
        .await;

    browser
        .wait_until(
            "the note shows up enriched, without a reload",
            // A one-line note is its own heading on the card, enriched or not.
            "[...document.querySelectorAll('#notes li[data-status=done] h3')].some(h => h.textContent === 'captured from the command line')",
        )
        .await;
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
async fn a_note_captured_on_the_page_with_ctrl_enter_lands_in_the_database() {
    let browser = start(&[]).await;
    browser.open_inbox().await;

    let textarea = browser
        .client
        .find(fantoccini::Locator::Id("capture-body"))
        .await
        .unwrap();
    textarea.send_keys("typed on the page").await.unwrap();
    browser.save_with_ctrl_enter().await;

    browser
        .wait_until(
            "the box is cleared",
            "document.getElementById('capture-body').value === ''",
        )
        .await;
    let notes = browser.api("GET", "/api/notes", None).await;
    assert_eq!(notes[0]["body"], "typed on the page");
    browser
        .wait_until(
            "the new note is listed",
            "[...document.querySelectorAll('#notes a.open, #notes .preview')].some(e => e.textContent === 'typed on the page')",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_capture_box_has_the_focus_and_its_draft_survives_a_reload() {
    let browser = start(&[]).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "typing goes to the capture box",
            "document.activeElement && document.activeElement.id === 'capture-body'",
        )
        .await;
    browser
        .type_into("#capture-body", "a half-typed thought")
        .await;

    browser.client.refresh().await.unwrap();
    browser
        .wait_until(
            "the draft is back, focused",
            "document.getElementById('capture-body').value === 'a half-typed thought' \
             && document.activeElement.id === 'capture-body'",
        )
        .await;
    // Saved: the draft goes with it.
    browser.save_with_ctrl_enter().await;
    browser
        .wait_until(
            "saved",
            "document.getElementById('capture-body').value === ''",
        )
        .await;
    browser.client.refresh().await.unwrap();
    browser
        .wait_until(
            "no draft after the save",
            "document.getElementById('app').hidden === false && document.getElementById('capture-body').value === ''",
        )
        .await;
    let notes = browser.api("GET", "/api/notes", None).await;
    assert_eq!(notes[0]["body"], "a half-typed thought");
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
    let browser = start(&[("INKLING_EXPIRY__DAYS", "0")]).await;
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

#[actix_rt::test]
async fn every_control_is_reachable_with_the_keyboard() {
    let browser = start(&[]).await;
    failed_notes(&browser, 1).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;

    // Everything clickable is a <button>, a link or the text box: focusable and operable by keys.
    let not_focusable = browser
        .eval("return [...document.querySelectorAll('[onclick], a:not([href]), [role=button]')].length;")
        .await;
    assert_eq!(not_focusable, json!(0));
    let focus = browser
        .eval("const b = document.getElementById('retry'); b.focus(); return document.activeElement === b;")
        .await;
    assert_eq!(focus, json!(true));
    browser.close().await;
}

#[actix_rt::test]
async fn ten_thousand_notes_are_shown_a_page_at_a_time() {
    let browser = start_with_notes(&[], 10_000).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "the first page",
            "document.querySelectorAll('#notes li').length === 50",
        )
        .await;
    assert_eq!(
        browser.text("#notes li h3").await,
        "stored note 9999",
        "newest first"
    );

    // Scrolling to the end appends the next page; the cards already there stay the
    // same elements (nothing is rendered again).
    browser
        .eval("window.firstCard = document.querySelector('#notes li'); window.scrollTo(0, document.body.scrollHeight); return true;")
        .await;
    browser
        .wait_until(
            "the second page",
            "document.querySelectorAll('#notes li').length >= 100",
        )
        .await;
    assert_eq!(
        browser
            .eval("return window.firstCard === document.querySelector('#notes li') && window.firstCard.isConnected;")
            .await,
        json!(true)
    );
    // The button does the same from the keyboard.
    let before = browser
        .eval("return document.querySelectorAll('#notes li').length;")
        .await;
    browser
        .eval("const b = document.getElementById('load-more'); b.focus(); b.click(); return true;")
        .await;
    browser
        .wait_until(
            "one more page",
            &format!(
                "document.querySelectorAll('#notes li').length >= {} + 50",
                before
            ),
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn tags_filter_the_list_and_the_chip_clears_it() {
    let browser = start_with_notes(&[], 3).await;
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "enriched with fake and test tags" })),
        )
        .await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "four notes",
            "document.querySelectorAll('#notes li').length === 4",
        )
        .await;

    browser.click("#notes li button.tag").await; // #fake on the newest note

    browser.wait_visible("filter-chip").await;
    assert_eq!(browser.text("#filter-chip .text").await, "Tag: #fake");
    browser
        .wait_until(
            "one note",
            "document.querySelectorAll('#notes li').length === 1",
        )
        .await;
    browser.click("#clear-filter").await;
    browser
        .wait_until(
            "all notes again",
            "document.querySelectorAll('#notes li').length === 4",
        )
        .await;
    assert!(!browser.is_shown("filter-chip").await);
    browser.close().await;
}

#[actix_rt::test]
async fn trash_and_restore_from_the_page() {
    let browser = start_with_notes(&[], 1).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "one note",
            "document.querySelectorAll('#notes li').length === 1",
        )
        .await;

    browser.click("#notes li button.trash").await;
    browser
        .wait_until(
            "the inbox is empty",
            "document.querySelectorAll('#notes li').length === 0",
        )
        .await;
    browser.click("button[data-view=trash]").await;
    browser
        .wait_until(
            "in the trash",
            "document.querySelectorAll('#trash-notes li').length === 1",
        )
        .await;
    browser.click("#trash-notes li button.restore").await;
    browser
        .wait_until(
            "out of the trash",
            "document.querySelectorAll('#trash-notes li').length === 0",
        )
        .await;
    browser.click("button[data-view=inbox]").await;
    browser
        .wait_until(
            "back in the inbox",
            "document.querySelectorAll('#notes li').length === 1",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_stats_view_shows_the_daily_table_and_a_chart() {
    let browser = start(&[]).await;
    for i in 0..3 {
        browser
            .api(
                "POST",
                "/api/notes",
                Some(json!({ "body": format!("counted {i}") })),
            )
            .await;
    }
    browser.open_inbox().await;
    browser
        .wait_until(
            "three done",
            "document.querySelectorAll('#notes li[data-status=done]').length === 3",
        )
        .await;

    browser.click("button[data-view=stats]").await;

    browser
        .wait_until(
            "a row for today",
            "document.querySelectorAll('#stats-table tbody tr').length === 1",
        )
        .await;
    let row = browser
        .eval("return [...document.querySelectorAll('#stats-table tbody td')].map(td => td.textContent);")
        .await;
    assert_eq!(row[1], "3", "captured: {row}");
    assert_eq!(row[2], "3", "AI done: {row}");
    // Day one reads as one bar among thirty days, not a block across the chart.
    let bars = browser
        .eval("const bars = document.querySelectorAll('#chart rect.bar'); return [bars.length, Number(bars[0].getAttribute('width'))];")
        .await;
    assert_eq!(bars[0], json!(1));
    assert!(bars[1].as_f64().unwrap() < 600.0 / 20.0, "{bars}");
    // What a person asks first, in words.
    assert_eq!(browser.text("#stat-week").await, "3 notes");
    assert_eq!(browser.text("#stat-week-ai").await, "3 processed by the AI");
    assert!(browser.text("#stat-tags").await.contains("#fake 3"));
    assert_eq!(browser.text("#stat-oldest").await, "Nothing is waiting.");
    // Axes with a scale and dates; the same said in words for a screen reader.
    let labels = browser
        .eval("return [...document.querySelectorAll('#chart text')].map(t => t.textContent);")
        .await;
    let labels: Vec<&str> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(labels.contains(&"0") && labels.contains(&"3"), "{labels:?}");
    let today = chrono::Utc::now().format("%b %-d").to_string();
    assert!(
        labels.contains(&today.as_str()),
        "{labels:?} has no {today}"
    );
    assert_eq!(
        browser.text("#chart-summary").await,
        format!(
            "Last 30 days: 3 notes, 3 notes processed by the AI. Busiest day: {today} (3 notes)."
        )
    );
    // The developer's counters are there, behind "Diagnostics".
    assert_eq!(
        browser
            .eval("return document.getElementById('diagnostics').open;")
            .await,
        json!(false)
    );
    browser.close().await;
}

#[actix_rt::test]
async fn the_page_reconnects_by_itself_after_the_service_restarts() {
    let mut browser = start(&[]).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "the live channel is open",
            "document.readyState === 'complete'",
        )
        .await;

    browser.restart_service().await;
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "captured after the restart" })),
        )
        .await;

    browser
        .wait_until(
            "the note shows up without a reload",
            "[...document.querySelectorAll('#notes h3')].some(h => h.textContent.includes('captured after the restart'))",
        )
        .await;
    browser.close().await;
}

/// In the expired view a live change keeps a note that is still expired (it used to
/// drop every note that changed), and drops one that was kept.
#[actix_rt::test]
async fn the_expired_view_follows_live_changes() {
    // Expiry after 0 days: the notes stored an hour ago are expired.
    let browser = start_with_notes(&[("INKLING_EXPIRY__DAYS", "0")], 3).await;
    browser.open_inbox().await;
    browser.wait_visible("expiry-banner").await;
    browser.click("#review-expired").await;
    let shown = "document.querySelectorAll('#notes li').length";
    browser
        .wait_until("three expired notes", &format!("{shown} === 3"))
        .await;
    let notes = browser.api("GET", "/api/notes?expired=true", None).await;
    let (first, second) = (
        notes[0]["id"].as_str().unwrap().to_string(),
        notes[1]["id"].as_str().unwrap().to_string(),
    );

    // Trashed elsewhere: it goes; restored elsewhere, still expired: it comes back.
    browser
        .api(
            "POST",
            &format!("/api/notes/{first}/trash"),
            Some(json!({})),
        )
        .await;
    browser
        .wait_until("the trashed note gone", &format!("{shown} === 2"))
        .await;
    browser
        .api(
            "POST",
            &format!("/api/notes/{first}/restore"),
            Some(json!({})),
        )
        .await;
    browser
        .wait_until("the restored note back", &format!("{shown} === 3"))
        .await;

    // Kept elsewhere: no longer expired, so it leaves the view.
    browser
        .api(
            "POST",
            &format!("/api/notes/{second}/keep"),
            Some(json!({})),
        )
        .await;
    browser
        .wait_until("the kept note gone", &format!("{shown} === 2"))
        .await;
    browser
        .wait_until(
            "the expired count from the events",
            "document.querySelector('#expiry-banner .text').textContent.includes('2')",
        )
        .await;
    browser.close().await;
}

/// Search from the page: `/` focuses the box, results follow the typing, the matched
/// words are marked, and Escape gives the list back.
#[actix_rt::test]
async fn searching_on_the_page_shows_the_hits_as_you_type_with_the_words_marked() {
    let browser = start(&[]).await;
    browser
        .open_inbox_with_notes(&[
            "tomato soup for Sunday",
            "call the plumber",
            "오늘은 사과를 샀다",
        ])
        .await;

    let body = browser
        .client
        .find(fantoccini::Locator::Css("body"))
        .await
        .unwrap();
    body.send_keys("/").await.unwrap();
    assert_eq!(
        browser.eval("return document.activeElement.id;").await,
        json!("search")
    );
    let search = browser
        .client
        .find(fantoccini::Locator::Id("search"))
        .await
        .unwrap();
    search.send_keys("tomat").await.unwrap();
    browser
        .wait_until(
            "one hit, its word marked",
            "document.querySelectorAll('#notes .note').length === 1 && \
             document.querySelector('#notes .snippet mark')?.textContent === 'tomat'",
        )
        .await;

    search.send_keys("\u{E00C}").await.unwrap(); // Escape
    browser
        .wait_until(
            "the whole list again",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    search.send_keys("사과").await.unwrap();
    browser
        .wait_until(
            "the Korean note",
            "document.querySelector('#notes .snippet mark')?.textContent === '사과'",
        )
        .await;
    search.send_keys("\u{E00C}zzzz").await.unwrap();
    browser.wait_visible("notes-empty").await;
    assert_eq!(browser.text("#notes-empty").await, "No notes match.");
    browser.close().await;
}

/// Trash from the page is answered by an Undo; in the trash, "Delete forever" and
/// "Empty trash" each ask once more before they delete.
#[actix_rt::test]
async fn trash_can_be_undone_and_deleting_for_good_asks_first() {
    let browser = start(&[]).await;
    browser
        .open_inbox_with_notes(&["keep me", "delete me", "empty me"])
        .await;

    // Trash, then Undo: the note is back.
    browser.click("#notes .note:last-child button.trash").await;
    browser.wait_visible("undo-toast").await;
    browser
        .wait_until(
            "two notes",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    browser.click("#undo").await;
    browser
        .wait_until(
            "three again",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    let notes = browser.api("GET", "/api/notes?trash=true", None).await;
    assert_eq!(notes, json!([]));

    // Two to the trash.
    for _ in 0..2 {
        browser.click("#notes .note:first-child button.trash").await;
        browser.wait_visible("undo-toast").await;
    }
    browser
        .wait_until(
            "one left",
            "document.querySelectorAll('#notes .note').length === 1",
        )
        .await;
    browser.click("#views button[data-view='trash']").await;
    browser
        .wait_until(
            "two in the trash",
            "document.querySelectorAll('#trash-notes .note').length === 2",
        )
        .await;

    // Delete forever: the first click only asks.
    browser
        .click("#trash-notes .note:first-child button.delete")
        .await;
    assert_eq!(
        browser
            .text("#trash-notes .note:first-child button.delete")
            .await,
        "Really delete? It can't be undone"
    );
    assert_eq!(
        browser
            .api("GET", "/api/notes?trash=true", None)
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    browser
        .click("#trash-notes .note:first-child button.delete")
        .await;
    browser
        .wait_until(
            "one in the trash",
            "document.querySelectorAll('#trash-notes .note').length === 1",
        )
        .await;

    browser.click("#empty-trash").await;
    assert_eq!(
        browser.text("#empty-trash").await,
        "Really delete 1 note? It can't be undone"
    );
    browser.click("#empty-trash").await;
    browser.wait_visible("trash-empty").await;
    assert_eq!(
        browser.api("GET", "/api/notes?trash=true", None).await,
        json!([])
    );
    let left = browser.api("GET", "/api/notes", None).await;
    assert_eq!(left[0]["body"], "keep me");
    browser.close().await;
}

/// "Redo AI" on a done note sends it to the AI again; the page follows it to done.
#[actix_rt::test]
async fn redo_ai_on_a_note_runs_its_ai_again() {
    let browser = start(&[]).await;
    browser
        .api("POST", "/api/notes", Some(json!({ "body": "redo me" })))
        .await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "done, with its Redo AI",
            "document.querySelector('#notes .note')?.dataset.status === 'done' && \
             document.querySelector('#notes .note button.enrich')?.textContent === 'Redo AI'",
        )
        .await;
    let before = browser.fake.calls().len();
    browser.click("#notes .note button.enrich").await;
    // The AI is asked once more, and the page shows the note done again. (Waiting for
    // the worker and the page, not testing a timed rule.)
    for _ in 0..200 {
        if browser.fake.calls().len() > before {
            break;
        }
        actix_rt::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        browser.fake.calls().len() > before,
        "the AI was asked again"
    );
    browser
        .wait_until(
            "done again",
            "document.querySelector('#notes .note')?.dataset.status === 'done'",
        )
        .await;
    let stats = browser.api("GET", "/api/stats?format=json", None).await;
    assert_eq!(stats["total"]["aiEnrichRequests"], 1, "{stats}");
    assert_eq!(browser.fake.calls().len(), before + 1);
    browser.close().await;
}

#[actix_rt::test]
async fn a_note_is_edited_in_place_while_live_changes_go_on_around_it() {
    let browser = start(&[]).await;
    browser.open_inbox_with_notes(&["buy stampz"]).await;
    browser
        .wait_until(
            "done",
            "document.querySelector('#notes .note')?.dataset.status === 'done'",
        )
        .await;
    browser.click("#notes .note button.edit").await;
    browser
        .wait_until(
            "the form, its body focused",
            "document.activeElement === document.querySelector('#notes .note form.edit textarea')",
        )
        .await;
    browser
        .type_into("#notes .note form.edit textarea", "buy stamps")
        .await;

    // A note captured elsewhere re-renders the list: the form keeps what was typed.
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "another thought" })),
        )
        .await;
    browser
        .wait_until(
            "the other note listed",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    let kept = browser
        .eval(
            "const form = document.querySelector('#notes form.edit'); \
             return form && form.querySelector('textarea').value === 'buy stamps' \
                 && document.activeElement === form.querySelector('textarea');",
        )
        .await;
    assert_eq!(kept, json!(true), "the form survived the live change");

    browser
        .type_into("#notes form.edit input[name=title]", "Stamps")
        .await;
    browser
        .type_into("#notes form.edit input[name=tags]", "errands, Post")
        .await;
    browser.click("#notes form.edit button[type=submit]").await;
    browser
        .wait_until(
            "the card shows the edit",
            "[...document.querySelectorAll('#notes .note h3')].some((h) => h.textContent === 'Stamps')",
        )
        .await;
    let notes = browser.api("GET", "/api/notes?tag=errands", None).await;
    assert_eq!(notes[0]["body"], "buy stamps");
    assert_eq!(notes[0]["tags"], json!(["errands", "post"]));
    assert_eq!(notes[0]["title_set_by_user"], true);
    // The body changed: the AI ran again, and left the user's title alone.
    browser
        .wait_until(
            "done again",
            "[...document.querySelectorAll('#notes .note')].every((n) => n.dataset.status === 'done')",
        )
        .await;
    let notes = browser.api("GET", "/api/notes?tag=errands", None).await;
    assert_eq!(notes[0]["title"], "Stamps");
    browser.close().await;
}

#[actix_rt::test]
async fn the_tags_view_lists_counts_and_renames_or_merges_a_tag() {
    let browser = start(&[]).await;
    for (body, tags) in [
        ("a", json!(["cooking"])),
        ("b", json!(["recipes", "cooking"])),
    ] {
        let note = browser
            .api("POST", "/api/notes", Some(json!({ "body": body })))
            .await;
        let id = note["id"].as_str().unwrap();
        let client = awc::Client::new();
        let response = client
            .patch(format!("{}/api/notes/{id}", browser.app_url))
            .bearer_auth(&browser.token)
            .send_json(&json!({ "tags": tags }))
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    browser.open_inbox().await;
    browser.click("#views button[data-view=tags]").await;
    browser
        .wait_until(
            "two tags with their counts",
            "document.querySelectorAll('#tags li').length === 2 && \
             document.querySelector('#tags li[data-tag=cooking] .count').textContent === '2 notes'",
        )
        .await;
    browser
        .click("#tags li[data-tag=recipes] button.rename")
        .await;
    browser
        .type_into("#tags li[data-tag=recipes] input", "Cooking")
        .await;
    browser
        .click("#tags li[data-tag=recipes] button[type=submit]")
        .await;
    browser
        .wait_until(
            "merged",
            "document.getElementById('tags-result').textContent === 'Merged #recipes into #cooking (1 note).' && \
             document.querySelectorAll('#tags li').length === 1",
        )
        .await;
    let tags = browser.api("GET", "/api/tags", None).await;
    assert_eq!(tags, json!([{ "tag": "cooking", "count": 2 }]));
    // A tag's button filters the inbox by it.
    browser.click("#tags li[data-tag=cooking] button.tag").await;
    browser
        .wait_until(
            "the inbox, filtered",
            "!document.getElementById('inbox-view').hidden && \
             document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn notes_are_exported_and_imported_from_the_page() {
    let browser = start(&[]).await;
    browser.open_inbox_with_notes(&["one", "two"]).await;
    browser.click("#views button[data-view=stats]").await;
    // The download itself is the browser's; the file handed to it is kept for a look.
    browser
        .eval(
            "window.handedOver = []; const make = URL.createObjectURL; \
             URL.createObjectURL = (blob) => { window.handedOver.push(blob); return make(blob); }; \
             return true;",
        )
        .await;
    browser.click("#export-notes").await;
    browser
        .wait_until(
            "exported",
            "/^2 notes exported to inkling-notes-\\d{4}-\\d\\d-\\d\\d\\.json\\.$/.test(\
             document.getElementById('transfer-result').textContent)",
        )
        .await;
    let handed = browser
        .eval("return window.handedOver[0].text().then((text) => JSON.parse(text).notes.length);")
        .await;
    assert_eq!(
        handed,
        json!(2),
        "the file the browser saves holds both notes"
    );

    // Files chosen in the picker (given to it as a person's choice would).
    browser
        .eval(
            "const picked = new DataTransfer(); \
             picked.items.add(new File(['---\\ntitle: Soup\\ntags: [cooking]\\n---\\nTomato soup.\\n'], 'soup.md')); \
             picked.items.add(new File([JSON.stringify({ inkling_export: 1, notes: [{ body: 'from json' }] })], 'export.json')); \
             const input = document.getElementById('import-file'); \
             input.files = picked.files; \
             input.dispatchEvent(new Event('change')); \
             return true;",
        )
        .await;
    browser
        .wait_until(
            "imported",
            "document.getElementById('transfer-result').textContent === 'Imported 2 notes.'",
        )
        .await;
    let soup = browser.api("GET", "/api/notes?tag=cooking", None).await;
    assert_eq!(soup[0]["title"], "Soup");
    assert_eq!(soup[0]["body"], "Tomato soup.\n");
    let all = browser.api("GET", "/api/notes", None).await;
    assert_eq!(all.as_array().unwrap().len(), 4);

    // A bad file: the service says which, and nothing comes in.
    browser
        .eval(
            "const picked = new DataTransfer(); \
             picked.items.add(new File(['   '], 'blank.md')); \
             const input = document.getElementById('import-file'); \
             input.files = picked.files; \
             input.dispatchEvent(new Event('change')); \
             return true;",
        )
        .await;
    browser
        .wait_until(
            "refused",
            "document.getElementById('transfer-result').textContent.startsWith('blank.md: the note body is empty')",
        )
        .await;
    let all = browser.api("GET", "/api/notes", None).await;
    assert_eq!(all.as_array().unwrap().len(), 4);
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
