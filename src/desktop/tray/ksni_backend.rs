//! The tray on Linux desktops: a StatusNotifierItem over D-Bus with ksni 0.3.
//!
//! ksni 0.3 rather than tray-item (docs/PLATFORM.md, "The desktop tray"): it can grey out an item
//! (`enabled`), it is pure Rust (zbus, no libdbus), and with no session bus `spawn()`
//! returns an error instead of panicking a thread. `assume_sni_available(true)`: the
//! service may start before the desktop's tray does; the item registers when it appears.

use std::time::Duration;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use ksni::menu::StandardItem;
use ksni::{Icon, MenuItem, ToolTip, Tray, TrayMethods};
use tokio::sync::mpsc::UnboundedSender;

use super::backend::TrayBackend;
use super::icon;
use super::menu::{MenuModel, TrayAction};

/// How long to wait for the session bus before going on without a tray.
const SPAWN_TIMEOUT: Duration = Duration::from_secs(5);

/// The ksni side: the current menu, and where clicks go.
pub struct KsniTray {
    model: MenuModel,
    clicks: UnboundedSender<TrayAction>,
}

impl Tray for KsniTray {
    fn id(&self) -> String {
        "inkling".into()
    }

    fn title(&self) -> String {
        "inkling".into()
    }

    /// A left click on the icon opens the inbox (the menu is on the right button).
    fn activate(&mut self, _x: i32, _y: i32) {
        let _ = self.clicks.send(TrayAction::OpenInbox);
    }

    fn icon_pixmap(&self) -> Vec<Icon> {
        [22, 32, 48]
            .into_iter()
            .map(|size| Icon {
                width: size,
                height: size,
                data: icon::pixels(self.model.icon, size as u32),
            })
            .collect()
    }

    fn tool_tip(&self) -> ToolTip {
        ToolTip {
            title: self.model.tooltip.clone(),
            ..Default::default()
        }
    }

    fn menu(&self) -> Vec<MenuItem<Self>> {
        self.model
            .entries
            .iter()
            .map(|entry| {
                let action = entry.action;
                StandardItem {
                    label: entry.label.clone(),
                    enabled: entry.enabled,
                    // ksni calls this even for a disabled item when a host (or a test)
                    // sends "clicked"; the TrayActor checks `enabled` again.
                    activate: Box::new(move |tray: &mut Self| {
                        let _ = tray.clicks.send(action);
                    }),
                    ..Default::default()
                }
                .into()
            })
            .collect()
    }
}

impl TrayBackend for ksni::Handle<KsniTray> {
    fn show(&self, model: MenuModel) -> LocalBoxFuture<'static, ()> {
        let handle = self.clone();
        async move {
            handle.update(|tray| tray.model = model).await;
        }
        .boxed_local()
    }
}

/// Puts the icon in the tray. `Err` (with the reason) when there is no desktop session
/// bus or it does not answer in time: the caller runs without a tray.
pub async fn spawn(
    model: MenuModel,
    clicks: UnboundedSender<TrayAction>,
) -> Result<ksni::Handle<KsniTray>, String> {
    let spawn = KsniTray { model, clicks }
        .assume_sni_available(true)
        .spawn();
    match tokio::time::timeout(SPAWN_TIMEOUT, spawn).await {
        Ok(Ok(handle)) => Ok(handle),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!(
            "no answer from the session bus within {SPAWN_TIMEOUT:?}"
        )),
    }
}
