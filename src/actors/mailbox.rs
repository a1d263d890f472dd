//! `Mailbox<A>`: an actor's address that counts what is sent to it, so `/api/status`
//! can say per actor how many messages it received, handled, and has waiting
//! (docs/DESIGN.md, "Logs and actor counters").
//!
//! actix 0.13 keeps its queue length private (docs/PLATFORM.md, "actix: no queue
//! length"), so the count is
//! kept here, on the sending side: every address the service holds is a `Mailbox`,
//! hub subscriptions are [`Subscriber`]s, and an actor's messages to itself go through
//! [`notify`]. The handled side is the `handling!` guard, in every handler. Waiting is
//! received − handled, the message in hand included.
//!
//! Only the service's own actors, which live as long as it does, are counted. An actor
//! that stops drops what is still in its mailbox unhandled (actix does), so a
//! short-lived one (a live feed per page) would show those as waiting forever.
//!
//! A `Mailbox` does not hand out its `Addr`, so nothing can send around the count.
//! A message sent to a stopped actor is not counted: it is never handled either.

use actix::dev::{Request, ToEnvelope};
use actix::{Actor, Addr, AsyncContext, Context, Handler, Message, Recipient};

use super::mailbox_stats;

/// The counters' name of actor type `A`: the module it lives in, one actor per module
/// (`inkling::actors::repository::RepositoryActor` → `repository`), the same name
/// `handling!` records under. An actor defined in its folder's `actor.rs` (beside the
/// handlers in `mod.rs`) is named by the folder.
pub fn actor_of<A>() -> &'static str {
    actor_in(std::any::type_name::<A>())
}

fn actor_in(type_name: &'static str) -> &'static str {
    let mut path = type_name.rsplit("::");
    path.next(); // the type
    match path.next() {
        Some("actor") => path.next().unwrap_or("unknown"),
        module => module.unwrap_or("unknown"),
    }
}

/// An actor's address that counts each message sent through it.
pub struct Mailbox<A: Actor> {
    addr: Addr<A>,
    actor: &'static str,
}

impl<A: Actor> Clone for Mailbox<A> {
    fn clone(&self) -> Self {
        Mailbox {
            addr: self.addr.clone(),
            actor: self.actor,
        }
    }
}

impl<A: Actor> From<Addr<A>> for Mailbox<A> {
    fn from(addr: Addr<A>) -> Self {
        Mailbox {
            addr,
            actor: actor_of::<A>(),
        }
    }
}

impl<A: Actor> Mailbox<A> {
    fn count(&self) {
        if self.addr.connected() {
            mailbox_stats::record_received(self.actor);
        }
    }

    /// `Addr::send`, counted.
    pub fn send<M>(&self, message: M) -> Request<A, M>
    where
        M: Message + Send + 'static,
        M::Result: Send,
        A: Handler<M>,
        A::Context: ToEnvelope<A, M>,
    {
        self.count();
        self.addr.send(message)
    }

    /// `Addr::do_send`, counted.
    pub fn do_send<M>(&self, message: M)
    where
        M: Message + Send + 'static,
        M::Result: Send,
        A: Handler<M>,
        A::Context: ToEnvelope<A, M>,
    {
        self.count();
        self.addr.do_send(message)
    }

    /// A hub subscriber for one message type, counted.
    pub fn recipient<M>(&self) -> Subscriber<M>
    where
        M: Message + Send + 'static,
        M::Result: Send,
        A: Handler<M>,
        A::Context: ToEnvelope<A, M>,
    {
        Subscriber {
            recipient: self.addr.clone().recipient(),
            actor: Some(self.actor),
        }
    }
}

/// A hub subscriber: a recipient of one message type, counted when it is one of the
/// service's actors ([`Mailbox::recipient`]).
pub struct Subscriber<M>
where
    M: Message + Send,
    M::Result: Send,
{
    recipient: Recipient<M>,
    actor: Option<&'static str>,
}

impl<M> Subscriber<M>
where
    M: Message + Send,
    M::Result: Send,
{
    /// A subscriber that stops long before the service (see the module docs): not
    /// counted.
    pub fn short_lived(recipient: Recipient<M>) -> Self {
        Subscriber {
            recipient,
            actor: None,
        }
    }

    /// `Recipient::do_send`, counted.
    pub fn do_send(&self, message: M) {
        if let Some(actor) = self.actor.filter(|_| self.recipient.connected()) {
            mailbox_stats::record_received(actor);
        }
        self.recipient.do_send(message);
    }

    pub fn connected(&self) -> bool {
        self.recipient.connected()
    }
}

/// `ctx.notify(message)`, counted: an actor's message to itself.
pub fn notify<A, M>(ctx: &mut Context<A>, message: M)
where
    A: Actor<Context = Context<A>> + Handler<M>,
    M: Message + 'static,
{
    mailbox_stats::record_received(actor_of::<A>());
    ctx.notify(message);
}

#[cfg(test)]
mod tests;
