use super::*;

#[test]
fn another_users_listener_is_said_with_its_owner_and_the_fix_for_each_server() {
    let held = |user: Option<&str>, server| ProviderHealth::UntrustedListener {
        port: 11434,
        uid: 1001,
        user: user.map(String::from),
        server,
    };
    let words = held(Some("mallory"), ModelServer::Ollama)
        .untrusted_listener_words()
        .unwrap();
    assert!(
        words.starts_with(
            "Another user (uid 1001, mallory) is listening on Ollama's port 11434; \
                 inkling sends it no notes. Start Ollama once that program is stopped"
        ),
        "{words}"
    );
    assert!(
        words.contains("add \"mallory\" to [ai] trusted_listeners"),
        "{words}"
    );
    let words = held(None, ModelServer::OpenAiCompatible)
        .untrusted_listener_words()
        .unwrap();
    assert!(
        words.starts_with("Another user (uid 1001) is listening on the model server's port 11434"),
        "{words}"
    );
    assert!(words.contains("add \"1001\""), "{words}");
    assert!(held(None, ModelServer::Ollama).holds_calls());
    assert_eq!(ProviderHealth::Ready.untrusted_listener_words(), None);
    let wire = serde_json::to_value(held(Some("mallory"), ModelServer::Ollama)).unwrap();
    assert_eq!(
        wire,
        serde_json::json!({"state": "untrusted_listener", "port": 11434, "uid": 1001, "user": "mallory", "server": "ollama"})
    );
}
