//! The shape of `src/`, checked: which module may use which.
//!
//! Four rules, read from the paths in each file (comments and `#[cfg(test)]` modules,
//! inline or in a `tests.rs` file (or a `tests/` folder beside it), left out, since tests may reach
//! anywhere):
//!
//! 1. **No circle between the top-level modules**, and every arrow points down the
//!    layers below: the wire types and plain data at the bottom, the service's parts
//!    above them, the HTTP routes and the CLI above those, start-up at the top. A
//!    module may use its own layer only when that makes no circle.
//! 2. **No arrow up inside a folder**: a file never uses an item that its parent's
//!    `mod.rs` itself defines (a type that many children need lives in a file of its
//!    own beside them, as `AppState` does in `src/http/state.rs`).
//! 3. **A functional core names no runtime and no I/O** (the worker's `core/`): no
//!    actix, awc, rusqlite, tokio, file system, network or thread; its actor carries
//!    out what it decides.
//! 4. **A model server is reached through its capabilities** (`crate::ai::Chat`,
//!    `Embed`, `Health`, `Pull`): only `ai` itself and start-up, which picks the server
//!    the settings name, name a client (`ai::ollama`, `ai::openai`), so any other
//!    implementation of a capability (an embedder in the process, a speech-to-text
//!    server) plugs in without the actors knowing.
//!
//! And two behaviours with one owner each: notes are found by meaning only through
//! `src/search/retrieve/`, and every write to a note goes through the change log
//! (`Store::write`).
//!
//! A module may be split across two layers: its part named in [`PARTS`] (a folder
//! under it) is a node of its own, placed in [`LAYERS`] by its path (`search::retrieve`,
//! retrieval's use case over the actors, above the rules the actors use).
//!
//! Paths are read as written, `crate::a::Name`, `super::Name`, `super::super::Name`,
//! and each name inside a `use …::{a, b::{c, d}}` group as the whole path it makes. Why
//! a test and not a tool: it runs with every other test, on any machine, and its
//! failure names the file and the path that broke the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom first. A top-level module not listed fails the test, so a new
/// one is placed on purpose.
const LAYERS: &[&[&str]] = &[
    // Plain data and pure rules: nothing of the service's machinery.
    &[
        "api",
        "words",
        "clock",
        "logging",
        "tags",
        "domain",
        "export",
        "render",
        "app_icon",
        "api_token",
        // A reminder's state, a time in words, which reminders to show when.
        "reminders",
        // Whether notes expire: the choice and when to ask.
        "expiry",
        // Reads /proc/net/tcp and the user database; the settings check user names.
        "socket_owner",
    ],
    &[
        "configuration",
        "identity",
        // The page's proof of the service: the CLI's identity idea, for the page.
        "page_proof",
        "sessions",
        "open_codes",
        // Paired devices (the web clipper) and their pairing codes.
        "devices",
        "instance",
        "shutdown",
    ],
    // The service's parts, each owning one resource; and retrieval's rules (the rank
    // fusion, the similarity floors), which the actors use.
    &["search", "storage", "ai", "telemetry", "events"],
    &["actors"],
    // Retrieval's use case: the notes by words and by meaning, over the repository's
    // and the worker's addresses; the inbox's search and ask call it.
    &["search::retrieve"],
    // The use cases: plain code over the actors' addresses, which the routes and the
    // desktop call, and `services` builds.
    &["inbox"],
    &["services"],
    // The ends that face people: the HTTP API (and its client), and the desktop (the
    // tray, start at login, the coming global-shortcut capture), which calls the use
    // cases directly as the routes do.
    &["http", "client", "desktop"],
    // `mcp` is a client of the service as the CLI is, for AI tools instead of a person.
    &["cli", "mcp"],
    &["startup"],
];

/// Parts of a module that sit in a layer of their own: `module::part`, a folder under
/// `src/module/`.
const PARTS: &[&str] = &["search::retrieve"];

