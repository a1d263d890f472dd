//! The built-in embedder's cost (issue #37 point 3): what loading its model adds to the
//! process's resident memory (and its peak while loading), how long the load takes (the
//! file read, its sha256, the weights unpacked), and how long one note's vector takes on
//! one core, for notes of a few lengths (a short task, one in Korean, 100 words, a long
//! article of 800 tokens, which is two windows), each run 5 times. The model is the one
//! `scripts/real-model-tools.sh` fetches (`BUILTIN_EMBEDDER_DIR`).
//!
//! Run: `set -a; . ~/.cache/inkling-test-tools/env; set +a; cargo bench --bench
//! builtin_embedder`. Quoted in docs/PERFORMANCE.md, "The built-in embedder". Under
//! `cargo test` (no `--bench` argument) it does nothing.

use std::path::PathBuf;
use std::time::Instant;

use inkling::ai::builtin_embedder::BuiltinModel;
use inkling::ai::embedding::TextKind;

const RUNS: usize = 5;

/// VmRSS and VmHWM of this process, in MiB.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let Some(dir) = std::env::var_os("BUILTIN_EMBEDDER_DIR").map(PathBuf::from) else {
        eprintln!(
            "BUILTIN_EMBEDDER_DIR is not set: run scripts/real-model-tools.sh and load its env"
        );
        std::process::exit(1);
    };
    let (before, _) = memory();
    let started = Instant::now();
    let model = match BuiltinModel::load(&dir) {
        Ok(model) => model,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let load = started.elapsed();
    let (loaded, peak) = memory();
    println!(
        "load: {:.0} ms; resident {:.0} MiB before, {:.0} MiB after (+{:.0} MiB), peak {:.0} MiB",
        load.as_secs_f64() * 1000.0,
        before,
        loaded,
        loaded - before,
        peak
    );
    let article = "Restoring a wooden sailboat, one winter at a time. Three years ago I bought \
        a 1962 wooden sloop that had spent a decade under a tarpaulin behind a boatyard shed. \
        The planks were sound below the waterline, the deck leaked at every fitting, and the \
        mast had a soft spot where a halyard block had trapped rain for years. These are my \
        notes on what the restoration has taught me so far, written down so that I stop making \
        the same mistakes every spring. The old shipwright down the quay told me to replace \
        the cockpit coaming.";
    let long = article.repeat(6);
    for (name, text) in [
        (
            "a short task",
            "Call the plumber tomorrow morning about the leaking kitchen tap.",
        ),
        (
            "a task in Korean",
            "내일 오전에 치과 예약 확인하기. 스케일링 비용이 보험으로 되는지 물어보고, \
             오후에는 엄마한테 전화해서 주말 저녁 약속 정하기.",
        ),
        ("100 words", article),
        ("an article, two windows", long.as_str()),
    ] {
        let tokens = model.tokens(text, TextKind::Passage).len() + 2;
        let mut times: Vec<f64> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(model.embed(text, TextKind::Passage));
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{name}: {tokens} tokens, median {:.1} ms (min {:.1}, max {:.1}), {:.2} ms a token",
            times[RUNS / 2],
            times[0],
            times[RUNS - 1],
            times[RUNS / 2] / tokens as f64
        );
    }
    let (after, peak) = memory();
    println!("resident after the notes: {after:.0} MiB, peak {peak:.0} MiB");
}
