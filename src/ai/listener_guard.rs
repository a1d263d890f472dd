//! [`guard`]: the model server's capabilities as the actors get them when its URL is on
//! this machine. Before anything goes to the model server (a health check, a note, a model
//! load or download) it looks at who owns the listeners of the server's port and
//! refuses another user's ([`super::listener`]): the health check answers
//! [`ProviderHealth::UntrustedListener`], which the worker holds its calls on and the
//! page, the tray and `inkling status` show in plain words; a call answers
//! [`ProviderError::Misconfigured`], an outage to the worker (no attempt counted, the
//! monitor asked to look), never a note's failure.
//!
//! The look is a netlink query of the listening sockets (`crate::socket_owner`) just
//! before the request, tiny against a call of seconds. What it cannot close: a program
//! that binds the port in the moment between the look and awc's connect, while the
//! real server is down (docs/SECURITY.md).

use std::rc::Rc;

use futures_util::future::{ready, LocalBoxFuture};
use futures_util::stream::{self, LocalBoxStream};
use futures_util::FutureExt;
use futures_util::StreamExt as _;

use super::capabilities::Transcription;
use super::listener::{judge, target_of, ListenerTrust, LoopbackTarget, Verdict};
use super::{
    CallPlan, CallReply, Capabilities, Chat, ChatPlan, Embed, EmbedPlan, Health, LoadPlan,
    ModelServer, ProviderError, ProviderHealth, Pull, PullProgress, Transcribe, TranscribePlan,
    Transcript,
};
use crate::socket_owner;

/// Who listens on a loopback model server's port, and whether notes may go there.
#[derive(Debug, Clone)]
pub struct ListenerCheck {
    target: LoopbackTarget,
    trust: ListenerTrust,
    server: ModelServer,
}

impl ListenerCheck {
    /// The check for a provider at `url`; `None` when the URL is not on this machine
    /// (not checked: see [`super::listener`]).
    pub fn for_url(url: &str, trust: ListenerTrust, server: ModelServer) -> Option<Self> {
        target_of(url).map(|target| ListenerCheck {
            target,
            trust,
            server,
        })
    }

    /// `None`: go ahead. Otherwise the state that says why nothing may be sent.
    pub fn refusal(&self) -> Option<ProviderHealth> {
        let port = self.target.port;
        let listeners = match socket_owner::listeners_on_port(port) {
            Ok(listeners) => listeners,
            Err(e) => {
                return Some(ProviderHealth::NotRunning {
                    detail: format!(
                        "inkling cannot tell whose program listens on port {port} ({e}), \
                         and sends no note until it can"
                    ),
                })
            }
        };
        let owners: Vec<Option<u32>> = listeners
            .iter()
            .filter(|listener| self.target.reached_by(listener.local))
            .map(socket_owner::SocketEntry::owner)
            .collect();
        match judge(&owners, &self.trust) {
            Verdict::Allowed | Verdict::NoListener => None,
            Verdict::Refused { uid } => {
                let health = ProviderHealth::UntrustedListener {
                    port,
                    uid,
                    user: socket_owner::user_name(uid),
                    server: self.server,
                };
                // Each health check while it lasts comes here: the monitor logs the
                // state once, when it changes.
                tracing::debug!(port, uid, "another user's program listens on the model server's port; no note is sent to it");
                Some(health)
            }
        }
    }

    /// The refusal as a call's error.
    fn refused_call(&self) -> Option<ProviderError> {
        self.refusal().map(|health| {
            ProviderError::Misconfigured(health.untrusted_listener_words().unwrap_or_else(|| {
                match health {
                    ProviderHealth::NotRunning { detail } => detail,
                    other => format!("{other:?}"),
                }
            }))
        })
    }
}

