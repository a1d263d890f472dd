//! What another real user of the machine cannot get (docs/SECURITY.md, "Other users of
//! the machine"): the notes, by listening on the model server's port while it is
//! stopped. Every program here that is "another user" runs as `inkling-test-other`
//! (tests/support/other_user.rs), which needs root: without it these tests fail saying
//! so.

use serde_json::Value;

use crate::eventually::eventually;
use crate::other_user::{FakeModelServer, OtherUser, NAME};
use crate::ports::free_port;
use crate::service_process::{blocking_request, ServiceProcess};

fn service_status(service: &ServiceProcess) -> Value {
    let token = service.token().expect("the token");
    let (code, body) = blocking_request(service.port, "GET", "/api/status", Some(&token), None)
        .expect("the status answers");
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).expect("the status is JSON")
}

fn stdout(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// While Ollama was stopped, another user's program on its port received the text of
/// every pending note (3/3) and wrote their titles. Now nothing at all goes to it (not
/// even a health check), the status says whose program it is and what to do, no note
/// fails meanwhile, and the same server run by the user itself gets the note at once.
#[tokio::test]
async fn a_model_server_port_held_by_another_user_gets_no_note_and_the_status_names_its_owner() {
    let other = OtherUser::get();
    let model_port = free_port();
    let squatter = FakeModelServer::start("127.0.0.1", model_port, Some(other));
    let data_dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{model_port}");
    let service = ServiceProcess::start_with(
        data_dir.path(),
        free_port(),
        &[
            ("INKLING_OLLAMA__URL", &url),
            ("INKLING_OLLAMA__HEALTH_INTERVAL_MS", "50"),
        ],
    );
    stdout(&service.cli(&["capture", "my bank PIN is 4711"]));

    let said = eventually("the status naming the other user", || async {
        let text = stdout(&service.cli(&["status"]));
        text.contains("Another user").then_some(text)
    })
    .await;
    let owner = format!("Another user (uid {}, {NAME}) is listening on Ollama's port {model_port}; inkling sends it no notes", other.uid);
    assert!(said.contains(&owner), "{said}");
    assert!(
        said.contains(&format!("add \"{NAME}\" to [ai] trusted_listeners")),
        "{said}"
    );
    let status = service_status(&service);
    assert_eq!(
        status["provider"]["state"], "untrusted_listener",
        "{status}"
    );
    assert_eq!(status["provider"]["uid"], other.uid, "{status}");
    assert_eq!(status["provider"]["user"], NAME, "{status}");
    assert_eq!(status["worker"]["state"], "withheld", "{status}");
    // A recheck by hand is a round trip through the monitor, which looks again.
    let rechecked = stdout(&service.cli(&["recheck"]));
    assert!(rechecked.contains(&owner), "{rechecked}");
    let counts = &service_status(&service)["counts"];
    assert_eq!(
        (&counts["pending"], &counts["failed"]),
        (&1.into(), &0.into()),
        "{counts}"
    );

    let heard = squatter.stop();
    assert!(
        heard.is_empty(),
        "another user's program was sent: {heard:?}"
    );

    // The real server (the user's own) back on the port: the note goes to it now.
    let real = FakeModelServer::start("127.0.0.1", model_port, None);
    eventually(
        "the note enriched once the user's own server is back",
        || async {
            let counts = service_status(&service)["counts"].clone();
            (counts["pending"] == 0).then_some(())
        },
    )
    .await;
    let listed = stdout(&service.cli(&["list"]));
    assert!(listed.contains("Read by the fake"), "{listed}");
    let heard = real.stop();
    assert!(
        heard
            .iter()
            .any(|request| request.contains("/api/chat") && request.contains("4711")),
        "{heard:?}"
    );
}
