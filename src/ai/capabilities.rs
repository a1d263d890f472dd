//! What a model server can do, one trait a capability, and [`Capabilities`], the set
//! the service runs on: who chats, who embeds, whose health is watched, who downloads
//! models, and who turns voice notes into words. A server implements only what it
//! does: Ollama's and the OpenAI-compatible clients the first four; a speech-to-text
//! server [`super::transcribe::Transcribe`] and [`Health`] ([`Transcription`], present
//! only when `[transcription]` names one); an embedder inside the process (no server
//! at all) [`Embed`] alone.
//!
//! Each is a stateless transport that carries out a plan made elsewhere (the worker's
//! core decides a call's deadline, prompt and cut): it decides nothing about a call.
//! `!Send` futures: awc's client lives on one arbiter.
//!
//! **Where another embedder plugs in.** [`Capabilities::with_embedder`] replaces the
//! notes' vectors' maker and nothing else: startup builds the server's capabilities
//! (`super::provider_for`), guards them (`super::listener_guard`), then swaps the
//! embedder. The worker holds [`Embed`] apart from [`Chat`], so the vectors of the
//! background work, of a search's words and of a prompt's neighbours all come from it.

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::stream::LocalBoxStream;

use super::{CallPlan, CallReply, ChatPlan, EmbedPlan, LoadPlan, ProviderError, ProviderHealth};

/// The chat model: a note's title, tags and summary, a question's answer streamed,
/// and what the chat model needs around them (its context, its load).
pub trait Chat {
    /// Asks for the title, tags and summary of one note, as planned; the deadline is
    /// applied around the whole call.
    fn enrich(&self, plan: CallPlan) -> LocalBoxFuture<'static, CallReply>;
    /// Streams the model's answer to a chat, as planned: each item the next piece of
    /// text, the stream ending after the last one; an error ends it. Dropping the
    /// stream drops the request, which the server takes as the client gone (it stops
    /// generating).
    fn chat_stream(&self, plan: ChatPlan)
        -> LocalBoxStream<'static, Result<String, ProviderError>>;
    /// The model's own context in tokens, as the server says (`Ok(None)`: it does not
    /// say; the configured one is used). An error: ask again before the next call.
    fn model_context(&self) -> LocalBoxFuture<'static, Result<Option<u32>, ProviderError>>;
    /// Loads the model into memory under the plan's deadline, so a cold load is not
    /// charged to a note's call. A server that loads its model itself answers at once.
    fn load_model(&self, plan: LoadPlan) -> LocalBoxFuture<'static, Result<(), ProviderError>>;
}

/// The notes' vectors: one vector per text of the plan, from the embedding model.
pub trait Embed {
    /// Asks for one vector per text of the plan (the embedding model's), under the
    /// plan's deadline. One that makes none answers `ProviderError::NoEmbeddings`.
    fn embed(
        &self,
        plan: EmbedPlan,
    ) -> LocalBoxFuture<'static, Result<Vec<Vec<f32>>, ProviderError>>;
}

/// The model server's health, as the monitor watches it and the worker waits on it.
pub trait Health {
    /// Is the server up, is the model there, is it loading?
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth>;
}

/// Model downloads, asked for by the person (`POST /api/provider/pull`).
pub trait Pull {
    /// Downloads `model` (`ollama pull`: the chat model, or the embedding model), its
    /// progress as it comes; the stream ends after "success", or with the error that
    /// stopped it. A server that cannot download answers with one error saying how to
    /// load the model there.
    fn pull_model(
        &self,
        model: &str,
    ) -> LocalBoxStream<'static, Result<PullProgress, ProviderError>>;
}

/// One line of a model download's progress (Ollama's `/api/pull` stream).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PullProgress {
    /// Ollama's words for the step: "pulling manifest", "downloading …", "verifying
    /// sha256 digest", "success".
    pub status: String,
    /// Bytes of the part being downloaded, when the step has a size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

/// The speech-to-text server of voice notes: its transcriptions, and its own health
/// (a server apart from the chat model's, watched by the voice notes' worker).
#[derive(Clone)]
pub struct Transcription {
    pub transcribe: Rc<dyn super::Transcribe>,
    pub health: Rc<dyn Health>,
}

impl Transcription {
    /// One server that does both (every speech-to-text client).
    pub fn of_one_server<S: super::Transcribe + Health + 'static>(server: S) -> Self {
        let server = Rc::new(server);
        Transcription {
            transcribe: server.clone(),
            health: server,
        }
    }
}

/// The capabilities the service runs on, each held on its own: the worker takes
/// `chat` and `embed`, the monitor `health`, the model download `pull`, the voice
/// notes' worker `transcription` (`None`: voice notes are off).
#[derive(Clone)]
pub struct Capabilities {
    pub chat: Rc<dyn Chat>,
    pub embed: Rc<dyn Embed>,
    pub health: Rc<dyn Health>,
    pub pull: Rc<dyn Pull>,
    pub transcription: Option<Transcription>,
}

impl Capabilities {
    /// One server that does it all (Ollama, an OpenAI-compatible server).
    pub fn of_one_server<S: Chat + Embed + Health + Pull + 'static>(server: S) -> Self {
        let server = Rc::new(server);
        Capabilities {
            chat: server.clone(),
            embed: server.clone(),
            health: server.clone(),
            pull: server,
            transcription: None,
        }
    }

    /// The same, with voice notes transcribed by `transcription` (`None`: off).
    pub fn with_transcription(self, transcription: Option<Transcription>) -> Self {
        Capabilities {
            transcription,
            ..self
        }
    }

    /// The same, with the notes' vectors made by `embedder` instead (the plug-in point
    /// of an embedder that is not the chat server: one in the process, or another
    /// server).
    pub fn with_embedder(self, embedder: Rc<dyn Embed>) -> Self {
        Capabilities {
            embed: embedder,
            ..self
        }
    }
}
