//! `GET /api/events`: live updates as server-sent events.
//!
//! Each connection gets a small `LiveFeed` actor that subscribes to the hub and turns
//! every notification into one SSE frame: a [`LiveEvent`], which knows its name and
//! data (`crate::api::live`).
//!
//! A new feed is sent the last counts, failed count and health at once (the hub
//! replays state topics), so a page that connects or reconnects needs to ask nothing.
//!
//! A client that goes away is noticed at once: the server ends the connection when
//! the client closes its side (`server/listener.rs`), the stream is dropped with it, and the
//! feed's actor stops as its channel closes (the hub then drops its subscriptions). A
//! comment line every 30 s keeps proxies and idle timers from cutting a quiet feed. The
//! stream ends when the server stops; the page then retries until the service is back.
//!
//! At most [`live_feeds::MAX_LIVE_FEEDS`] are open at a time, counted with the answers being
//! streamed (a person has a few tabs; a runaway script could open hundreds): past that
//! a feed is refused with 503 and its connection closed. A feed's connection is never evicted at the connection cap
//! (`server/connection.rs`), and the feeds' own cap keeps them from taking every slot.

use std::time::Duration;

use actix::prelude::*;
use actix_web::web::Bytes;
use actix_web::{web, HttpMessage, HttpResponse};
use futures_util::StreamExt;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

use crate::actors::hub::{Hub, Subscribe};
use crate::actors::mailbox::{Mailbox, Subscriber};
use crate::api::live::LiveEvent;
use crate::api::notes::NoteView;
use crate::events::{
    CountsChanged, FailedCountChanged, ModelPullProgress, NoteChanged, NoteSlow, NotesChanged,
    ProviderStatusChanged,
};
use crate::http::auth::Credential;
use crate::http::live_feeds;
use crate::http::server::connection::{Connection, Stage};
use crate::http::state::AppState;
use crate::sessions::Sessions;

const KEEP_ALIVE: Duration = Duration::from_secs(30);

struct LiveFeed {
    out: UnboundedSender<Bytes>,
    /// A changed note goes out with its expiry facts as of when it is sent.
    expiry: crate::expiry::Expiry,
    clock: crate::clock::SharedClock,
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
        // The stream (and its receiver) goes with the client's connection.
        let out = self.out.clone();
        ctx.spawn(
            async move { out.closed().await }
                .into_actor(self)
                .map(|(), _, ctx| ctx.stop()),
        );
        ctx.run_interval(KEEP_ALIVE, |act, ctx| {
            act.send(Bytes::from_static(b": keep-alive\n\n"), ctx)
        });
    }
}

/// One notification type → one [`LiveEvent`]: its handler, which writes the frame. (No
/// `handling!`: feeds are not in the per-actor counters, see `events` below.)
macro_rules! live_event {
    ($message:ty, |$msg:ident| $event:expr) => {
        impl Handler<$message> for LiveFeed {
            type Result = ();
            fn handle(&mut self, $msg: $message, ctx: &mut Context<Self>) {
                let event: LiveEvent = $event;
                self.send(Bytes::from(event.frame()), ctx);
            }
        }
    };
}

live_event!(FailedCountChanged, |msg| LiveEvent::FailedCount {
    count: msg.count
});
live_event!(ProviderStatusChanged, |msg| LiveEvent::ProviderStatus(
    msg.health
));
impl Handler<NoteChanged> for LiveFeed {
    type Result = ();
    fn handle(&mut self, msg: NoteChanged, ctx: &mut Context<Self>) {
        let event = LiveEvent::NoteChanged {
            id: msg.note.id.clone(),
            note: Box::new(NoteView::new(
                msg.note,
                self.expiry.active_days(),
                self.clock.now(),
            )),
        };
        self.send(Bytes::from(event.frame()), ctx);
    }
}
live_event!(CountsChanged, |msg| LiveEvent::Counts(msg.counts));
live_event!(NotesChanged, |msg| LiveEvent::NotesChanged {
    count: msg.count
});
live_event!(NoteSlow, |msg| LiveEvent::NoteSlow(msg.slow));
live_event!(ModelPullProgress, |msg| LiveEvent::ModelPull(msg));

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

/// `GET /api/events` → `text/event-stream`, or 503 when [`live_feeds::MAX_LIVE_FEEDS`] are open.
pub async fn events(request: actix_web::HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let Some(counted) = state.live_feeds.open() else {
        return live_feeds::refusal(&request);
    };
    if let Some(connection) = request.conn_data::<Connection>() {
        connection.set_stage(Stage::LiveFeed);
    }
    let (out, mut receiver) = unbounded_channel();
    // The first bytes go out at once, so the client knows it is connected.
    let _ = out.send(Bytes::from_static(b": connected\n\n"));
    // Not counted in the per-actor counters: a feed stops with its client, dropping
    // what is queued for it (src/actors/mailbox.rs).
    let feed = LiveFeed {
        out,
        expiry: state.expiry.clone(),
        clock: state.clock.clone(),
    }
    .start();
    let hub = &state.services.hub;
    subscribe::<CountsChanged>(hub, &feed);
    subscribe::<FailedCountChanged>(hub, &feed);
    subscribe::<ProviderStatusChanged>(hub, &feed);
    subscribe::<NoteChanged>(hub, &feed);
    subscribe::<NotesChanged>(hub, &feed);
    subscribe::<ModelPullProgress>(hub, &feed);
    subscribe::<NoteSlow>(hub, &feed);
    // The stream ends when the server stops, so a graceful stop does not wait for it,
    // and when the session it was opened with ends (`inkling logout --all`): a signed-out
    // page hears nothing more.
    let session = match request.extensions().get::<Credential>() {
        Some(Credential::Session(access)) => Some(access.clone()),
        _ => None,
    };
    let signed_out = session
        .zip(request.app_data::<web::Data<Sessions>>())
        .map(|(access, sessions)| sessions.until_ended(&access));
    let signed_out = async move {
        match signed_out {
            Some(ended) => ended.await,
            None => std::future::pending().await,
        }
    };
    let stream = futures_util::stream::poll_fn(move |cx| {
        let _counted = &counted;
        receiver
            .poll_recv(cx)
            .map(|frame| frame.map(Ok::<_, actix_web::Error>))
    })
    .take_until(futures_util::future::select(
        Box::pin(state.server.stopping()),
        Box::pin(signed_out),
    ));
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(stream)
}
