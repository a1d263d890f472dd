//! Retrieval: how notes are found for a person's words, whether typed into the search
//! or asked as a question, and how near in meaning a note must be to count. One owner,
//! in two layers (`tests/layers.rs` checks each):
//!
//! - the rules, plain functions with their unit tests: [`fusion`] (the one
//!   reciprocal-rank fusion, ranks counted from 1), [`floors`] (every similarity floor,
//!   with its reason), [`question`] (which words of a question are searched), [`hits`]
//!   (what a hit found by its meaning shows). The actors use the floors, so these sit
//!   with the service's parts, below them;
//! - [`retrieve`], the use case over the actors' addresses: a text's notes by meaning
//!   (its vector from the worker, then the repository's nearest notes under the
//!   filter), the hybrid search, a question's notes, a note's related notes. The
//!   inbox's search, ask and related call it; it sits between the actors and the inbox.

pub mod floors;
pub mod fusion;
pub mod hits;
pub mod question;
pub mod retrieve;
