//! `inkling mcp` driven by a real MCP client: the official MCP Python SDK (PyPI `mcp`),
//! running `tests/mcp/client.py`, which starts `inkling mcp` over stdio as Claude
//! Desktop would (issue #27, point 3).
//!
//! The SDK comes from `scripts/mcp-test-tools.sh` (a venv cached outside the clone, in
//! `${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools`), whose env file names its Python
//! (`MCP_PYTHON`; `scripts/test.sh` runs the script and loads the file). Without it these
//! tests fail saying so: a test that passed without a client would say the server works
//! when nothing spoke to it.
//!
//! The client checks what a model sees (the tools, their schemas, each answer, a tool
//! error for each bad argument); this side checks what only the service knows: which
//! notes exist before and after, so "a bad argument changes nothing" is shown by the
//! notes themselves.

#[path = "../support/ports.rs"]
mod ports;
mod raw;
#[path = "../support/service_process.rs"]
mod service_process;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use service_process::{blocking_request, inkling_binary, ServiceProcess};

const HOW_TO_GET_IT: &str = "run scripts/mcp-test-tools.sh (it installs the MCP Python SDK \
into a venv in ${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools), then load what it wrote: \
`set -a; . \"${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools/mcp.env\"; set +a` \
(scripts/test.sh does both)";

/// The notes the service holds before the client runs (the client searches for them).
const SEEDS: [&str; 2] = [
    "Call the dentist about the March appointment",
    "Buy oat milk",
];

/// The venv's Python, which can `import mcp`; panics naming what is missing.
fn mcp_python() -> PathBuf {
    let python = std::env::var_os("MCP_PYTHON")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("the MCP tests need the MCP Python SDK: MCP_PYTHON is not set. To get it: {HOW_TO_GET_IT}.")
        });
    assert!(
        python.is_file(),
        "the MCP tests need the MCP Python SDK: MCP_PYTHON={} is not a file. To get it: {HOW_TO_GET_IT}.",
        python.display()
    );
    python
}

/// Runs `client.py SCENARIO` against `inkling mcp` with this data dir and port (and
/// config file); its output, checked to have succeeded.
fn run_client(scenario: &str, data_dir: &Path, port: u16, config: Option<&Path>) -> Output {
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut command = Command::new(mcp_python());
    command
        .arg(client)
        .arg(scenario)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("MCP_TEST_INKLING", inkling_binary())
        .env("HOME", data_dir)
        .env("XDG_CONFIG_HOME", data_dir.join("config-home"))
        .env("INKLING_DATA_DIR", data_dir)
        .env("INKLING_HTTP__PORT", port.to_string());
    if let Some(config) = config {
        command.env("MCP_TEST_CONFIG", config);
    }
    let output = command.output().expect("the MCP test client starts");
    assert!(
        output.status.success(),
        "the MCP client's checks ({scenario}) failed: {}\nstdout:\n{}\nstderr (the client's, then inkling mcp's log):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A service with the seed notes.
fn seeded_service(data_dir: &Path) -> ServiceProcess {
    let service = ServiceProcess::start(data_dir, ports::free_port());
    let token = service.token().expect("the service wrote its token");
    for body in SEEDS {
        let request = serde_json::json!({ "body": body }).to_string();
        let (status, answer) = blocking_request(
            service.port,
            "POST",
            "/api/notes",
            Some(&token),
            Some(&request),
        )
        .expect("the service answers");
        assert_eq!(status, 201, "a seed note is captured: {answer}");
    }
    service
}

/// Every note the service holds (the trash too), as (id, body), oldest first.
fn notes(service: &ServiceProcess) -> Vec<(String, String)> {
    let token = service.token().expect("the service wrote its token");
    let mut all = Vec::new();
    for path in ["/api/notes?limit=500", "/api/notes?limit=500&trash=true"] {
        let (status, body) = blocking_request(service.port, "GET", path, Some(&token), None)
            .expect("the service answers");
        assert_eq!(status, 200, "{body}");
        let listed: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
        all.extend(listed.into_iter().map(|note| {
            (
                note["id"].as_str().unwrap().to_string(),
                note["body"].as_str().unwrap().to_string(),
            )
        }));
    }
    all.sort();
    all
}

#[test]
fn a_real_client_lists_the_tools_calls_each_and_bad_arguments_change_nothing() {
    let data_dir = tempfile::tempdir().unwrap();
    let service = seeded_service(data_dir.path());
    let before = notes(&service);

    let output = run_client("running", data_dir.path(), service.port, None);

    // The one note the client captured is the only change: none of its bad arguments
    // (an empty text, a text over the limit, a wrong type, an unknown field) stored
    // anything.
    let captured = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let mut expected = before;
    expected.push((
        captured,
        "A thought from an AI tool: water the basil on Fridays".to_string(),
    ));
    expected.sort();
    assert_eq!(notes(&service), expected);
}

#[test]
fn capture_turned_off_in_the_configuration_is_not_offered_and_refused() {
    let data_dir = tempfile::tempdir().unwrap();
    let service = seeded_service(data_dir.path());
    let before = notes(&service);
    let config = data_dir.path().join("mcp-read-only.toml");
    std::fs::write(&config, "[mcp]\nallow_capture = false\n").unwrap();

    run_client("capture-off", data_dir.path(), service.port, Some(&config));

    assert_eq!(notes(&service), before, "nothing was captured");
}

#[test]
fn with_the_service_stopped_the_server_starts_and_every_call_says_how_to_start_it() {
    // Never started with this data dir: no token yet.
    let fresh = tempfile::tempdir().unwrap();
    run_client("stopped", fresh.path(), ports::free_port(), None);

    // Started once and stopped: its token is there, nothing answers on its port.
    let used = tempfile::tempdir().unwrap();
    let mut service = ServiceProcess::start(used.path(), ports::free_port());
    service.signal("TERM");
    assert!(
        service.wait_for_exit(Duration::from_secs(30)).is_some(),
        "the service stops on SIGTERM"
    );
    run_client("stopped", used.path(), service.port, None);
}
