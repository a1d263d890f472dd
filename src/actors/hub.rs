//! `Hub`: fans the shared notifications of [`crate::events`] out to their subscribers.
//!
//! Publishers `do_send` a notification to the hub and need not know who listens. A new
//! subscriber of a *state* topic (the failed count, the provider's health) is sent its
//! last value at once, so an actor that starts after the first health check still
//! learns the provider's state. *Event* topics (a note changed) are not replayed: an old
//! change means nothing to a newcomer, and a page would fetch the note for nothing.

use actix::{Actor, Context, Handler, Message};

use super::handling;
use super::mailbox::Subscriber;
use crate::events::{
    CountsChanged, FailedCountChanged, JobFailed, ModelPullProgress, NoteChanged, NoteSlow,
    NotesChanged, ProviderStatusChanged, RemindersDue,
};

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

/// The subscribers of one notification type and, for a state topic, its last value.
struct Topic<M: Message<Result = ()> + Send + Clone> {
    subscribers: Vec<Subscriber<M>>,
    last: Option<M>,
    replays: bool,
}

impl<M: Message<Result = ()> + Send + Clone + 'static> Topic<M>
where
    M::Result: Send,
{
    /// A topic whose last value a new subscriber gets at once.
    fn state() -> Self {
        Topic {
            subscribers: Vec::new(),
            last: None,
            replays: true,
        }
    }

    /// A topic of events, not replayed.
    fn events() -> Self {
        Topic {
            replays: false,
            ..Self::state()
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
        if self.replays {
            self.last = Some(message);
        }
    }
}

pub struct Hub {
    counts: Topic<CountsChanged>,
    failed_count: Topic<FailedCountChanged>,
    provider_status: Topic<ProviderStatusChanged>,
    note_changed: Topic<NoteChanged>,
    notes_changed: Topic<NotesChanged>,
    job_failed: Topic<JobFailed>,
    model_pull: Topic<ModelPullProgress>,
    note_slow: Topic<NoteSlow>,
    reminders_due: Topic<RemindersDue>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            counts: Topic::state(),
            failed_count: Topic::state(),
            provider_status: Topic::state(),
            note_changed: Topic::events(),
            notes_changed: Topic::events(),
            job_failed: Topic::events(),
            model_pull: Topic::events(),
            note_slow: Topic::events(),
            reminders_due: Topic::state(),
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
                let _handled = handling!(concat!("Subscribe<", stringify!($message), ">"));
                self.$field.subscribe(msg.0);
            }
        }

        impl Handler<$message> for Hub {
            type Result = ();

            fn handle(&mut self, msg: $message, _: &mut Context<Self>) {
                let _handled = handling!(stringify!($message));
                self.$field.publish(msg);
            }
        }
    };
}

hub_topic!(CountsChanged, counts);
hub_topic!(FailedCountChanged, failed_count);
hub_topic!(ProviderStatusChanged, provider_status);
hub_topic!(NoteChanged, note_changed);
hub_topic!(NotesChanged, notes_changed);
hub_topic!(JobFailed, job_failed);
hub_topic!(ModelPullProgress, model_pull);
hub_topic!(NoteSlow, note_slow);
hub_topic!(RemindersDue, reminders_due);

#[cfg(test)]
mod tests;
