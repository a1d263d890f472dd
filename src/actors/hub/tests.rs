use std::sync::{Arc, Mutex};

use actix::prelude::*;

use super::*;
use crate::actors::mailbox::Mailbox;
use crate::ai::ProviderHealth;

/// Records what it hears.
#[derive(Default)]
struct Listener(Arc<Mutex<Vec<String>>>);

impl Actor for Listener {
    type Context = Context<Self>;
}

impl Handler<NotesChanged> for Listener {
    type Result = ();
    fn handle(&mut self, msg: NotesChanged, _: &mut Context<Self>) {
        self.0.lock().unwrap().push(format!("notes {}", msg.count));
    }
}

impl Handler<ProviderStatusChanged> for Listener {
    type Result = ();
    fn handle(&mut self, msg: ProviderStatusChanged, _: &mut Context<Self>) {
        self.0
            .lock()
            .unwrap()
            .push(format!("health {:?}", msg.health));
    }
}

#[actix_rt::test]
async fn a_late_subscriber_gets_the_last_state_but_no_old_events() {
    let hub = Hub::default().start();
    hub.send(NotesChanged { count: 1 }).await.unwrap();
    hub.send(ProviderStatusChanged {
        health: ProviderHealth::Ready,
    })
    .await
    .unwrap();

    let heard = Arc::new(Mutex::new(Vec::new()));
    let listener = Mailbox::from(Listener(heard.clone()).start());
    hub.send(Subscribe(listener.recipient::<NotesChanged>()))
        .await
        .unwrap();
    hub.send(Subscribe(listener.recipient::<ProviderStatusChanged>()))
        .await
        .unwrap();
    hub.send(NotesChanged { count: 2 }).await.unwrap();
    actix_rt::task::yield_now().await;

    assert_eq!(
        *heard.lock().unwrap(),
        vec!["health Ready".to_string(), "notes 2".to_string()]
    );
}
