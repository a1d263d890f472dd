use super::*;

fn known() -> BTreeSet<String> {
    ["data_dir", "locale", "http.port", "openai.api_key_env"]
        .into_iter()
        .map(String::from)
        .collect()
}

fn env(names: &[&str]) -> HashMap<String, String> {
    names.iter().map(|n| (n.to_string(), "v".into())).collect()
}

#[test]
fn only_the_variables_of_listed_keys_are_settings() {
    let split = settings_variables(
        &env(&[
            "INKLING_HTTP__PORT",
            "INKLING_DATA_DIR",
            "INKLING_OPENAI_KEY",
            "INKLING_SCREENSHOTS",
            "HOME",
            "INKLING_HTTP__PROT",
        ]),
        &known(),
    );
    let mut taken: Vec<_> = split.taken.keys().cloned().collect();
    taken.sort();
    assert_eq!(taken, ["INKLING_DATA_DIR", "INKLING_HTTP__PORT"]);
    assert_eq!(split.unknown, ["INKLING_HTTP__PROT"]);
}

#[test]
fn the_keys_come_from_the_defaults_tables() {
    let config = config::Config::builder()
        .add_source(config::File::from_str(
            "data_dir = \"\"\n[http]\nport = 1\n[worker]\nretry_backoffs_ms = [0, 1]\n",
            config::FileFormat::Toml,
        ))
        .build()
        .unwrap();
    let defaults = config::Source::collect(&config).unwrap();
    let keys: Vec<_> = known_keys(&defaults).into_iter().collect();
    assert_eq!(keys, ["data_dir", "http.port", "worker.retry_backoffs_ms"]);
}

#[test]
fn the_refusal_names_the_variable_and_the_scheme() {
    let said = unknown_variable("INKLING_HTTP__PROT");
    assert!(
        said.contains("INKLING_HTTP__PROT names no setting (http.prot)"),
        "{said}"
    );
    assert!(said.contains("INKLING_HTTP__PORT"), "{said}");
}
