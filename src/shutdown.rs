//! `Shutdown`: how a part of the service (the tray's Quit) asks the whole service to
//! stop, without knowing what stopping involves.
//!
//! `Application` (`src/startup.rs`) makes it from the HTTP server's graceful stop, the
//! same path as SIGTERM: stop taking requests, let the repository drain, exit 0. A
//! bare `Services` (the pipeline tests) stops the actix System instead.

use std::sync::Arc;

/// Asks the service to stop gracefully. Cheap to clone; asking twice is harmless.
#[derive(Clone)]
pub struct Shutdown(Arc<dyn Fn() + Send + Sync>);

impl Shutdown {
    /// Stops by calling `stop` (which starts the stop and returns).
    pub fn new(stop: impl Fn() + Send + Sync + 'static) -> Self {
        Shutdown(Arc::new(stop))
    }

    /// Stops the current actix System: for a service with no server around it.
    pub fn system() -> Self {
        Shutdown::new(|| actix::System::current().stop())
    }

    /// Starts the stop.
    pub fn request(&self) {
        (self.0)()
    }
}

impl std::fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shutdown")
    }
}
