use super::*;

#[test]
fn handled_messages_are_counted_per_actor() {
    for _ in 0..3 {
        record_received("counter_test_actor");
    }
    record("counter_test_actor", Duration::from_micros(10));
    record("counter_test_actor", Duration::from_micros(30));
    let counters = snapshot()["counter_test_actor"];
    assert_eq!(
        counters,
        ActorCounters {
            received: 3,
            handled: 2,
            waiting: 1,
            busy_us: 40,
            slowest_us: 30
        }
    );
    assert_eq!(actor_name("inkling::actors::repository"), "repository");
}

/// The handler impls in `text` (up to its tests) that do not start with
/// `handling!`, by their first line.
fn uncounted_handlers(text: &str) -> Vec<String> {
    let text = text.split("#[cfg(test)]").next().unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let is_impl = |line: &str| line.trim_start().starts_with("impl");
    let mut missing = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if !(is_impl(line) && line.contains("Handler<")) {
            continue;
        }
        let end = (at + 1..lines.len())
            .find(|&next| is_impl(lines[next]))
            .unwrap_or(lines.len());
        if !lines[at..end].iter().any(|l| l.contains("handling!(")) {
            missing.push(line.trim().to_string());
        }
    }
    missing
}

/// A module's tests in a file of their own (`tests.rs`): their actors
/// are the tests' own, as the inline test modules cut off above.
fn is_test_file(path: &std::path::Path) -> bool {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .is_some_and(|stem| stem == "tests")
}

#[test]
fn every_handler_counts_what_it_handles() {
    // The actors, and the tray's in the desktop layer above the use cases.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("actors"), src.join("desktop")];
    let mut missing = Vec::new();
    let mut handlers = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") && !is_test_file(&path) {
            let text = std::fs::read_to_string(&path).unwrap();
            handlers += text.matches("Handler<").count();
            for handler in uncounted_handlers(&text) {
                missing.push(format!("{}: {handler}", path.display()));
            }
        }
    }
    assert!(handlers > 30, "the scan found the handlers ({handlers})");
    assert!(
        missing.is_empty(),
        "handlers without handling!: {missing:#?}"
    );
    assert_eq!(
        uncounted_handlers("impl Handler<A> for X {\n fn handle() {}\n}\nimpl Other for X {}"),
        ["impl Handler<A> for X {"],
        "the scan sees a handler that forgot"
    );
}
