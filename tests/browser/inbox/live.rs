//! The inbox page following live events in Chromium: what an event carries is shown as
//! is, answers overtaken by events do not undo them, and the page reconnects by itself.

use serde_json::json;

use super::failed_notes;
use crate::fake_ollama::Reply;
use crate::harness::{start, start_with_notes};

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
/// page reads nothing back after one: no fetch of the note, no `/api/status`. (A status
/// answer overtaken by a live "0 failed" event would bring the failed banner back over
/// notes that are already done.)
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

/// In the expired view a live change keeps a note that is still expired (not every
/// note that changed leaves the view), and drops one that was kept.
#[actix_rt::test]
async fn the_expired_view_follows_live_changes() {
    // Expiry after 0 days: the notes stored an hour ago are expired.
    let browser = start_with_notes(
        &[
            ("INKLING_EXPIRY__CHOICE", "on"),
            ("INKLING_EXPIRY__DAYS", "0"),
        ],
        3,
    )
    .await;
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
