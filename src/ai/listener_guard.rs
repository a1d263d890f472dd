//! `GuardedProvider`: the provider as the actors get it when its URL is on this
//! machine. Before anything goes to the model server (a health check, a note, a model
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

use super::listener::{judge, target_of, ListenerTrust, LoopbackTarget, Verdict};
use super::{
    CallPlan, CallReply, ChatPlan, EmbedPlan, EnrichmentProvider, LoadPlan, ModelServer,
    ProviderError, ProviderHealth, PullProgress,
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

/// A provider whose every request waits for the listener check: the model server's,
/// and for the embeddings the embedding server's (`openai.embedding_url`, another port).
pub struct GuardedProvider {
    inner: Rc<dyn EnrichmentProvider>,
    check: Option<ListenerCheck>,
    embedding_check: Option<ListenerCheck>,
}

impl GuardedProvider {
    /// `inner` behind `check` (its chat calls, health, loads) and `embedding_check`
    /// (its embeddings); a provider with neither on this machine is returned as it is.
    pub fn wrap(
        inner: Rc<dyn EnrichmentProvider>,
        check: Option<ListenerCheck>,
        embedding_check: Option<ListenerCheck>,
    ) -> Rc<dyn EnrichmentProvider> {
        if check.is_none() && embedding_check.is_none() {
            return inner;
        }
        Rc::new(GuardedProvider {
            inner,
            check,
            embedding_check,
        })
    }

    fn refused_call(&self) -> Option<ProviderError> {
        self.check.as_ref().and_then(ListenerCheck::refused_call)
    }
}

impl EnrichmentProvider for GuardedProvider {
    fn enrich(&self, plan: CallPlan) -> LocalBoxFuture<'static, CallReply> {
        match self.refused_call() {
            Some(error) => ready(CallReply::failed(error)).boxed_local(),
            None => self.inner.enrich(plan),
        }
    }

    fn model_context(&self) -> LocalBoxFuture<'static, Result<Option<u32>, ProviderError>> {
        match self.refused_call() {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.model_context(),
        }
    }

    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth> {
        match self.check.as_ref().and_then(ListenerCheck::refusal) {
            Some(health) => ready(health).boxed_local(),
            None => self.inner.health(),
        }
    }

    fn load_model(&self, plan: LoadPlan) -> LocalBoxFuture<'static, Result<(), ProviderError>> {
        match self.refused_call() {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.load_model(plan),
        }
    }

    fn embed(
        &self,
        plan: EmbedPlan,
    ) -> LocalBoxFuture<'static, Result<Vec<Vec<f32>>, ProviderError>> {
        match self
            .embedding_check
            .as_ref()
            .and_then(ListenerCheck::refused_call)
        {
            Some(error) => ready(Err(error)).boxed_local(),
            None => self.inner.embed(plan),
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