/// The node of the layering a path belongs to: its top-level module, or the part of it
/// named in [`PARTS`].
fn node_of(path: &[String]) -> String {
    if path.len() >= 2 {
        let part = format!("{}::{}", path[0], path[1]);
        if PARTS.contains(&part.as_str()) {
            return part;
        }
    }
    path[0].clone()
}

fn layer_of(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|layer| layer.contains(&module))
        .unwrap_or_else(|| panic!("src/{module} is in no layer of tests/layers.rs: place it"))
}

/// A source file's code without comments and without its test modules.
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("read a source file");
    // Cut at the first test module with a body (`#[cfg(test)] mod tests {`); a
    // `#[cfg(test)] mod fixture;` declaration is only a line.
    let mut end = text.len();
    for (at, _) in text.match_indices("#[cfg(test)]") {
        let after = text[at + "#[cfg(test)]".len()..].trim_start();
        let declaration = after.split(';').next().unwrap_or("");
        if after.starts_with("mod ") && declaration.contains('{') {
            end = at;
            break;
        }
    }
    text[..end]
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `dir` but a module's tests in a file of their own
/// (`tests.rs`, and what its `tests/` folder holds): left out as an inline
/// `#[cfg(test)]` module is.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("a directory entry").path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let is_tests = stem == "tests";
        if path.is_dir() && !is_tests {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && !is_tests {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/http/routes/notes.rs` → `["http", "routes", "notes"]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs").to_string();
    if stem != "mod" {
        parts.push(stem);
    }
    parts
}

/// The `crate::a::b::…` paths a piece of code names, each as its segments after
/// `crate::`, a `use crate::x::{a, b::c}` group read as one path per name in it.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    paths_after(code, "crate::")
}

/// The paths written after each `start` (`crate::`, `super::`) in `code`, each as its
/// segments (`super::super::a` after `super::` is `["super", "a"]`). A `{…}` group is
/// read as one path per name in it (`a::{b, c::{d, e as f}}`: `a::b`, `a::c::d`,
/// `a::c::e`); a glob names nothing more than the path before it.
fn paths_after(code: &str, start: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find(start) {
        let begin = at + found;
        at = begin + start.len();
        let before = code[..begin].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // a longer identifier, or the middle of a path
        }
        expand(&code[at..], Vec::new(), &mut paths);
    }
    paths
}

/// Reads one path (with its groups) from the start of `text`, under `prefix`.
fn expand(text: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    if let Some(group) = text.strip_prefix('{') {
        for entry in group_entries(group) {
            expand(entry.trim_start(), prefix.clone(), out);
        }
        return;
    }
    let grew = prefix.len();
    let mut path = prefix;
    let mut rest = text;
    loop {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[name.len()..];
        if name.is_empty() {
            break;
        }
        path.push(name);
        let Some(after) = rest.strip_prefix("::") else {
            break;
        };
        let after = after.trim_start();
        if after.starts_with('{') {
            return expand(after, path, out);
        }
        rest = after;
    }
    if path.len() > grew {
        out.push(path);
    }
}

/// The entries of a `use` group whose `{` was just read, up to its `}`.
fn group_entries(group: &str) -> Vec<&str> {
    let mut entries = Vec::new();
    let mut depth = 0;
    let mut from = 0;
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                entries.push(&group[from..at]);
                return entries;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                entries.push(&group[from..at]);
                from = at + 1;
            }
            _ => {}
        }
    }
    entries
}

/// Names a `mod.rs` defines itself (types, functions, constants, traits).
fn defined_in(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in code.lines() {
        let mut words = line.split_whitespace().peekable();
        while let Some(word) = words.next() {
            if word.starts_with("pub") {
                continue;
            }
            if matches!(
                word,
                "struct" | "enum" | "fn" | "const" | "trait" | "type" | "static"
            ) {
                if let Some(name) = words.next() {
                    let name: String = name
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        names.insert(name);
                    }
                }
            }
            break;
        }
    }
    names
}

struct Source {
    module: Vec<String>,
    file: PathBuf,
    code: String,
}

