//! The answers as a person reads them in a terminal: plain functions from what the
//! service answered to lines of text, so every wording is tested without a service.
//! Text that came from a note or a model goes through [`printable`] first.

use std::collections::BTreeMap;

use crate::api::notes::{RelatedNote, SnippetPart};
use crate::api::replies::{TagCount, TagRenamed};
use crate::api::search::FoundBy;
use crate::api::status::{
    ActorCounters, ModelServer, ProviderHealth, ServiceStatus, SlowNote, WorkerState, WorkerStatus,
};
use crate::api::worker::EmbeddingsState;
use crate::domain::Note;
use crate::expiry::ExpiryChoice;

/// `inkling status`: the version and address, the counts, the provider, the worker, its
/// slow notes and the per-actor counters.
pub fn status_lines(status: &ServiceStatus, base_url: &str, verbose: bool) -> Vec<String> {
    let counts = &status.counts;
    let mut lines = vec![
        format!("inkling {} at {base_url}", status.version),
        match status.expiry.choice {
            ExpiryChoice::On => format!(
                "notes: {} pending, {} failed, {} expired",
                counts.pending, counts.failed, counts.expired
            ),
            // Off, or not answered yet: "0 expired" would hint at a rule that is not on.
            ExpiryChoice::Ask => format!(
                "notes: {} pending, {} failed (expiry is off: notes never expire; the page asks \
                 after a month, or set expiry.choice = \"on\")",
                counts.pending, counts.failed
            ),
            ExpiryChoice::Off => format!(
                "notes: {} pending, {} failed (expiry is off: notes never expire)",
                counts.pending, counts.failed
            ),
        },
        format!(
            "{}: {}",
            match status.model_server {
                ModelServer::Ollama => "ollama",
                ModelServer::OpenAiCompatible | ModelServer::SpeechToText => "model server",
            },
            describe_health(status.provider.as_ref())
        ),
        format!("worker: {}", describe_worker(&status.worker)),
        format!("AI:     {}", status.what_you_get()),
    ];
    if status.worker.model_time.is_worth_saying() {
        lines.push(format!(
            "model:  {} since start",
            status
                .worker
                .model_time
                .describe(crate::configuration::Locale::En)
        ));
    }
    lines.push(format!(
        "related notes: {}",
        describe_embeddings(&status.worker.embeddings)
    ));
    if let Some(vectors) = &status.vectors {
        lines.push(format!("vectors: {}", vectors.words()));
    }
    for slow in &status.worker.slow_notes {
        lines.push(format!(
            "slow:   note {}: {}",
            slow.note_id,
            describe_slow(slow)
        ));
    }
    if verbose {
        lines.extend(describe_actors(&status.actors));
    }
    lines
}

/// The notes' vectors' state, always said: what is wrong with the fix, else what they
/// are doing (a person asks `status` to learn whether search by meaning works).
fn describe_embeddings(state: &EmbeddingsState) -> String {
    if let Some(words) = state.words() {
        return words;
    }
    match state {
        EmbeddingsState::Off => "off: the built-in embedder is turned off \
             (ai.builtin_embedder) and no server embedding model is set, so search is by \
             words and no note has related notes"
            .into(),
        EmbeddingsState::UpToDate => "every note has its vector".into(),
        _ => "making the notes' vectors in the background".into(),
    }
}

/// One line for the provider's health (`/api/status` `provider`, or a recheck).
pub fn describe_health(health: Option<&ProviderHealth>) -> String {
    match health {
        Some(ProviderHealth::Ready) => "ready".into(),
        Some(ProviderHealth::ModelMissing {
            model,
            server: ModelServer::Ollama,
        }) => format!("running, but the model is not installed: run `ollama pull {model}`"),
        Some(ProviderHealth::ModelMissing {
            model,
            server: ModelServer::OpenAiCompatible,
        }) => format!(
            "running, but it does not serve the model {model}: load it in the model server, \
             or set openai.model to one it serves"
        ),
        Some(ProviderHealth::ModelMissing {
            model,
            server: ModelServer::SpeechToText,
        }) => format!(
            "running, but it does not serve the model {model}: load it in the speech-to-text \
             server, or set transcription.model to one it serves"
        ),
        Some(ProviderHealth::NotRunning { detail }) => format!("not running ({detail})"),
        Some(ProviderHealth::Loading { detail }) => format!("loading the model ({detail})"),
        Some(ProviderHealth::KeyRefused { detail }) => {
            format!("running, but refusing inkling's API key ({detail})")
        }
        Some(held @ ProviderHealth::UntrustedListener { .. }) => {
            held.untrusted_listener_words().unwrap_or_default()
        }
        None => "not checked yet".into(),
    }
}

