//! The TrayActor's menu follows the service's state, and its clicks do what the API
//! does (a recording backend stands in for D-Bus; the real bus is tests/tray.rs).

use std::sync::{Arc, Mutex};

use actix::Actor;
use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use inkling::actors::hub::Subscribe;
use inkling::actors::mailbox::Mailbox;
use inkling::ai::ModelServer;
use inkling::configuration::Locale;
use inkling::desktop::tray::menu::{MenuModel, TrayAction, TrayIcon, Wording};
use inkling::desktop::tray::TrayBackend;
use inkling::desktop::tray::{GetMenu, TrayActor, TrayClicked, TrayWiring};
use inkling::events::{FailedCountChanged, ProviderStatusChanged};

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

#[derive(Default, Clone)]
struct Recorded(Arc<Mutex<Vec<MenuModel>>>);

impl TrayBackend for Recorded {
    fn show(&self, model: MenuModel) -> LocalBoxFuture<'static, ()> {
        self.0.lock().unwrap().push(model);
        async {}.boxed_local()
    }
}

struct Tray {
    addr: actix::Addr<TrayActor>,
    shown: Recorded,
    opened: Arc<Mutex<Vec<String>>>,
}

fn start_tray(p: &Pipeline) -> Tray {
    let shown = Recorded::default();
    let opened = Arc::new(Mutex::new(Vec::new()));
    let record = opened.clone();
    let record_quick = opened.clone();
    let wiring = TrayWiring {
        inbox: p.services.inbox.clone(),
        monitor: p.services.monitor.clone(),
        telemetry: p.services.telemetry.clone(),
        shutdown: inkling::shutdown::Shutdown::system(),
        inbox_url: Arc::new(|| "http://127.0.0.1:1/?code=c".to_string()),
        opener: Arc::new(move |target: &str| {
            record.lock().unwrap().push(target.to_string());
            Ok(())
        }),
        quick_url: Arc::new(|| "http://127.0.0.1:1/quick?code=q".to_string()),
        quick_window: Arc::new(move |target: &str| {
            record_quick
                .lock()
                .unwrap()
                .push(format!("quick window: {target}"));
            Ok(())
        }),
    };
    let addr = TrayActor::new(
        Arc::new(shown.clone()),
        wiring,
        Wording {
            locale: Locale::En,
            server: ModelServer::Ollama,
        },
        0,
    )
    .start();
    let mailbox = Mailbox::from(addr.clone());
    p.services
        .hub
        .do_send(Subscribe(mailbox.recipient::<FailedCountChanged>()));
    p.services
        .hub
        .do_send(Subscribe(mailbox.recipient::<ProviderStatusChanged>()));
    Tray {
        addr,
        shown,
        opened,
    }
}

fn last_shown(tray: &Tray) -> MenuModel {
    tray.shown
        .0
        .lock()
        .unwrap()
        .last()
        .cloned()
        .expect("a menu was shown")
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_menu_follows_failures_and_the_provider_and_process_ai_now_retries() {
    let mut p = Pipeline::start(&[("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0")]).await;
    let tray = start_tray(&p);
    p.settle_until("the first menu", |_| {
        !tray.shown.0.lock().unwrap().is_empty()
    })
    .await;
    assert!(!last_shown(&tray).is_enabled(TrayAction::ProcessAiNow));

    p.fake.set_default(Reply::WrongSchema);
    let a = p.capture("a").await;
    let b = p.capture("b").await;
    p.settle_until("two failed in the menu", |_| {
        last_shown(&tray)
            .entry(TrayAction::ProcessAiNow)
            .unwrap()
            .label
            == "Process AI now (2 failed)"
    })
    .await;
    let menu = last_shown(&tray);
    assert!(menu.is_enabled(TrayAction::ProcessAiNow));
    assert!(
        !menu.is_enabled(TrayAction::RecheckProvider),
        "the provider is up"
    );
    assert_eq!(menu.icon, TrayIcon::FailedNotes);

    // The provider goes away: Recheck becomes available, the icon says so.
    p.fake.stop();
    p.ask(
        &p.services.monitor,
        inkling::actors::provider_monitor::Recheck,
    )
    .await;
    p.settle_until("recheck enabled", |_| {
        last_shown(&tray).is_enabled(TrayAction::RecheckProvider)
    })
    .await;
    assert_eq!(last_shown(&tray).icon, TrayIcon::ProviderDown);

    // "Process AI now" sends the failed notes back, like the inbox's Retry.
    tray.addr.do_send(TrayClicked(TrayAction::ProcessAiNow));
    p.settle_until("back to pending", |p| {
        p.note(&a).status == "pending" && p.note(&b).status == "pending"
    })
    .await;
    p.settle_until("the label follows", |_| {
        last_shown(&tray)
            .entry(TrayAction::ProcessAiNow)
            .unwrap()
            .label
            == "Process AI now (0 failed)"
    })
    .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_click_on_a_disabled_item_does_nothing() {
    let p = Pipeline::start(&[("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0")]).await;
    let tray = start_tray(&p);
    p.settle_until("the provider is ready", |_| {
        tray.shown
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|m| !m.is_enabled(TrayAction::RecheckProvider) && m.icon == TrayIcon::Normal)
    })
    .await;

    tray.addr.do_send(TrayClicked(TrayAction::RecheckProvider));
    tray.addr.do_send(TrayClicked(TrayAction::ProcessAiNow));
    p.settle().await;

    assert!(p.events_of("ollama_recheck_manual").is_empty());
    assert!(p.events_of("ai_retry_manual").is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn open_inbox_and_export_hand_the_page_and_the_folder_to_the_desktop() {
    let p = Pipeline::start(&[]).await;
    let tray = start_tray(&p);

    tray.addr.do_send(TrayClicked(TrayAction::OpenInbox));
    tray.addr.do_send(TrayClicked(TrayAction::QuickNote));
    tray.addr.do_send(TrayClicked(TrayAction::ExportUsageLog));

    p.settle_until("all three opened", |_| {
        tray.opened.lock().unwrap().len() == 3
    })
    .await;
    let opened = tray.opened.lock().unwrap().clone();
    assert_eq!(opened[0], "http://127.0.0.1:1/?code=c");
    assert_eq!(opened[1], "quick window: http://127.0.0.1:1/quick?code=q");
    assert!(opened[2].contains("exports/inkling-usage-"), "{opened:?}");
    let menu = p.ask(&Mailbox::from(tray.addr.clone()), GetMenu).await;
    assert_eq!(menu.entries.len(), 6);
}
