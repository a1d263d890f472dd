//! Test harness: an in-process service per test; the real binary as a process comes
//! from tests/support/service_process.rs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use inkling::clock::ManualClock;
use inkling::http::server::ServerHandle;
use serde_json::Value;

use crate::service::{start_service, test_settings};

pub const START: &str = "2026-03-01T12:00:00Z";

/// A service running inside the test's actix system.
pub struct TestApp {
    pub address: String,
    pub token: String,
    pub data_dir: tempfile::TempDir,
    pub clock: ManualClock,
    pub handle: ServerHandle,
    pub http: awc::Client,
}

pub fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(START)
        .unwrap()
        .with_timezone(&Utc)
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

pub async fn spawn_app_with(extra: &[(&str, &str)]) -> TestApp {
    spawn_app_in(tempfile::tempdir().unwrap(), extra).await
}

/// A service on a given data dir (e.g. one on a small disk).
pub async fn spawn_app_in(data_dir: tempfile::TempDir, extra: &[(&str, &str)]) -> TestApp {
    let settings = test_settings(data_dir.path(), extra);
    let clock = ManualClock::new(start_time());
    let service = start_service(&settings, Arc::new(clock.clone())).await;
    TestApp {
        address: service.address,
        token: service.token,
        data_dir,
        clock,
        handle: service.handle,
        http: awc::Client::builder()
            .timeout(Duration::from_secs(10))
            // A kept connection is reused only while well within the service's 5 s
            // keep-alive: a test starved of CPU between two requests would otherwise
            // send on a connection the service has just closed ("connection reset").
            .connector(awc::Connector::new().conn_keep_alive(Duration::from_secs(1)))
            .finish(),
    }
}

/// Hex digits as bytes.
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// Status code and parsed JSON body (Null when the body is not JSON).
pub type Reply = (u16, Value);

async fn reply<S>(response: Result<awc::ClientResponse<S>, awc::error::SendRequestError>) -> Reply
where
    S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin,
{
    let mut response = response.expect("the request is answered");
    let body = response.body().limit(64 << 20).await.unwrap();
    (
        response.status().as_u16(),
        serde_json::from_slice(&body).unwrap_or(Value::Null),
    )
}

impl TestApp {
    pub fn db_path(&self) -> PathBuf {
        self.data_dir.path().join("inkling.db")
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.get_with_auth(path, Some(&format!("Bearer {}", self.token)))
            .await
    }

    pub async fn get_with_auth(&self, path: &str, authorization: Option<&str>) -> Reply {
        let mut request = self.http.get(format!("{}{path}", self.address));
        if let Some(value) = authorization {
            request = request.insert_header(("Authorization", value));
        }
        reply(request.send().await).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        reply(
            self.http
                .delete(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .send()
                .await,
        )
        .await
    }

    /// A GET with these headers and no credential of its own.
    pub async fn get_with_headers(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self.http.get(format!("{}{path}", self.address));
        for &(name, value) in headers {
            request = request.insert_header((name, value));
        }
        reply(request.send().await).await
    }

    /// A request with any method, `Authorization: Bearer bearer`, these headers and an
    /// optional JSON body (a device's token, an extension's `Origin`).
    pub async fn request_as(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Reply {
        let method = awc::http::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.http.request(method, format!("{}{path}", self.address));
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        for &(name, value) in headers {
            request = request.insert_header((name, value));
        }
        match body {
            Some(body) => reply(request.send_json(body).await).await,
            None => reply(request.send().await).await,
        }
    }

    /// A POST with no credential (`/session`).
    pub async fn post_unauthenticated(&self, path: &str, body: &Value) -> Reply {
        reply(
            self.http
                .post(format!("{}{path}", self.address))
                .send_json(body)
                .await,
        )
        .await
    }

    /// The port the service listens on (what the page's proofs name).
    pub fn port(&self) -> u16 {
        self.address.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// Opens a page's session with the token: its id and its key's bytes.
    pub async fn open_page_session(&self) -> (String, Vec<u8>) {
        let (status, opened) = self
            .post_unauthenticated("/session", &serde_json::json!({ "token": self.token }))
            .await;
        assert_eq!(status, 200, "{opened}");
        let key = unhex(opened["key"].as_str().expect("a key"));
        (opened["session"].as_str().unwrap().to_owned(), key)
    }

    /// What the page does before it sends anything: checks the service's proof, then
    /// answers its challenge; the access it gets, or the refusal's status.
    pub async fn page_access(&self, id: &str, key: &[u8]) -> Result<String, u16> {
        let nonce = inkling::identity::new_nonce().unwrap();
        let (status, proved) = self
            .get_with_auth(&format!("/session/proof?session={id}&nonce={nonce}"), None)
            .await;
        if status != 200 {
            return Err(status);
        }
        assert!(
            inkling::page_proof::is_service_proof(
                key,
                self.port(),
                &nonce,
                proved["proof"].as_str().unwrap()
            ),
            "the service proves the key: {proved}"
        );
        let challenge = proved["challenge"].as_str().unwrap();
        let answer = inkling::page_proof::page_answer(key, self.port(), challenge);
        let (status, granted) = self
            .post_unauthenticated(
                "/session/access",
                &serde_json::json!({ "session": id, "challenge": challenge, "answer": answer }),
            )
            .await;
        match status {
            200 => Ok(granted["access"].as_str().unwrap().to_owned()),
            other => Err(other),
        }
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Reply {
        reply(
            self.http
                .post(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .send_json(body)
                .await,
        )
        .await
    }

    pub async fn patch_json(&self, path: &str, body: &Value) -> Reply {
        reply(
            self.http
                .patch(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .send_json(body)
                .await,
        )
        .await
    }

    /// Posts raw bytes with a content type (for malformed input).
    pub async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> Reply {
        reply(
            self.http
                .post(format!("{}{path}", self.address))
                .bearer_auth(&self.token)
                .insert_header(("Content-Type", content_type))
                .send_body(body)
                .await,
        )
        .await
    }

    pub async fn capture(&self, body: &str) -> Value {
        let (status, note) = self
            .post_json("/api/notes", &serde_json::json!({ "body": body }))
            .await;
        assert_eq!(status, 201, "capture failed: {note}");
        note
    }

    /// `GET /api/notes/{id}` as the note alone: without what only the detail carries
    /// (the rendered body, the AI's progress), so it compares with a list's or an
    /// edit's note.
    pub async fn note(&self, id: &str) -> Value {
        let (status, mut detail) = self.get(&format!("/api/notes/{id}")).await;
        assert_eq!(status, 200, "no note {id}: {detail}");
        let object = detail.as_object_mut().expect("a note is an object");
        assert!(
            object.remove("body_html").is_some(),
            "the detail renders the body"
        );
        assert!(
            object.remove("ai").is_some(),
            "the detail has the AI's progress"
        );
        detail
    }

    pub fn note_count_in_db(&self) -> i64 {
        rusqlite::Connection::open(self.db_path())
            .unwrap()
            .query_row("SELECT COUNT(*) FROM notes", [], |r| r.get(0))
            .unwrap()
    }
}

// ----- the real binary ---------------------------------------------------------------

// Written once in tests/support/service_process.rs (the real-model tests start it too).
pub use crate::ports::free_port;
pub use crate::service_process::{
    blocking_request, inkling_binary, run_cli, run_cli_with, ServiceProcess,
};