/// One line for the worker's state.
fn describe_worker(worker: &WorkerStatus) -> String {
    let queued = worker.queued;
    match &worker.state {
        WorkerState::Running { note_id } => format!("running note {note_id} ({queued} queued)"),
        WorkerState::Parked { until, step } => {
            format!("waiting for Ollama until {until} (backoff step {step}, {queued} queued)")
        }
        WorkerState::StorageUnavailable { until } => {
            format!("cannot save answers (disk full?); next try at {until} ({queued} queued)")
        }
        WorkerState::Waiting { until } => format!("next job due at {until} ({queued} queued)"),
        WorkerState::WaitingForModel => {
            format!("waiting for the model to be installed ({queued} queued)")
        }
        WorkerState::LoadingModel => format!("loading the model ({queued} queued)"),
        WorkerState::Embedding { notes } => {
            format!("making the vectors of {notes} notes for related notes ({queued} queued)")
        }
        WorkerState::Withheld => {
            format!("sending no notes: another user listens on the model server's port ({queued} queued)")
        }
        WorkerState::Starting => "starting".into(),
        WorkerState::Idle => "idle".into(),
    }
}

/// What a slow note is doing, and what the user can do about it.
pub fn describe_slow(slow: &SlowNote) -> String {
    format!(
        "took longer than {} {} times while Ollama was up; it will be tried with up to {}. \
         Shorten the note, or raise ollama.request_timeout_ms",
        plain_duration(slow.request_timeout_ms),
        slow.timeouts,
        plain_duration(slow.next_deadline_ms),
    )
}

/// `120000` → "2 min", `90000` → "90 s", `5400000` → "90 min".
fn plain_duration(ms: u64) -> String {
    if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms >= 1000 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// The per-actor counters as a small table (docs/DESIGN.md, "Logs and actor counters"): messages received, handled and
/// waiting, time in handlers and the slowest handler.
fn describe_actors(actors: &BTreeMap<String, ActorCounters>) -> Vec<String> {
    if actors.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "{:<16} {:>9} {:>9} {:>8} {:>10} {:>11}",
        "actors:", "received", "handled", "waiting", "busy ms", "slowest ms"
    )];
    for (name, counters) in actors {
        lines.push(format!(
            "  {:<14} {:>9} {:>9} {:>8} {:>10.1} {:>11.1}",
            name,
            counters.received,
            counters.handled,
            counters.waiting,
            counters.busy_us as f64 / 1000.0,
            counters.slowest_us as f64 / 1000.0,
        ));
    }
    lines
}

/// "downloading 6a0746a1ec1a: 45 % (910 MB of 2.0 GB)".
pub fn describe_pull_step(status: &str, completed: Option<u64>, total: Option<u64>) -> String {
    match (completed, total) {
        (Some(done), Some(total)) if total > 0 => format!(
            "{status}: {} % ({} of {})",
            done.saturating_mul(100) / total,
            plain_size(done),
            plain_size(total)
        ),
        _ => status.to_string(),
    }
}

/// Bytes in a person's units: "910 MB", "2.0 GB".
fn plain_size(bytes: u64) -> String {
    const MB: f64 = 1_000_000.0;
    let mb = bytes as f64 / MB;
    if mb >= 1000.0 {
        format!("{:.1} GB", mb / 1000.0)
    } else {
        format!("{mb:.0} MB")
    }
}

