//! Retrieval's use case, plain async code over the repository's and the worker's
//! addresses ([`Retriever`]): one way to find notes by meaning ([`Retriever::by_meaning`]:
//! the text's vector from the worker, `EmbedQuery`, then the notes nearest to it that
//! pass the filter, `SearchByMeaning`), which the hybrid search
//! ([`Retriever::hybrid`]) and a question's notes ([`Retriever::for_question`]) share,
//! each merging it with their search by words through `search::fusion`; and a note's
//! related notes ([`Retriever::related`]), the same look-up from the note's own vector.

mod hybrid;
mod meaning;
mod question;
mod retriever;

pub use hybrid::HybridHits;
pub use retriever::Retriever;
