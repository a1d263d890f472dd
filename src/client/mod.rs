//! `ServiceClient`: how the CLI talks to the running service over the local API.
//!
//! This file is the transport: finding the service, proving it is this install's
//! inkling before the token goes out, sending a request and reading the answer (whole,
//! or a line at a time), and turning a refusal into [`ClientError`]. Its request
//! methods are private to the module: `routes.rs` holds one typed method per route,
//! the one place outside `src/http/` that spells an API path.

mod routes;

use std::time::Duration;

use awc::error::{ConnectError, SendRequestError};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::api::replies::{IdentityProof, Refusal};
use crate::api_token;
use crate::configuration::Settings;

/// Why a client command failed. `NotRunning` gets its own exit status.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("inkling is not running (nothing answers on {0}); start it with `inkling run`")]
    NotRunning(String),
    #[error("{0}")]
    Api(String),
    #[error(
        "something other than this inkling answers on {0}, so the token was not sent to it; stop that program, or give inkling another port (http.port)"
    )]
    Impostor(String),
    /// Standard output's reader went away (`inkling status | head`): the command ends
    /// quietly, as a finished one.
    #[error("standard output is closed")]
    OutputClosed,
    #[error("{0:#}")]
    Other(#[from] anyhow::Error),
}

/// A client for one running service, found through the same configuration.
pub struct ServiceClient {
    base_url: String,
    port: u16,
    token: String,
    http: awc::Client,
    /// The service has proved it is this install's inkling (`crate::identity`).
    proven: std::cell::Cell<bool>,
}

impl ServiceClient {
    /// Reads the port and the token the service uses. Needs an actix runtime.
    pub fn from_settings(settings: &Settings) -> Result<Self, ClientError> {
        let base_url = settings.http.local_url(settings.http.port);
        let token_path = settings.api_token_path();
        if !token_path.exists() {
            // The service creates the token on its first start: none means it never ran
            // with this data dir.
            return Err(ClientError::NotRunning(base_url));
        }
        let token = api_token::read(&token_path)?;
        let http = awc::Client::builder()
            .timeout(Duration::from_secs(30))
            .connector(awc::Connector::new().timeout(Duration::from_secs(2)))
            .finish();
        Ok(ServiceClient {
            base_url,
            port: settings.http.port,
            token,
            http,
            proven: std::cell::Cell::new(false),
        })
    }

    /// Before the token goes anywhere: is it this install's inkling that answers?
    /// Asked once per client, with a fresh nonce.
    async fn prove_service(&self) -> Result<(), ClientError> {
        if self.proven.get() {
            return Ok(());
        }
        let nonce = crate::identity::new_nonce()?;
        let request = self
            .http
            .get(format!("{}/identity?nonce={nonce}", self.base_url));
        let answer: Result<IdentityProof, ClientError> = self.finish(request.send().await).await;
        let genuine = match answer {
            Ok(answer) => {
                crate::identity::is_genuine(&self.token, self.port, &nonce, &answer.proof)
            }
            Err(ClientError::NotRunning(url)) => return Err(ClientError::NotRunning(url)),
            Err(_) => false,
        };
        if !genuine {
            return Err(ClientError::Impostor(self.base_url.clone()));
        }
        self.proven.set(true);
        Ok(())
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    async fn get<T: DeserializeOwned>(&self, path_and_query: &str) -> Result<T, ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .get(format!("{}{path_and_query}", self.base_url))
            .bearer_auth(&self.token);
        self.finish(request.send().await).await
    }