/// `id  status  created  title-or-first-line`, one note a line, its id as `id` says it
/// (its short form in lists: `super::ids`).
pub fn list_line(note: &Note, id: &str) -> String {
    let headline = note
        .title
        .clone()
        .unwrap_or_else(|| note.body.lines().next().unwrap_or("").to_string());
    let headline = printable(&headline, false);
    let headline: String = if headline.chars().count() > 60 {
        headline.chars().take(59).chain(['…']).collect()
    } else {
        headline
    };
    format!(
        "{}  {:<7}  {}  {}",
        id,
        note.ai_status.as_str(),
        &note.created_at[..16.min(note.created_at.len())],
        headline
    )
}

/// A related note: how similar (in percent), then its list line.
pub fn related_line(found: &RelatedNote, id: &str) -> String {
    format!(
        "{:>3} %  {}",
        (found.similarity * 100.0).round() as i64,
        list_line(&found.note.note, id)
    )
}

/// One note an answer is made from, with the number the answer cites it by.
pub fn cited_line(number: usize, note: &Note) -> String {
    format!("[{number}] {}", list_line(note, &note.id))
}

/// What is said of a citation taken out of an answer.
pub fn removed_line(citation: &str) -> String {
    format!(
        "(the answer cited {}, which is none of the notes shown; it was taken out)",
        printable(citation, false)
    )
}

/// An answer saved as a note: the question, the answer, and the notes it was made
/// from as a numbered list of links by title, `[n]` of the answer the n-th (the page's
/// "Save as note" writes the same, `web/js/ask.js`). A link is the note's address on
/// the page (`/?note=ID`), which the page opens as the note.
pub fn answer_note(question: &str, answer: &str, notes: &[Note]) -> String {
    let sources: Vec<String> = notes
        .iter()
        .enumerate()
        .map(|(index, note)| {
            let heading = note.title.clone().unwrap_or_else(|| {
                note.body
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string()
            });
            format!(
                "{}. [{}](/?note={})",
                index + 1,
                link_text(heading.trim()),
                note.id
            )
        })
        .collect();
    format!(
        "Q: {}\n\n{}\n\n{}",
        question.trim(),
        answer.trim(),
        sources.join("\n")
    )
    .trim_end()
    .to_string()
}

/// A title as a Markdown link's text: its backslashes and brackets escaped, so a
/// bracket in a title cannot end the link early.
fn link_text(title: &str) -> String {
    let mut text = String::with_capacity(title.len());
    for c in title.chars() {
        if matches!(c, '\\' | '[' | ']') {
            text.push('\\');
        }
        text.push(c);
    }
    text
}

/// What `inkling search` says on standard error when its limit left notes out.
pub fn more_line(shown: u32, limit_given: bool) -> String {
    let how = if limit_given {
        "a larger --limit shows more"
    } else {
        "--limit N shows more"
    };
    format!(
        "the best {shown} shown; more notes match ({how}, up to {})",
        crate::domain::ListFilter::MAX_LIMIT
    )
}

/// What `inkling related` says of a note that has no vector yet.
pub fn not_embedded_line(why: Option<&str>) -> String {
    match why {
        Some(why) => format!("no related notes yet: this note is not indexed. {why}"),
        None => "no related notes yet: this note is not indexed yet (it will be in the \
                 background, after the AI's titles)"
            .into(),
    }
}

/// A hybrid search hit's snippet line: a hit found by its meaning alone (no word of the
/// search marked in it) says so first.
pub fn hit_snippet_line(found_by: FoundBy, parts: &[SnippetPart]) -> String {
    match found_by {
        FoundBy::Meaning => format!("(by meaning) {}", snippet_line(parts)),
        FoundBy::Words | FoundBy::Both => snippet_line(parts),
    }
}

/// A search hit's snippet on one line, the matched words in `[brackets]`, control
/// characters escaped.
pub fn snippet_line(parts: &[SnippetPart]) -> String {
    parts
        .iter()
        .map(|part| match part.matched {
            true => format!("[{}]", printable(&part.text, false)),
            false => printable(&part.text, false),
        })
        .collect()
}

