//! The inbox page in a real browser: headless Chromium driven through chromedriver
//! (WebDriver), against the service in-process with the fake Ollama.
//!
//! Needs Debian's `chromium` and `chromium-driver`; `scripts/test.sh` installs them.
//! Set `INKLING_SCREENSHOTS=1` to write the README's screenshots to `docs/`.
//! `clipper` loads the web clipper extension (`extension/`) into the same Chromium.

mod ask;
mod benchmark;
mod clipper;
mod daily;
mod daily_details;
mod daily_list;
#[path = "../support/eventually.rs"]
mod eventually;
#[path = "../support/fake_http.rs"]
mod fake_http;
#[path = "../support/fake_ollama.rs"]
mod fake_ollama;
#[path = "../support/fake_whisper.rs"]
mod fake_whisper;
mod harness;
mod inbox;
#[path = "../support/other_user.rs"]
mod other_user;
mod page;
#[path = "../support/ports.rs"]
mod ports;
mod quick;
mod quick_x11;
mod related;
mod search;
#[path = "../support/service.rs"]
mod service;
mod squatter;
mod untrusted;
mod voice;
#[path = "../support/x_server.rs"]
mod x_server;
