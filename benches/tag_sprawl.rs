//! Tag sprawl before and after the neighbours' tags in the prompt (issue #26 point 4):
//! reads the passes `scripts/measure-tag-sprawl.py` wrote (every note's tags, as the
//! real model gave them) and prints the figures of docs/PERFORMANCE.md, "Tag sprawl":
//! distinct tags per 100 notes and the pairs of near-duplicate tags, as defined and
//! unit-tested in `tests/support/sprawl.rs`.
//!
//! Run: `cargo bench --profile dev --bench tag_sprawl -- BEFORE.json AFTER.json`
//! (the script does, after its passes). Only the notes the model answered in both
//! passes are compared (a pass stopped early on a loaded machine compares its first
//! notes with the other's same notes). Under `cargo test` (no files) it does nothing.

#[path = "../tests/support/sprawl.rs"]
mod sprawl;

use std::path::Path;

use sprawl::{sprawl, Sprawl};

/// One note of a pass: its tags, and whether the model answered.
#[derive(serde::Deserialize)]
struct PassNote {
    tags: Vec<String>,
    ai_status: String,
}

#[derive(serde::Deserialize)]
struct Pass {
    notes: Vec<PassNote>,
}

fn read(path: &Path) -> Result<Pass, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a pass: {e}", path.display()))
}

fn row(name: &str, figures: &Sprawl) {
    println!(
        "| {name} | {} | {} | {:.0} | {:.1} | {} |",
        figures.tagged,
        figures.distinct,
        figures.distinct_per_100_notes,
        figures.tags_per_tagged_note,
        figures.near_duplicates.len()
    );
}

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let [before, after] = &files[..] else {
        // `cargo test` runs benches with no arguments: nothing to measure.
        return;
    };
    let (before, after) = match (read(Path::new(before)), read(Path::new(after))) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    // The same notes on both sides: those both passes saw answered, by position (the
    // corpus's order).
    let answered = |note: &PassNote| note.ai_status == "done";
    let both: Vec<usize> = (0..before.notes.len().min(after.notes.len()))
        .filter(|&i| answered(&before.notes[i]) && answered(&after.notes[i]))
        .collect();
    let tags_of = |pass: &Pass| -> Vec<Vec<String>> {
        both.iter().map(|&i| pass.notes[i].tags.clone()).collect()
    };
    let (was, is) = (sprawl(&tags_of(&before)), sprawl(&tags_of(&after)));
    println!(
        "{} notes answered in both passes (of {} and {})\n",
        both.len(),
        before.notes.len(),
        after.notes.len()
    );
    println!("| pass | tagged notes | distinct tags | per 100 notes | tags a tagged note | near-duplicate pairs |");
    println!("|---|---|---|---|---|---|");
    row("before (vocabulary only)", &was);
    row("after (neighbours' tags too)", &is);
    for (name, figures) in [("before", &was), ("after", &is)] {
        println!("\nNear-duplicates, {name}:");
        for pair in &figures.near_duplicates {
            println!("- {} / {} ({:?})", pair.first, pair.second, pair.kinship);
        }
    }
}