/// `server`'s capabilities, each behind the check of the port it sends to: chat,
/// health and downloads behind `check` (the model server's), the notes' vectors behind
/// `embedding_check` (the embedding server's). A capability with no check on this
/// machine is returned as it is. An embedder swapped in afterwards
/// ([`Capabilities::with_embedder`]) is not guarded: it is not a server here.
pub fn guard(
    server: Capabilities,
    check: Option<ListenerCheck>,
    embedding_check: Option<ListenerCheck>,
) -> Capabilities {
    fn behind<T: ?Sized>(inner: Rc<T>, check: &Option<ListenerCheck>) -> Option<Guarded<T>> {
        check.clone().map(|check| Guarded { inner, check })
    }
    Capabilities {
        chat: match behind(server.chat.clone(), &check) {
            Some(guarded) => Rc::new(guarded),
            None => server.chat,
        },
        embed: match behind(server.embed.clone(), &embedding_check) {
            Some(guarded) => Rc::new(guarded),
            None => server.embed,
        },
        health: match behind(server.health.clone(), &check) {
            Some(guarded) => Rc::new(guarded),
            None => server.health,
        },
        pull: match behind(server.pull.clone(), &check) {
            Some(guarded) => Rc::new(guarded),
            None => server.pull,
        },
        transcription: server.transcription,
    }
}

/// The speech-to-text server's capabilities behind the check of its own port, as
/// [`guard`] puts the model server's: a refused listener is its health's state, and an
/// outage to the voice notes' worker (no attempt counted).
pub fn guard_transcription(server: Transcription, check: Option<ListenerCheck>) -> Transcription {
    match check {
        None => server,
        Some(check) => Transcription {
            transcribe: Rc::new(Guarded {
                inner: server.transcribe,
                check: check.clone(),
            }),
            health: Rc::new(Guarded {
                inner: server.health,
                check,
            }),
        },
    }
}

/// One capability whose every request waits for the listener check of its server.
struct Guarded<T: ?Sized> {
    inner: Rc<T>,
    check: ListenerCheck,
}

impl<T: ?Sized> Guarded<T> {
    fn refused_call(&self) -> Option<ProviderError> {
        self.check.refused_call()
    }
}

impl Chat for Guarded<dyn Chat> {
    fn enrich(&self, plan: CallPlan) -> LocalBoxFuture<'static, CallReply> {
        match self.refused_call() {
            Some(error) => ready(CallReply::failed(error)).boxed_local(),
            None => self.inner.enrich(plan),
        }
    }

    fn chat_stream(
        &self,
        plan: ChatPlan,
    ) -> LocalBoxStream<'static, Result<String, ProviderError>> {
        match self.refused_call() {
            Some(error) => stream::once(ready(Err(error))).boxed_local(),
            None => self.inner.chat_stream(plan),
        }
    }

    fn model_context(&self) -> LocalBoxFuture<'static, Result<Option<u32>, ProviderError>> {
        match self.refused_call() {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.model_context(),
        }
    }

    fn load_model(&self, plan: LoadPlan) -> LocalBoxFuture<'static, Result<(), ProviderError>> {
        match self.refused_call() {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.load_model(plan),
        }
    }
}

impl Embed for Guarded<dyn Embed> {
    fn embed(
        &self,
        plan: EmbedPlan,
    ) -> LocalBoxFuture<'static, Result<Vec<Vec<f32>>, ProviderError>> {
        match self.refused_call() {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.embed(plan),
        }
    }
}

impl Transcribe for Guarded<dyn Transcribe> {
    fn transcribe(
        &self,
        plan: TranscribePlan,
    ) -> LocalBoxFuture<'static, Result<Transcript, ProviderError>> {
        match self.refused_call() {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.transcribe(plan),
        }
    }
}

impl Health for Guarded<dyn Health> {
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth> {
        match self.check.refusal() {
            Some(health) => ready(health).boxed_local(),
            None => self.inner.health(),
        }
    }
}

impl Pull for Guarded<dyn Pull> {
    fn pull_model(
        &self,
        model: &str,
    ) -> LocalBoxStream<'static, Result<PullProgress, ProviderError>> {
        match self.refused_call() {
            Some(error) => stream::once(ready(Err(error))).boxed_local(),
            None => self.inner.pull_model(model),
        }
    }
}
