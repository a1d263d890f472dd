use super::*;
use crate::actors::handling;

/// A test actor in a module of its own, so it has its own counters.
mod counted_test_actor {
    use super::*;

    pub struct Slow;

    impl Actor for Slow {
        type Context = Context<Self>;
    }

    #[derive(Message)]
    #[rtype(result = "()")]
    pub struct Work;

    impl Handler<Work> for Slow {
        type Result = ();
        fn handle(&mut self, _: Work, _: &mut Context<Self>) {
            let _handled = handling!("Work");
        }
    }
}

#[actix_rt::test]
async fn sent_messages_wait_until_handled_and_the_counts_agree() {
    use counted_test_actor::{Slow, Work};
    assert_eq!(actor_of::<Slow>(), "counted_test_actor");
    assert_eq!(
        actor_of::<crate::actors::ai_worker::AiWorkerActor>(),
        "ai_worker",
        "defined in actor.rs, named by its folder, as its handlers are"
    );
    let mailbox = Mailbox::from(Slow.start());

    for _ in 0..5 {
        mailbox.do_send(Work);
    }
    let counters = mailbox_stats::snapshot()["counted_test_actor"];
    assert_eq!((counters.received, counters.waiting), (5, 5));

    mailbox.recipient::<Work>().do_send(Work);
    mailbox.send(Work).await.expect("handled");
    let counters = mailbox_stats::snapshot()["counted_test_actor"];
    assert_eq!(
        (counters.received, counters.handled, counters.waiting),
        (7, 7, 0)
    );
}