fn sources() -> (PathBuf, Vec<Source>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let sources = files
        .into_iter()
        .map(|file| Source {
            module: module_path(&src, &file),
            code: code_of(&file),
            file,
        })
        .collect();
    (src, sources)
}

#[test]
fn the_top_level_modules_form_no_circle_and_every_arrow_points_down() {
    let (_, sources) = sources();
    let mut arrows: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for source in &sources {
        if source.module.is_empty() {
            continue; // lib.rs and main.rs name every module
        }
        let from = node_of(&source.module);
        if from == "main" || from == "lib" {
            continue;
        }
        for path in crate_paths(&source.code) {
            let to = node_of(&path);
            if to != from {
                arrows
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| source.file.display().to_string());
            }
        }
    }
    let mut wrong = Vec::new();
    for (from, targets) in &arrows {
        for (to, file) in targets {
            if layer_of(to) > layer_of(from) {
                wrong.push(format!(
                    "{file}: {from} (layer {}) uses {to} (layer {}), which is above it",
                    layer_of(from),
                    layer_of(to)
                ));
            }
        }
    }
    // A circle needs an arrow within one layer back to where it started.
    let reaches = |start: &str, goal: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.to_string()];
        while let Some(at) = stack.pop() {
            for next in arrows.get(&at).into_iter().flat_map(|t| t.keys()) {
                if next == goal {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    };
    for (from, targets) in &arrows {
        for (to, file) in targets {
            if reaches(to, from) {
                wrong.push(format!(
                    "{file}: {from} uses {to}, and {to} leads back to {from}: a circle"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Files that still name an item their folder's `mod.rs` defines, inside a `use
/// super::{…}` group or through `super::super::`: each item is to move to a file of its
/// own beside them (as `AppState` lives in `src/http/state.rs`), then leave this list.
/// The list only shrinks: a file not listed fails the rule, and so does an entry that
/// no longer names anything (take it off).
const NOT_MOVED_YET: &[&str] = &[
    "actors/repository/group_commit.rs: RepositoryActor",
    "cli/transfer.rs: absolute",
    "cli/usage.rs: absolute",
    "client/routes.rs: ClientError",
    "client/routes.rs: ServiceClient",
];

#[test]
fn no_file_uses_what_its_parent_module_defines() {
    let (src, sources) = sources();
    let defined: BTreeMap<Vec<String>, BTreeSet<String>> = sources
        .iter()
        .filter(|s| s.file.file_name().is_some_and(|n| n == "mod.rs"))
        .map(|s| (s.module.clone(), defined_in(&s.code)))
        .collect();
    let mut wrong = Vec::new();
    let mut listed = BTreeSet::new();
    for source in &sources {
        let is_folder = source.file.file_name().is_some_and(|n| n == "mod.rs");
        // The ancestors whose mod.rs this file must not reach into.
        let depth = source.module.len();
        let own = if is_folder {
            depth
        } else {
            depth.saturating_sub(1)
        };
        let ancestors: Vec<&[String]> = (1..=own)
            .map(|n| &source.module[..n])
            .filter(|a| !is_folder || a.len() < depth)
            .collect();
        let mut named: Vec<Vec<String>> = crate_paths(&source.code);
        // `super::Name`, `super::{A, b::C}`, `super::super::Name`: read from the
        // module each `super` leads to.
        for path in paths_after(&source.code, "super::") {
            let ups = 1 + path.iter().take_while(|s| *s == "super").count();
            let Some(base) = depth.checked_sub(ups) else {
                continue;
            };
            let mut full = source.module[..base].to_vec();
            full.extend(path.into_iter().skip(ups - 1));
            named.push(full);
        }
        for path in named {
            for ancestor in &ancestors {
                if path.len() == ancestor.len() + 1 && path.starts_with(ancestor) {
                    let name = &path[ancestor.len()];
                    if defined.get(*ancestor).is_some_and(|d| d.contains(name)) {
                        let file = source.file.strip_prefix(&src).unwrap_or(&source.file);
                        let entry = format!("{}: {name}", file.display());
                        if NOT_MOVED_YET.contains(&entry.as_str()) {
                            listed.insert(entry);
                            continue;
                        }
                        wrong.push(format!(
                            "{}: uses {} from src/{}/mod.rs, its own parent",
                            file.display(),
                            name,
                            ancestor.join("/")
                        ));
                    }
                }
            }
        }
    }
    for entry in NOT_MOVED_YET {
        if !listed.contains(*entry) {
            wrong.push(format!(
                "{entry}: moved (or gone), so no longer in NOT_MOVED_YET: take it off"
            ));
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_use_group_is_read_as_one_path_per_name_in_it() {
    let code = "use super::{Store, b::{C, d as e}, self};\n\
                use crate::x::{y::Z, W};\n\
                let v = super::super::Q + $crate::m::N;";
    let paths = |start| -> Vec<String> {
        paths_after(code, start)
            .iter()
            .map(|p| p.join("::"))
            .collect()
    };
    assert_eq!(
        paths("super::"),
        ["Store", "b::C", "b::d", "self", "super::Q"]
    );
    assert_eq!(
        paths("crate::"),
        ["x::y::Z", "x::W", "m::N"],
        "a macro's too"
    );
}

/// Folders that are a functional core: plain data and the decisions over it, with no
/// runtime and no I/O, so every rule is unit-tested without either. Their actor (the
/// imperative shell) carries out what they return.
const CORES: &[&str] = &["actors/ai_worker/core", "actors/transcriber/core"];

/// What a core never names: the actor runtime, the HTTP client, the database, the
/// async runtime, the file system, the network, threads.
const NOT_IN_A_CORE: &[&str] = &[
    "actix",
    "actix_rt",
    "awc",
    "rusqlite",
    "tokio",
    "std::fs",
    "std::net",
    "std::thread",
];

#[test]
fn a_functional_core_names_no_runtime_and_no_io() {
    let (src, sources) = sources();
    let mut wrong = Vec::new();
    for source in &sources {
        let file = source.file.strip_prefix(&src).unwrap_or(&source.file);
        if !CORES.iter().any(|core| file.starts_with(core)) {
            continue;
        }
        let paths = source
            .code
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .filter(|path| !path.is_empty());
        for path in paths {
            for banned in NOT_IN_A_CORE {
                let rest = path.strip_prefix(banned);
                if rest.is_some_and(|rest| rest.is_empty() || rest.starts_with("::")) {
                    wrong.push(format!("{}: names {path}", file.display()));
                }
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Retrieval has one owner: a note is found by meaning (the query's vector from the
/// worker, the repository's nearest notes, a note's related notes) and a question's
/// words are searched only through `src/search/retrieve/`; the actors define these
/// messages, answer them, and the worker reads a note's neighbours for its prompt.
#[test]
fn notes_are_found_by_meaning_only_through_retrieval() {
    const RETRIEVAL_MESSAGES: &[&str] = &[
        "EmbedQuery",
        "SearchByMeaning",
        "SearchEachWord",
        "GetRelated",
    ];
    let (src, sources) = sources();
    let mut wrong = Vec::new();
    for source in &sources {
        let answers = source.module.first().is_some_and(|m| m == "actors");
        if answers || node_of_file(&source.module) == "search::retrieve" {
            continue;
        }
        for message in RETRIEVAL_MESSAGES {
            let named = source.code.match_indices(message).any(|(at, _)| {
                let after = source.code[at + message.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if named {
                wrong.push(format!(
                    "{}: names {message}, which only src/search/retrieve/ sends",
                    source
                        .file
                        .strip_prefix(&src)
                        .unwrap_or(&source.file)
                        .display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// [`node_of`] for a file's module path (`lib.rs` and `main.rs` have none).
fn node_of_file(module: &[String]) -> String {
    if module.is_empty() {
        return String::new();
    }
    node_of(module)
}

/// The statements that write a note (its row in `notes`).
const NOTE_WRITES: &[&str] = &["INTO notes (", "UPDATE notes ", "DELETE FROM notes "];

/// The one write to `notes` that is not the note's own data, so not in the change log:
/// `opened_at`, when the page last showed the note (a view of it, as `reminder_shown`
/// is; the log's readers, the live pages and `GET /api/changes`, follow changes to the
/// note itself). Named here so that no other write slips by.
const VIEWS_NOT_LOGGED: &[&str] = &["pub fn mark_opened("];

/// A file's functions, each from its `fn` line to the next one (what comes before the
/// first is left out: the file's header, its constants).
fn functions(code: &str) -> Vec<String> {
    let mut functions: Vec<String> = Vec::new();
    for line in code.lines() {
        let trimmed = line.trim_start();
        let starts = ["fn ", "pub fn ", "pub(super) fn ", "pub(crate) fn "]
            .iter()
            .any(|p| trimmed.starts_with(p));
        if starts {
            functions.push(String::new());
        }
        if let Some(function) = functions.last_mut() {
            function.push_str(line);
            function.push('\n');
        }
    }
    functions
}

/// Issue #36 point 3: every write to a note goes through one place that logs it in the
/// same transaction (`src/storage/store/changes.rs`, `Store::write`). So: only that file
/// writes the log; no module outside `src/storage/store/` writes a note; and inside it,
/// a function that writes a note reaches the database only through `Store::write` (no
/// `self.conn`, no transaction of its own) and names the `ChangeKind` it logs.
#[test]
fn every_write_to_a_note_goes_through_the_change_log() {
    let (src, sources) = sources();
    let log = Path::new("storage/store/changes.rs");
    let store = Path::new("storage/store");
    let mut wrong = Vec::new();
    for source in &sources {
        let file = source.file.strip_prefix(&src).unwrap_or(&source.file);
        if file != log
            && [
                "INSERT INTO note_changes",
                "UPDATE note_changes",
                "DELETE FROM note_changes",
            ]
            .iter()
            .any(|w| source.code.contains(w))
        {
            wrong.push(format!(
                "{}: writes the change log; only {} does",
                file.display(),
                log.display()
            ));
        }
        if file == log {
            continue;
        }
        let writes_notes = |code: &str| NOTE_WRITES.iter().any(|w| code.contains(w));
        if !file.starts_with(store) {
            if writes_notes(&source.code) {
                wrong.push(format!(
                    "{}: writes a note outside src/storage/store/",
                    file.display()
                ));
            }
            continue;
        }
        for function in functions(&source.code) {
            if !writes_notes(&function) {
                continue;
            }
            let name = function.lines().next().unwrap_or("").trim().to_string();
            if VIEWS_NOT_LOGGED.iter().any(|view| name.starts_with(view))
                && function.matches("UPDATE notes SET opened_at").count() == 1
                && !function.contains("INTO notes (")
                && !function.contains("DELETE FROM notes ")
            {
                continue;
            }
            if function.contains("self.conn") || function.contains("transaction") {
                wrong.push(format!(
                    "{}: `{name}` writes a note around Store::write",
                    file.display()
                ));
            }
            if !function.contains("ChangeKind::") {
                wrong.push(format!(
                    "{}: `{name}` writes a note and logs no ChangeKind",
                    file.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn only_ai_and_start_up_name_a_model_servers_client() {
    let (src, sources) = sources();
    let mut wrong = Vec::new();
    for source in &sources {
        let Some(from) = source.module.first() else {
            continue;
        };
        if from == "ai" || from == "startup" {
            continue;
        }
        for path in crate_paths(&source.code) {
            if path.len() >= 2 && path[0] == "ai" && (path[1] == "ollama" || path[1] == "openai") {
                wrong.push(format!(
                    "{}: names crate::{}: reach the model server through a capability \
                     (crate::ai::Chat, Embed, Health, Pull), not its client",
                    source
                        .file
                        .strip_prefix(&src)
                        .unwrap_or(&source.file)
                        .display(),
                    path.join("::")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
