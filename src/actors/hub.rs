//! `Hub`: fans the shared notifications of [`crate::events`] out to their subscribers.
//!
//! Publishers `do_send` a notification to the hub and need not know who listens. A new
//! subscriber is sent the last value of its topic at once, so an actor that starts
//! after the first health check still learns the provider's state.

use std::time::Instant;

use actix::{Actor, Context, Handler, Message};

use super::log_handled;
use super::mailbox::Subscriber;
use crate::events::{FailedCountChanged, NoteChanged, NotesChanged, OllamaStatusChanged};

/// Subscribes a recipient to one notification type.
pub struct Subscribe<M>(pub Subscriber<M>)
where
    M: Message<Result = ()> + Send;

impl<M> Message for Subscribe<M>
where
    M: Message<Result = ()> + Send,
{
    type Result = ();
}

/// The subscribers of one notification type and its last value.
struct Topic<M: Message<Result = ()> + Send + Clone> {
    subscribers: Vec<Subscriber<M>>,
    last: Option<M>,
}

impl<M: Message<Result = ()> + Send + Clone + 'static> Topic<M>
where
    M::Result: Send,
{
    fn new() -> Self {
        Topic {
            subscribers: Vec::new(),
            last: None,
        }
    }

    fn subscribe(&mut self, recipient: Subscriber<M>) {
        if let Some(last) = &self.last {
            recipient.do_send(last.clone());
        }
        self.subscribers.push(recipient);
    }

    fn publish(&mut self, message: M) {
        self.subscribers.retain(|s| s.connected());
        for subscriber in &self.subscribers {
            subscriber.do_send(message.clone());
        }
        self.last = Some(message);
    }
}

pub struct Hub {
    failed_count: Topic<FailedCountChanged>,
    ollama_status: Topic<OllamaStatusChanged>,
    note_changed: Topic<NoteChanged>,
    notes_changed: Topic<NotesChanged>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            failed_count: Topic::new(),
            ollama_status: Topic::new(),
            note_changed: Topic::new(),
            notes_changed: Topic::new(),
        }
    }
}

impl Actor for Hub {
    type Context = Context<Self>;
}

/// One topic: its `Subscribe<M>` handler and its publish handler.
macro_rules! hub_topic {
    ($message:ident, $field:ident) => {
        impl Handler<Subscribe<$message>> for Hub {
            type Result = ();

            fn handle(&mut self, msg: Subscribe<$message>, _: &mut Context<Self>) {
                let started = Instant::now();
                self.$field.subscribe(msg.0);
                log_handled!(
                    concat!("Subscribe<", stringify!($message), ">"),
                    started,
                    true
                );
            }
        }

        impl Handler<$message> for Hub {
            type Result = ();

            fn handle(&mut self, msg: $message, _: &mut Context<Self>) {
                let started = Instant::now();
                self.$field.publish(msg);
                log_handled!(stringify!($message), started, true);
            }
        }
    };
}

hub_topic!(FailedCountChanged, failed_count);
hub_topic!(OllamaStatusChanged, ollama_status);
hub_topic!(NoteChanged, note_changed);
hub_topic!(NotesChanged, notes_changed);
