//! What shows the menu to a person: the D-Bus tray (`ksni_backend`), or a recorder in
//! tests. The `TrayActor` holds one and knows nothing of D-Bus.

use futures_util::future::LocalBoxFuture;

use super::menu::MenuModel;

/// Whatever shows the menu: the D-Bus tray, or a recorder in tests.
pub trait TrayBackend: Send + Sync {
    /// Shows this menu (and icon) from now on.
    fn show(&self, model: MenuModel) -> LocalBoxFuture<'static, ()>;
}
