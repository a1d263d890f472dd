//! The unit tests of the settings: defaults, layers, the checks and their messages.

#[test]
fn local_clients_use_loopback_unless_the_service_listens_on_one_other_address() {
    let url = |bind: &str| {
        let http = super::HttpSettings {
            port: 0,
            bind: bind.parse().expect("a test address"),
            allow_non_loopback: true,
            max_body_bytes: 1,
        };
        http.local_url(4077)
    };
    assert_eq!(url("127.0.0.1"), "http://127.0.0.1:4077");
    assert_eq!(url("0.0.0.0"), "http://127.0.0.1:4077");
    assert_eq!(url("::"), "http://127.0.0.1:4077");
    assert_eq!(url("192.168.1.20"), "http://192.168.1.20:4077");
    assert_eq!(url("fd00::20"), "http://[fd00::20]:4077");
}

use super::*;

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn load(pairs: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    Settings::load_with_env(&UserFile::None, env(pairs))
}

fn write_file(contents: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, contents).unwrap();
    (dir, path)
}

#[test]
fn the_embedded_defaults_load_with_no_file_and_no_environment() {
    let s = load(&[]).unwrap();
    assert_eq!(s.http.port, 7373);
    assert_eq!(s.ollama.model, "llama3.2");
    assert_eq!(
        s.worker.unreachable_backoffs_ms,
        vec![30_000, 60_000, 120_000, 240_000, 480_000, 900_000]
    );
    assert_eq!(s.worker.retry_backoffs_ms, vec![0, 30_000, 120_000]);
    assert_eq!(s.worker.max_attempts, 3);
    assert_eq!(s.ollama.health_interval_ms, 1000);
    assert!(s.data_dir().ends_with("inkling"));
}

#[test]
fn environment_overrides_sections_top_level_keys_and_lists() {
    let s = load(&[
        ("INKLING_HTTP__PORT", "7900"),
        ("INKLING_DATA_DIR", "/tmp/inkling-env"),
        ("INKLING_OLLAMA__URL", "http://127.0.0.1:9"),
        ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,5,10"),
        ("INKLING_TELEMETRY__ENABLED", "false"),
        ("UNRELATED", "x"),
    ])
    .unwrap();
    assert_eq!(s.http.port, 7900);
    assert_eq!(s.data_dir(), PathBuf::from("/tmp/inkling-env"));
    assert_eq!(s.ollama.url, "http://127.0.0.1:9");
    assert_eq!(s.worker.retry_backoffs_ms, vec![0, 5, 10]);
    assert!(!s.telemetry.enabled);
}

#[test]
fn trusted_listeners_are_user_names_or_uids_and_an_unknown_user_is_refused() {
    assert!(load(&[]).unwrap().ai.trusted_listeners.is_empty());
    let s = load(&[("INKLING_AI__TRUSTED_LISTENERS", "root,1005")]).unwrap();
    assert_eq!(s.ai.trusted_listener_uids(), Ok(vec![0, 1005]));
    let (_dir, path) = write_file("[ai]\ntrusted_listeners = [\"root\", 1005]\n");
    let s = Settings::load_with_env(&UserFile::Explicit(path), env(&[])).unwrap();
    assert_eq!(s.ai.trusted_listener_uids(), Ok(vec![0, 1005]));
    let refused = load(&[("INKLING_AI__TRUSTED_LISTENERS", "no-such-user-of-inkling")])
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with(
            "ai.trusted_listeners: this machine has no user \"no-such-user-of-inkling\""
        ),
        "{refused}"
    );
    let (_dir, path) = write_file("[ai]\ntrusted_listeners = [-1]\n");
    let refused = Settings::load_with_env(&UserFile::Explicit(path), env(&[])).unwrap_err();
    assert!(
        refused.to_string().contains("trusted_listeners"),
        "{refused}"
    );
}

#[test]
fn the_user_file_overrides_defaults_and_the_environment_overrides_the_file() {
    let (_dir, path) = write_file("[http]\nport = 8000\n[ollama]\nmodel = \"qwen3\"\n");
    let s = Settings::load_with_env(
        &UserFile::Explicit(path),
        env(&[("INKLING_HTTP__PORT", "8001")]),
    )
    .unwrap();
    assert_eq!(s.ollama.model, "qwen3");
    assert_eq!(s.http.port, 8001);
    // Keys the file does not mention keep their defaults.
    assert_eq!(s.ollama.request_timeout_ms, 120_000);
}