    /// `GET path?query`, the query string written from `query`'s fields.
    async fn get_query<Q: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        query: &Q,
    ) -> Result<T, ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .get(format!("{}{path}", self.base_url))
            .query(query)
            .map_err(|e| anyhow::anyhow!("cannot write the query of {path}: {e}"))?
            .bearer_auth(&self.token);
        self.finish(request.send().await).await
    }

    /// A GET whose answer is text (stats.md), not JSON.
    async fn get_text(&self, path: &str) -> Result<String, ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .get(format!("{}{path}", self.base_url))
            .bearer_auth(&self.token);
        let body = self.answer(request.send().await).await?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.send_json(awc::http::Method::POST, path, body).await
    }

    async fn patch<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.send_json(awc::http::Method::PATCH, path, body).await
    }

    async fn send_json<B: Serialize, T: DeserializeOwned>(
        &self,
        method: awc::http::Method,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .request(method, format!("{}{path}", self.base_url))
            .bearer_auth(&self.token);
        self.finish(request.send_json(body).await).await
    }

    /// A POST whose body is `bytes` of `content_type` (a recording), answered in JSON.
    async fn post_bytes<T: DeserializeOwned>(
        &self,
        path: &str,
        content_type: &str,
        bytes: Vec<u8>,
    ) -> Result<T, ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .post(format!("{}{path}", self.base_url))
            .insert_header(("Content-Type", content_type))
            .bearer_auth(&self.token);
        self.finish(request.send_body(bytes).await).await
    }

    /// A GET whose answer is handed to `on_line` a line at a time as it arrives (the
    /// notes export: one note a line), never held whole.
    async fn get_lines(
        &self,
        path: &str,
        on_line: impl FnMut(&str) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .get(format!("{}{path}", self.base_url))
            .bearer_auth(&self.token);
        self.read_lines(request.send().await, on_line).await
    }

    /// A POST whose answer is handed to `on_line` a line at a time as it arrives (a
    /// model download's progress).
    async fn post_lines<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        on_line: impl FnMut(&str) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        self.post_lines_within(path, body, None, on_line).await
    }

    /// [`Self::post_lines`], the whole answer allowed `within` instead of the client's
    /// 30 s (an answer streamed by a model on a CPU takes minutes).
    async fn post_lines_within<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        within: Option<Duration>,
        on_line: impl FnMut(&str) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        self.prove_service().await?;
        let mut request = self
            .http
            .post(format!("{}{path}", self.base_url))
            .bearer_auth(&self.token);
        if let Some(within) = within {
            request = request.timeout(within);
        }
        self.read_lines(request.send_json(body).await, on_line)
            .await
    }

    async fn read_lines<S>(
        &self,
        sent: Result<awc::ClientResponse<S>, SendRequestError>,
        mut on_line: impl FnMut(&str) -> Result<(), ClientError>,
    ) -> Result<(), ClientError>
    where
        S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin,
    {
        use futures_util::StreamExt;
        let mut response = self.received(sent)?;
        if !response.status().is_success() {
            return self.answer(Ok(response)).await.map(|_| ());
        }
        let broken = |e: &dyn std::fmt::Display| {
            ClientError::Other(anyhow::anyhow!(
                "reading the answer from {}: {e}",
                self.base_url
            ))
        };
        let mut buffer: Vec<u8> = Vec::new();
        let mut line = |bytes: &[u8]| -> Result<(), ClientError> {
            let text = std::str::from_utf8(bytes).map_err(|e| broken(&e))?;
            on_line(text.trim_end_matches('\r'))
        };
        while let Some(chunk) = response.next().await {
            buffer.extend_from_slice(&chunk.map_err(|e| broken(&e))?);
            while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                let whole: Vec<u8> = buffer.drain(..=end).collect();
                line(&whole[..end])?;
            }
        }
        if !buffer.is_empty() {
            line(&buffer)?;
        }
        Ok(())
    }

    /// `DELETE path`; the answer's body (none for a 204) is not read.
    async fn delete(&self, path: &str) -> Result<(), ClientError> {
        self.prove_service().await?;
        let request = self
            .http
            .delete(format!("{}{path}", self.base_url))
            .bearer_auth(&self.token);
        self.answer(request.send().await).await.map(|_| ())
    }

    async fn finish<T: DeserializeOwned, S>(
        &self,
        sent: Result<awc::ClientResponse<S>, SendRequestError>,
    ) -> Result<T, ClientError>
    where
        S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin,
    {
        let body = self.answer(sent).await?;
        serde_json::from_slice(&body).map_err(|e| {
            ClientError::Other(anyhow::anyhow!("unexpected answer from the service: {e}"))
        })
    }

    /// The answer, or why none came (nothing listening: `NotRunning`).
    fn received<R>(&self, sent: Result<R, SendRequestError>) -> Result<R, ClientError> {
        match sent {
            Ok(response) => Ok(response),
            Err(SendRequestError::Connect(ConnectError::Io(_) | ConnectError::Disconnected)) => {
                Err(ClientError::NotRunning(self.base_url.clone()))
            }
            Err(e) => Err(ClientError::Other(anyhow::anyhow!(
                "no answer from {}: {e}",
                self.base_url
            ))),
        }
    }

    /// The body of a successful answer; a refusal becomes `ClientError::Api`.
    async fn answer<S>(
        &self,
        sent: Result<awc::ClientResponse<S>, SendRequestError>,
    ) -> Result<actix_web::web::Bytes, ClientError>
    where
        S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin,
    {
        let mut response = self.received(sent)?;
        let body = response
            .body()
            .limit(64 << 20)
            .await
            .map_err(|e| anyhow::anyhow!("reading the answer from {}: {e}", self.base_url))?;
        if !response.status().is_success() {
            let message = serde_json::from_slice::<Refusal>(&body)
                .map(|refusal| refusal.error)
                .unwrap_or_else(|_| String::from_utf8_lossy(&body).into_owned());
            return Err(ClientError::Api(format!(
                "the service refused ({}): {message}",
                response.status()
            )));
        }
        Ok(body)
    }
}
