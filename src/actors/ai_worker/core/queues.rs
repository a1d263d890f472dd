//! The work waiting for the model ([`Queues`]): the notes' jobs as the database has
//! them, the bodies of the next few read ahead, what each job's earlier calls taught
//! (its refused answer, its prompts that did not fit), and each note's fair share of
//! the model's time ([`super::fair`]). The notes' vectors and
//! the person's questions wait in their own parts ([`super::embedding`],
//! [`super::ask`]).

use std::collections::HashMap;

use super::super::queue::Queue;
use super::fair::FairShares;
use crate::ai::RefusedAnswer;

/// The notes' work: one entry per pending note, and what is kept beside it.
#[derive(Debug, Default)]
pub(super) struct Queues {
    pub(super) jobs: Queue,
    /// Bodies of the next few jobs, read in one query ([`super::schedule::PREFETCH`]).
    pub(super) bodies: HashMap<String, String>,
    /// Each job's last refused answer, shown to the model on its next call. In memory
    /// only: after a restart the retry still samples anew (its seed is its attempt).
    pub(super) refused: HashMap<String, RefusedAnswer>,
    /// A note's prompts that did not fit and gave no numbers: each halves its room.
    pub(super) overflows: HashMap<String, u32>,
    /// The model's time shared out evenly among the notes waiting: each note's fair
    /// share, the bound on its wait ([`super::fair`]).
    pub(super) fair: FairShares,
    /// The queue has been loaded from the database.
    pub(super) loaded: bool,
}

impl Queues {
    /// What was read or learned of a note's earlier call, dropped: its body read ahead
    /// may be stale (an edit), and a new job starts afresh.
    pub(super) fn forget_reads(&mut self, note_id: &str) {
        self.bodies.remove(note_id);
        self.refused.remove(note_id);
        self.overflows.remove(note_id);
    }

    /// A job leaves the queue, with all that was kept beside it.
    pub(super) fn drop_job(&mut self, note_id: &str) {
        self.forget_reads(note_id);
        self.jobs.remove(note_id);
    }
}
