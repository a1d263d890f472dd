//! The page's session in Chromium: opening it without one, the one-time code, and a
//! credential that stays with this origin.

use serde_json::{json, Value};

use crate::harness::{start, HELD_SESSION};

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

/// The page's credential is port-isolated: a cookie would be sent by the browser to
/// every port of 127.0.0.1. The session lives in this origin's IndexedDB:
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
