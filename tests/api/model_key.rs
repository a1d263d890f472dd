//! The model server's key (`openai.api_key_env`): in a variable of any name, the one
//! `config/default.toml` gives as its example included, and needed by the service
//! alone: the client commands never talk to the model server (docs/SECURITY.md).

use crate::ports::free_port;
use crate::service_process::{run_cli, ServiceProcess};

const CONFIG: &str = "[ai]\nprovider = \"openai\"\n\n[openai]\n\
    url = \"http://127.0.0.1:9/v1\"\nmodel = \"some-model\"\napi_key_env = \"INKLING_OPENAI_KEY\"\n";

/// Before, `INKLING_OPENAI_KEY` stopped the service ("unknown field openai_key": the
/// environment layer took every `INKLING_` variable as a setting), and every client
/// command exited 2 unless the key was in its environment too.
#[test]
fn the_service_takes_its_key_from_inkling_openai_key_and_clients_run_without_it() {
    let data_dir = tempfile::tempdir().unwrap();
    let config = data_dir.path().join("config.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with_config_and_env(
        data_dir.path(),
        port,
        &config,
        &[("INKLING_OPENAI_KEY", "sk-only-the-service-has-this")],
    );
    let config = config.to_str().unwrap();
    let client = |args: &[&str]| {
        let mut all = vec!["--config", config];
        all.extend_from_slice(args);
        let output = run_cli(data_dir.path(), port, &all, None);
        assert!(
            output.status.success(),
            "inkling {args:?} without the key: {}\n(service: {})",
            String::from_utf8_lossy(&output.stderr),
            service.stderr_text()
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let captured = client(&["capture", "a note from a shell without the key"]);
    assert!(!captured.is_empty());
    let listed = client(&["list"]);
    assert!(
        listed.contains("a note from a shell without the key"),
        "{listed}"
    );
    client(&["status"]);
}

/// The service itself still refuses to start without the key it was told to use,
/// naming the variable.
#[test]
fn the_service_without_its_key_stops_at_start_naming_the_variable() {
    let data_dir = tempfile::tempdir().unwrap();
    let config = data_dir.path().join("config.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let output = run_cli(
        data_dir.path(),
        free_port(),
        &["--config", config.to_str().unwrap(), "run"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("openai.api_key_env") && said.contains("INKLING_OPENAI_KEY is not set"),
        "{said}"
    );
}
