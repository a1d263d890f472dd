//! The provider's health as the API, the live feed and the tray see it.

/// What the provider's health check found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ProviderHealth {
    /// Answering, and the configured model is installed.
    Ready,
    /// Answering, but the configured model is not there: `ollama pull MODEL`, or
    /// loaded in the model server by hand (it has no download).
    ModelMissing {
        model: String,
        #[serde(default)]
        server: ModelServer,
    },
    /// Not answering (not running, wrong URL, or not the kind of server configured).
    NotRunning { detail: String },
    /// Answering, and loading the model (llama.cpp's server answers 503 "Loading
    /// model" until it is ready): no call until it is done, no note charged.
    Loading { detail: String },
    /// Answering, but refusing inkling's API key, or wanting one and given none (found
    /// on `/models`, or on llama.cpp's `/props` where `/models` is open to anyone): no
    /// call until it takes the key, no note charged.
    KeyRefused { detail: String },
    /// Something listens on the model server's port on this machine, but it belongs to
    /// another user who is not trusted (not this user, root, `ollama`, nor one named in
    /// `ai.trusted_listeners`): no note is sent to it until the real server is back.
    UntrustedListener {
        port: u16,
        uid: u32,
        /// The owner's user name, when the user database has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
        #[serde(default)]
        server: ModelServer,
    },
}

impl ProviderHealth {
    pub fn is_ready(&self) -> bool {
        matches!(self, ProviderHealth::Ready)
    }

    /// No call may be made yet (the model missing or loading, the key refused, or the
    /// port held by another user's program): the worker makes none until the monitor
    /// says ready.
    pub fn holds_calls(&self) -> bool {
        matches!(
            self,
            ProviderHealth::ModelMissing { .. }
                | ProviderHealth::Loading { .. }
                | ProviderHealth::KeyRefused { .. }
                | ProviderHealth::UntrustedListener { .. }
        )
    }

    /// "Another user (uid 1001, mallory) is listening on Ollama's port 11434 …": the
    /// untrusted listener in plain words, with the fix; `None` for the other states.
    pub fn untrusted_listener_words(&self) -> Option<String> {
        let ProviderHealth::UntrustedListener {
            port,
            uid,
            user,
            server,
        } = self
        else {
            return None;
        };
        let who = match user {
            Some(name) => format!("uid {uid}, {name}"),
            None => format!("uid {uid}"),
        };
        let (whose, fix) = match server {
            ModelServer::Ollama => ("Ollama's", "Start Ollama"),
            ModelServer::OpenAiCompatible => ("the model server's", "Start the model server"),
            ModelServer::SpeechToText => (
                "the speech-to-text server's",
                "Start the speech-to-text server",
            ),
        };
        let add = user.clone().unwrap_or_else(|| uid.to_string());
        Some(format!(
            "Another user ({who}) is listening on {whose} port {port}; inkling sends it no \
             notes. {fix} once that program is stopped (ask its owner or an administrator), \
             or, if you trust that user, add \"{add}\" to [ai] trusted_listeners in the \
             configuration. Your notes wait \
             and are processed when the real server answers."
        ))
    }
}

/// The kind of model server inkling speaks to (`ai.provider`): it decides the fix a
/// person is told for a missing model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelServer {
    /// Ollama: inkling can download the model (`ollama pull`).
    #[default]
    Ollama,
    /// An OpenAI-compatible server (llama.cpp, LM Studio, vLLM, Jan): the model is
    /// loaded there, by its own means.
    #[serde(rename = "openai")]
    OpenAiCompatible,
    /// The speech-to-text server of voice notes (`[transcription]`): its model is
    /// loaded there.
    SpeechToText,
}

#[cfg(test)]
mod tests;
