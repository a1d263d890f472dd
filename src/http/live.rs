//! `GET /api/events`: live updates as server-sent events.
//!
//! Each connection gets a small `LiveFeed` actor that subscribes to the hub and turns
//! every notification into one SSE frame:
//!
//! ```text
//! event: counts            data: {"pending":2,"failed":3,"expired":0}
//! event: failed_count      data: {"count":3}
//! event: ollama_status     data: {"state":"not_running","detail":"…"}
//! event: note_changed      data: {"id":"…","note":{…the note as it is now…}}
//! event: notes_changed     data: {"count":1200}   (many at once: reload the list)
//! ```
//!
//! A new feed is sent the last counts, failed count and health at once (the hub
//! replays state topics), so a page that connects or reconnects needs to ask nothing.
//!
//! ```text
//! ```
//!
//! A comment line every 30 s keeps the connection alive and notices a client that
//! went away (the send fails, the actor stops, the hub drops its subscriptions). The
//! stream ends when the server stops; the page's EventSource then retries until the
//! service is back.

use std::time::Duration;

use actix::prelude::*;
use actix_web::web::Bytes;
use actix_web::{web, HttpResponse};
use futures_util::StreamExt;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

use super::AppState;
use crate::actors::hub::{Hub, Subscribe};
use crate::actors::mailbox::{Mailbox, Subscriber};
use crate::events::{
    CountsChanged, FailedCountChanged, NoteChanged, NotesChanged, OllamaStatusChanged,
};

const KEEP_ALIVE: Duration = Duration::from_secs(30);

/// One SSE frame.
pub fn frame(event: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

struct LiveFeed {
    out: UnboundedSender<Bytes>,
}

impl LiveFeed {
    fn send(&self, bytes: Bytes, ctx: &mut Context<Self>) {
        if self.out.send(bytes).is_err() {
            ctx.stop(); // the client went away
        }
    }
}

impl Actor for LiveFeed {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(KEEP_ALIVE, |act, ctx| {
            act.send(Bytes::from_static(b": keep-alive\n\n"), ctx)
        });
    }
}

/// One notification type → one SSE event: its handler, which writes the frame. (No
/// `handling!`: feeds are not in the per-actor counters, see `events` below.)
macro_rules! live_event {
    ($message:ty, $event:literal, |$msg:ident| $data:expr) => {
        impl Handler<$message> for LiveFeed {
            type Result = ();
            fn handle(&mut self, $msg: $message, ctx: &mut Context<Self>) {
                self.send(frame($event, &$data), ctx);
            }
        }
    };
}

live_event!(FailedCountChanged, "failed_count", |msg| {
    serde_json::json!({ "count": msg.count })
});
live_event!(OllamaStatusChanged, "ollama_status", |msg| {
    serde_json::to_value(&msg.health).unwrap_or_default()
});
live_event!(NoteChanged, "note_changed", |msg| {
    serde_json::json!({ "id": msg.note.id, "note": msg.note })
});
live_event!(CountsChanged, "counts", |msg| {
    serde_json::to_value(msg.counts).unwrap_or_default()
});
live_event!(NotesChanged, "notes_changed", |msg| {
    serde_json::json!({ "count": msg.count })
});

/// Subscribes a feed to one notification type at the hub, uncounted.
fn subscribe<M>(hub: &Mailbox<Hub>, feed: &Addr<LiveFeed>)
where
    M: Message<Result = ()> + Send + 'static,
    LiveFeed: Handler<M>,
    Hub: Handler<Subscribe<M>>,
{
    hub.do_send(Subscribe(Subscriber::short_lived(
        feed.clone().recipient::<M>(),
    )));
}

/// `GET /api/events` → `text/event-stream`.
pub async fn events(state: web::Data<AppState>) -> HttpResponse {
    let (out, mut receiver) = unbounded_channel();
    // The first bytes go out at once, so the client knows it is connected.
    let _ = out.send(Bytes::from_static(b": connected\n\n"));
    // Not counted in the per-actor counters: a feed stops with its client, dropping
    // what is queued for it (src/actors/mailbox.rs).
    let feed = LiveFeed { out }.start();
    let hub = &state.services.hub;
    subscribe::<CountsChanged>(hub, &feed);
    subscribe::<FailedCountChanged>(hub, &feed);
    subscribe::<OllamaStatusChanged>(hub, &feed);
    subscribe::<NoteChanged>(hub, &feed);
    subscribe::<NotesChanged>(hub, &feed);
    // The stream ends when the server stops, so a graceful stop does not wait for it.
    let stream = futures_util::stream::poll_fn(move |cx| {
        receiver
            .poll_recv(cx)
            .map(|frame| frame.map(Ok::<_, actix_web::Error>))
    })
    .take_until(state.server.stopping());
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(stream)
}
