//! fresh: the slow CPU's morning of `tests/pipeline/fresh_first.rs` (issue #38 point 1):
//! a backlog from before the model was pulled, two pasted articles, a note every 27 s;
//! each kind of note's wait, p50/p95/max, and the longest wait over its fair share.
//! On virtual time against the simulated model, so the figures do not depend on this
//! machine's speed or load: the same day and the same table as the test, which also
//! holds the goals. docs/PERFORMANCE.md, "Fresh notes first".

use crate::day::run_day;
use crate::fresh_first::{morning, waits};
use crate::harness::PausedSystem;

/// Runs the morning on a paused runtime of its own (the test's) and prints its tables.
pub fn fresh() {
    println!("fresh notes first: a slow CPU's morning, virtual time");
    PausedSystem::new().block_on(async {
        let day = run_day(morning()).await;
        waits(&day);
    });
}
