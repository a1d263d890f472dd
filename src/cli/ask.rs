//! `inkling ask QUESTION… [--save] [--include-answers]`: the notes that match, at once,
//! numbered as the answer cites them, then the model's answer as it streams, then a
//! line saying why when no (complete) answer came. With `--save`, a complete answer is
//! captured as an answer (the question, the answer and its notes as links by title:
//! `render::answer_note`), which a later question leaves out of its notes unless
//! `--include-answers`; otherwise nothing is stored. With `--json`, each event as the
//! service sent it.

use super::render::{answer_note, cited_line, printable, removed_line};
use super::Invocation;
use crate::api::ask::AskEvent;
use crate::client::ClientError;
use crate::domain::{Note, NoteKind};

/// `inkling ask`.
pub async fn ask(
    run: &mut Invocation<'_>,
    question: &[String],
    save: bool,
    include_answers: bool,
) -> Result<(), ClientError> {
    let question = question.join(" ");
    let json = run.json;
    let out = &mut run.out;
    let mut notes: Vec<Note> = Vec::new();
    let mut answer = String::new();
    let mut answered = false;
    run.client
        .ask(&question, include_answers, |event| {
            if json {
                return out.line(serde_json::to_string(&event).unwrap_or_default());
            }
            match event {
                AskEvent::Notes { notes: found } => {
                    notes = found.into_iter().map(|view| view.note).collect();
                    for (index, note) in notes.iter().enumerate() {
                        out.line(cited_line(index + 1, note))?;
                    }
                    if !notes.is_empty() {
                        out.line("")?;
                    }
                    Ok(())
                }
                AskEvent::Answer { text } => {
                    answer.push_str(&text);
                    out.text(printable(&text, true))
                }
                AskEvent::Removed { citation } => {
                    if !answer.is_empty() {
                        out.line("")?;
                    }
                    out.line(removed_line(&citation))
                }
                AskEvent::Done {
                    answered: whole,
                    why,
                    ..
                } => {
                    answered = whole;
                    if !answer.is_empty() && !answer.ends_with('\n') {
                        out.line("")?;
                    }
                    match why {
                        Some(why) => out.line(why),
                        None => Ok(()),
                    }
                }
            }
        })
        .await?;
    if !save {
        return Ok(());
    }
    if !answered {
        eprintln!("nothing saved: no complete answer came");
        return Ok(());
    }
    let note = run
        .client
        .capture_kind(&answer_note(&question, &answer, &notes), NoteKind::Answer)
        .await?;
    if json {
        run.out.json(&note)
    } else {
        run.out.line(format!("saved as note {}", note.id))
    }
}
