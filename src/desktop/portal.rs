//! The desktop shortcut through the XDG desktop portal's GlobalShortcuts interface
//! (`org.freedesktop.portal.GlobalShortcuts`): where the desktop offers it (GNOME 48,
//! KDE Plasma 6 and others through xdg-desktop-portal), the running service binds
//! `quick.shortcut` itself and opens the quick window when the portal says it was
//! pressed (`Activated`); nothing is written in the desktop's settings, and the desktop
//! asks the person once whether to allow it. On with `quick.portal = true`.
//!
//! The portal answers a call through a Request object whose path is known before the
//! call ([`request_path`]), so the answer is listened for first and cannot be missed.
//! zbus is the one ksni already runs on tokio.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Context};
use futures_util::StreamExt;
use zbus::zvariant::{ObjectPath, OwnedObjectPath, OwnedValue, Value};

use super::shortcut::Key;

/// The id of inkling's one shortcut at the portal.
pub const SHORTCUT_ID: &str = "quick-note";

/// Where the portal puts the Request object of a call made with `token` by the
/// connection named `unique_name` (":1.42" → `…/request/1_42/<token>`).
pub fn request_path(unique_name: &str, token: &str) -> String {
    let sender = unique_name.trim_start_matches(':').replace('.', "_");
    format!("/org/freedesktop/portal/desktop/request/{sender}/{token}")
}

/// The key in the portal's notation (the XDG shortcuts specification): `CTRL+ALT+n`.
pub fn trigger(key: &Key) -> String {
    key.portal()
}

#[zbus::proxy(
    interface = "org.freedesktop.portal.GlobalShortcuts",
    default_service = "org.freedesktop.portal.Desktop",
    default_path = "/org/freedesktop/portal/desktop"
)]
trait GlobalShortcuts {
    fn create_session(&self, options: HashMap<&str, Value<'_>>) -> zbus::Result<OwnedObjectPath>;

    fn bind_shortcuts(
        &self,
        session_handle: &ObjectPath<'_>,
        shortcuts: &[(&str, HashMap<&str, Value<'_>>)],
        parent_window: &str,
        options: HashMap<&str, Value<'_>>,
    ) -> zbus::Result<OwnedObjectPath>;

    #[zbus(signal)]
    fn activated(
        &self,
        session_handle: ObjectPath<'_>,
        shortcut_id: &str,
        timestamp: u64,
        options: HashMap<&str, Value<'_>>,
    ) -> zbus::Result<()>;
}

#[zbus::proxy(
    interface = "org.freedesktop.portal.Request",
    default_service = "org.freedesktop.portal.Desktop"
)]
trait Request {
    #[zbus(signal)]
    fn response(&self, response: u32, results: HashMap<&str, Value<'_>>) -> zbus::Result<()>;
}

/// Listens for the answer at `path`, then makes the call; the answer's results.
async fn answered<F>(
    connection: &zbus::Connection,
    path: String,
    call: F,
) -> anyhow::Result<HashMap<String, OwnedValue>>
where
    F: std::future::Future<Output = zbus::Result<OwnedObjectPath>>,
{
    let request = RequestProxy::builder(connection)
        .path(path)?
        .build()
        .await?;
    let mut answers = request.receive_response().await?;
    call.await?;
    let answer = answers
        .next()
        .await
        .ok_or_else(|| anyhow!("the portal went away before it answered"))?;
    let args = answer.args()?;
    match args.response {
        0 => {}
        1 => bail!("the shortcut was not allowed (the desktop's dialog was cancelled)"),
        other => bail!("the portal refused (response {other})"),
    }
    args.results
        .iter()
        .map(|(name, value)| Ok((name.to_string(), OwnedValue::try_from(value)?)))
        .collect::<Result<_, zbus::zvariant::Error>>()
        .map_err(Into::into)
}

/// Binds `written_key` (`quick.shortcut`) through the portal on the session bus (or
/// the bus at `address`, for tests), calling `open` at each press. Without a bus or a
/// portal that offers GlobalShortcuts it logs once why and does nothing more.
///
/// It runs on a thread and a tokio runtime of its own, never dropped: zbus tidies up
/// a dropped connection by spawning a task, which panics once the runtime it would go
/// on is gone (seen in tests/portal.rs: a listener spawned on the test's runtime
/// aborted the process as that runtime stopped; the service's would at its stop). The
/// thread ends with the process.
pub fn start(
    address: Option<String>,
    written_key: &str,
    open: impl Fn() + Send + 'static,
) -> std::io::Result<()> {
    let key = match Key::parse(written_key) {
        Ok(key) => key,
        Err(e) => {
            tracing::warn!(error = %e, "no desktop shortcut through the portal");
            return Ok(());
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("portal-shortcut".into())
        .spawn(move || {
            let bound = runtime.block_on(async {
                let connection = match address {
                    Some(address) => zbus::connection::Builder::address(address.as_str())?
                        .build()
                        .await
                        .context("cannot reach that bus")?,
                    None => zbus::Connection::session()
                        .await
                        .context("no desktop session bus")?,
                };
                listen(connection, &key, "Quick note (inkling)", open).await
            });
            if let Err(e) = bound {
                tracing::warn!(
                    error = %format!("{e:#}"),
                    "no desktop shortcut through the portal; `inkling shortcut on` sets one in the desktop's own settings"
                );
            }
            std::mem::forget(runtime);
        })?;
    Ok(())
}

/// Binds `key` at the portal on `connection` (the session bus) and calls `pressed` at
/// each press, for as long as the connection lives. Returns why it could not bind.
pub async fn listen(
    connection: zbus::Connection,
    key: &Key,
    description: &str,
    pressed: impl Fn() + Send + 'static,
) -> anyhow::Result<()> {
    let portal = GlobalShortcutsProxy::new(&connection)
        .await
        .context("no desktop portal")?;
    let unique = connection
        .unique_name()
        .ok_or_else(|| anyhow!("not on a bus"))?
        .to_string();
    let token = format!("inkling_{}", std::process::id());
    let options = HashMap::from([
        ("handle_token", Value::from(token.as_str())),
        ("session_handle_token", Value::from(token.as_str())),
    ]);
    let created = answered(
        &connection,
        request_path(&unique, &token),
        portal.create_session(options),
    )
    .await
    .context("the portal's GlobalShortcuts gave no session")?;
    let session = created
        .get("session_handle")
        .ok_or_else(|| anyhow!("the portal's answer has no session_handle"))?;
    let session = OwnedObjectPath::try_from(String::try_from(session.try_clone()?)?)?;

    let bind_token = format!("{token}_bind");
    let shortcut = HashMap::from([
        ("description", Value::from(description)),
        ("preferred_trigger", Value::from(trigger(key))),
    ]);
    answered(
        &connection,
        request_path(&unique, &bind_token),
        portal.bind_shortcuts(
            &session,
            &[(SHORTCUT_ID, shortcut)],
            "",
            HashMap::from([("handle_token", Value::from(bind_token.as_str()))]),
        ),
    )
    .await
    .context("the portal did not bind the shortcut")?;
    tracing::info!(trigger = %trigger(key), "desktop shortcut bound through the portal");

    let mut presses = portal.receive_activated().await?;
    while let Some(press) = presses.next().await {
        if press
            .args()
            .is_ok_and(|args| args.shortcut_id == SHORTCUT_ID)
        {
            pressed();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