#[test]
fn a_missing_explicit_config_file_is_an_error_naming_the_file() {
    let err = Settings::load_with_env(
        &UserFile::Explicit("/nonexistent/inkling.toml".into()),
        HashMap::new(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/inkling.toml"),
        "{err}"
    );
}

#[test]
fn invalid_values_are_refused_with_a_one_line_message_naming_the_key() {
    let cases: &[(&str, &str, &str)] = &[
        ("[http]\nport = \"abc\"\n", "http.port", "string port"),
        ("[http]\nport = 70000\n", "http.port", "port out of range"),
        (
            "[worker]\nunreachable_backoffs_ms = [30000, -5]\n",
            "worker.unreachable_backoffs_ms",
            "negative backoff",
        ),
        (
            "[worker]\nretry_backoffs_ms = []\n",
            "worker.retry_backoffs_ms",
            "empty list",
        ),
        (
            "[worker]\nmax_attempts = 0\n",
            "worker.max_attempts",
            "zero attempts",
        ),
        (
            "[ollama]\nurl = \"localhost:11434\"\n",
            "ollama.url",
            "url without scheme",
        ),
        ("locale = \"fr\"\n", "locale", "unknown locale"),
        ("[log]\nlevel = \"loud\"\n", "log.level", "bad log level"),
        (
            "[http]\nbind = \"0.0.0.0\"\n",
            "http.bind",
            "non-loopback bind",
        ),
        (
            "[http]\nbind = \"localhost\"\n",
            "http.bind",
            "bind not an address",
        ),
        ("[http]\nprot = 1\n", "prot", "unknown key"),
        ("[http]\nport = 27412.5\n", "http.port", "a fractional port"),
        ("[http]\nport = \"7373\"\n", "http.port", "a port in quotes"),
        ("[http]\nport = 0\n", "http.port", "port 0"),
        ("data_dir = 5\n", "data_dir", "a number for a path"),
        (
            "[tray]\nenabled = \"no\"\n",
            "tray.enabled",
            "a word for a boolean",
        ),
        ("[log]\nfile = 1\n", "log.file", "a number for a boolean"),
        (
            "[reminders]\ndaily_review = \"8am\"\n",
            "reminders.daily_review",
            "a review time not HH:MM",
        ),
        (
            "[reminders]\nnotify = \"yes\"\n",
            "reminders.notify",
            "a word for a boolean",
        ),
        (
            "[http]\nmax_body_bytes = 1000000000\n",
            "http.max_body_bytes",
            "an unbounded body",
        ),
        (
            "[worker]\nretry_backoffs_ms = [0, 1.5]\n",
            "worker.retry_backoffs_ms",
            "a fractional wait",
        ),
        ("[expiry]\ndays = -1\n", "expiry.days", "negative days"),
        (
            "[expiry]\nchoice = \"maybe\"\n",
            "expiry.choice",
            "an unknown expiry choice",
        ),
        ("[ai]\nprovider = \"lmstudio\"\n", "ai.provider", "an unknown provider"),
        (
            "[ai]\nprovider = \"openai\"\n[openai]\nurl = \"localhost:8080/v1\"\nmodel = \"m\"\n",
            "openai.url",
            "an OpenAI url without a scheme",
        ),
        (
            "[ai]\nprovider = \"openai\"\n[openai]\nurl = \"http://127.0.0.1:8080\"\nmodel = \"m\"\n",
            "openai.url",
            "an OpenAI url not ending in /v1",
        ),
        (
            "[ai]\nprovider = \"openai\"\n",
            "openai.model",
            "no model for an OpenAI server",
        ),
    ];
    for (toml, key, what) in cases {
        let (_dir, path) = write_file(toml);
        let err = Settings::load_with_env(&UserFile::Explicit(path), HashMap::new())
            .expect_err(what)
            .to_string();
        assert!(
            err.contains(key),
            "{what}: message {err:?} does not name {key}"
        );
        assert!(
            !err.contains('\n'),
            "{what}: message {err:?} is not one line"
        );
    }
}

#[test]
fn a_non_loopback_bind_needs_an_explicit_yes() {
    let (_dir, path) = write_file("[http]\nbind = \"0.0.0.0\"\nallow_non_loopback = true\n");
    let s = Settings::load_with_env(&UserFile::Explicit(path), HashMap::new()).unwrap();
    assert_eq!(s.http.bind.to_string(), "0.0.0.0");
}

#[test]
fn the_locale_comes_from_the_config_else_from_lang() {
    use LocaleSetting::*;
    assert_eq!(Locale::resolve(Ko, Some("en_US.UTF-8")), Locale::Ko);
    assert_eq!(Locale::resolve(En, Some("ko_KR.UTF-8")), Locale::En);
    assert_eq!(
        Locale::resolve(FromEnvironment, Some("ko_KR.UTF-8")),
        Locale::Ko
    );
    assert_eq!(
        Locale::resolve(FromEnvironment, Some("de_DE.UTF-8")),
        Locale::En
    );
    assert_eq!(Locale::resolve(FromEnvironment, None), Locale::En);
    let korean = load(&[("LANG", "ko_KR.UTF-8")]).expect("loads");
    assert_eq!(
        korean.locale(),
        Locale::Ko,
        "LANG read when the settings load"
    );
}

#[test]
fn an_invalid_environment_value_names_the_key() {
    let err = load(&[("INKLING_HTTP__PORT", "abc")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("http.port"), "{err}");
}

#[test]
fn ai_tools_may_capture_unless_mcp_allow_capture_is_false() {
    assert!(load(&[]).unwrap().mcp.allow_capture, "on by default");
    let off = load(&[("INKLING_MCP__ALLOW_CAPTURE", "false")]).unwrap();
    assert!(!off.mcp.allow_capture, "from the environment");
    let (_dir, path) = write_file("[mcp]\nallow_capture = false\n");
    let from_file = Settings::load_with_env(&UserFile::Explicit(path), HashMap::new()).unwrap();
    assert!(!from_file.mcp.allow_capture, "from the file");
    let (_dir, path) = write_file("[mcp]\nallow_capture = \"no\"\n");
    let refused = Settings::load_with_env(&UserFile::Explicit(path), HashMap::new())
        .unwrap_err()
        .to_string();
    assert!(refused.contains("mcp.allow_capture"), "{refused}");
}

#[test]
fn only_the_service_needs_the_model_servers_key() {
    let (_dir, path) = write_file(
        "[ai]\nprovider = \"openai\"\n[openai]\nmodel = \"m\"\napi_key_env = \"INKLING_TEST_UNSET_KEY\"\n",
    );
    // A client command loads the same file without the key in its environment.
    let settings = Settings::load_with_env(&UserFile::Explicit(path), HashMap::new())
        .expect("the settings load without the key");
    assert_eq!(settings.openai_api_key().secret(), None);
    let err = settings
        .check_model_key()
        .expect_err("the service needs it")
        .to_string();
    assert!(err.contains("openai.api_key_env"), "{err}");
    assert!(err.contains("INKLING_TEST_UNSET_KEY is not set"), "{err}");
    assert!(!err.contains('\n'), "{err}");
}

#[test]
fn the_key_may_be_in_any_variable_the_defaults_example_included() {
    for variable in ["INKLING_OPENAI_KEY", "INKLING_OPENAI__KEY", "MY_SERVER_KEY"] {
        let settings = load(&[
            ("INKLING_AI__PROVIDER", "openai"),
            ("INKLING_OPENAI__MODEL", "m"),
            ("INKLING_OPENAI__API_KEY_ENV", variable),
            (variable, "sk-secret"),
        ])
        .unwrap_or_else(|e| panic!("{variable}: {e}"));
        settings.check_model_key().expect(variable);
        assert_eq!(
            settings.openai_api_key().secret(),
            Some("sk-secret"),
            "{variable}"
        );
    }
}

#[test]
fn an_inkling_variable_that_is_no_setting_is_left_alone_but_a_misspelt_key_is_refused() {
    let settings = load(&[("INKLING_OPENAI_KEY", "sk"), ("INKLING_SCREENSHOTS", "1")])
        .expect("variables that are not settings change nothing");
    assert_eq!(settings.http.port, 7373);
    let err = load(&[("INKLING_HTTP__PROT", "7900")])
        .expect_err("a typo")
        .to_string();
    assert!(err.contains("INKLING_HTTP__PROT names no setting"), "{err}");
}

#[test]
fn voice_notes_are_off_by_default_and_their_server_is_checked_when_named() {
    let s = load(&[]).unwrap();
    assert!(!s.transcription.enabled());
    assert!(s.transcription.keep_audio, "recordings are kept by default");
    assert_eq!(s.transcription.language(), None);
    let s = load(&[
        ("INKLING_TRANSCRIPTION__URL", "http://127.0.0.1:8178/v1/"),
        ("INKLING_TRANSCRIPTION__LANGUAGE", "ko"),
    ])
    .unwrap();
    assert!(s.transcription.enabled());
    assert_eq!(s.transcription.base(), "http://127.0.0.1:8178/v1");
    assert_eq!(s.transcription.server_root(), "http://127.0.0.1:8178");
    assert_eq!(s.transcription.language().as_deref(), Some("ko"));
    let refused = |pairs: &[(&str, &str)], key: &str| {
        let error = load(pairs).expect_err(key).to_string();
        assert!(error.starts_with(key), "{key}: {error}");
    };
    refused(
        &[("INKLING_TRANSCRIPTION__URL", "http://127.0.0.1:8178")],
        "transcription.url",
    );
    refused(
        &[("INKLING_TRANSCRIPTION__LANGUAGE", "Korean")],
        "transcription.language",
    );
    refused(
        &[("INKLING_TRANSCRIPTION__MAX_AUDIO_BYTES", "0")],
        "transcription.max_audio_bytes",
    );
    // A key's variable named but unset: only the service needs it, and says so.
    let s = load(&[
        ("INKLING_TRANSCRIPTION__URL", "http://127.0.0.1:8178/v1"),
        ("INKLING_TRANSCRIPTION__API_KEY_ENV", "WHISPER_KEY"),
    ])
    .unwrap();
    let missing = s.check_model_key().expect_err("unset").to_string();
    assert!(
        missing.contains("transcription.api_key_env") && missing.contains("WHISPER_KEY"),
        "{missing}"
    );
    let s = load(&[
        ("INKLING_TRANSCRIPTION__URL", "http://127.0.0.1:8178/v1"),
        ("INKLING_TRANSCRIPTION__API_KEY_ENV", "INKLING_WHISPER_KEY"),
        ("INKLING_WHISPER_KEY", "secret"),
    ])
    .unwrap();
    assert_eq!(s.transcription_api_key().secret(), Some("secret"));
}