/// `inkling show`: the note's fields, a line each, then a blank line and its body.
pub fn note_lines(note: &Note) -> Vec<String> {
    let line = |text: &str| printable(text, false);
    let mut lines = vec![
        format!("id:       {}", line(&note.id)),
        format!("status:   {}", note.ai_status.as_str()),
    ];
    if let Some(error) = &note.ai_error {
        lines.push(format!("error:    {}", line(error)));
    }
    lines.push(format!("created:  {}", note.created_at));
    if let Some(at) = &note.deleted_at {
        lines.push(format!("trashed:  {at}"));
    }
    if let Some(title) = &note.title {
        lines.push(format!("title:    {}", line(title)));
    }
    if !note.tags.is_empty() {
        lines.push(format!("tags:     {}", line(&note.tags.join(", "))));
    }
    if let Some(summary) = &note.summary {
        lines.push(format!("summary:  {}", line(summary)));
    }
    if let Some(chars) = note.ai_read_chars {
        lines.push(format!(
            "read:     the AI was given its first {chars} characters (the note is longer than the model reads at once)"
        ));
    }
    lines.push(String::new());
    lines.push(printable(&note.body, true));
    lines
}

/// `inkling tags`: a tag a line, its count right-aligned first.
pub fn tag_line(tag: &TagCount) -> String {
    format!("{:>6}  {}", tag.count, printable(&tag.tag, false))
}

/// `inkling tags rename OLD NEW`: what became of OLD.
pub fn renamed_line(old: &str, renamed: &TagRenamed) -> String {
    let notes = match renamed.notes {
        1 => "1 note".to_string(),
        n => format!("{n} notes"),
    };
    let (old, new) = (printable(old, false), printable(&renamed.tag, false));
    if renamed.merged {
        format!("merged {old} into {new} ({notes})")
    } else {
        format!("renamed {old} to {new} ({notes})")
    }
}

/// `inkling logout --all`: how many pages were signed out, and how to come back.
pub fn signed_out_line(count: u64) -> String {
    let pages = if count == 1 { "page" } else { "pages" };
    format!("signed out {count} inbox {pages}; `inkling open` opens the inbox again")
}

/// `inkling pair`: the code, and what to do with it.
pub fn pairing_code_lines(code: &crate::api::devices::PairingCode) -> Vec<String> {
    vec![
        format!("pairing code: {}", code.code),
        format!(
            "enter it in the inkling extension's options within {} minutes; it works once, \
             and gives the extension a token that can only save notes",
            code.expires_in_s / 60
        ),
    ]
}

/// `inkling sessions`: one line a paired device (its id first, for `revoke`).
pub fn device_lines(devices: &[crate::api::devices::DeviceView]) -> Vec<String> {
    if devices.is_empty() {
        return vec!["no paired devices; `inkling pair` pairs one (the web clipper)".into()];
    }
    devices
        .iter()
        .map(|d| {
            format!(
                "{}  {}  capture only, paired {}, last used {}",
                d.id,
                printable(&d.name, false),
                d.paired_at.format("%Y-%m-%d %H:%M"),
                d.last_used.format("%Y-%m-%d"),
            )
        })
        .collect()
}

/// `inkling export-notes`: how many notes went where.
pub fn exported_line(notes: u64, path: &std::path::Path) -> String {
    let noun = if notes == 1 { "note" } else { "notes" };
    format!("exported {notes} {noun} to {}", path.display())
}

/// `inkling import`: how many notes came in, and why some did not.
pub fn imported_line(imported: u64, skipped: u64) -> String {
    let notes = if imported == 1 { "note" } else { "notes" };
    let mut line = format!("imported {imported} {notes}");
    if skipped > 0 {
        line.push_str(&format!(
            "; {skipped} skipped (a note with the same id is here already)"
        ));
    }
    line
}

/// `text` safe to print on a terminal: control characters (ESC, BEL, carriage return,
/// …), which a note body or a model's title may hold and which a terminal would act
/// on, are shown escaped (`\u{1b}`), and so are the bidirectional controls, which
/// would make a line read otherwise than it is (a title that shows `gpj.exe` as
/// `exe.jpg`). Line breaks and tabs stay when `multiline`.
pub fn printable(text: &str, multiline: bool) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' if multiline => c.to_string(),
            c if c.is_control() || is_bidi_control(c) => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Unicode's bidirectional formatting characters (embeddings, overrides, isolates and
/// the marks).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests;
