use super::*;
use crate::ai::embedding::TextKind;
use std::time::Duration;

/// One short note to embed.
fn one_note() -> EmbedPlan {
    EmbedPlan {
        deadline: Duration::from_secs(1),
        texts: vec!["a note".into()],
        kind: TextKind::Passage,
    }
}

#[test]
fn with_no_model_in_its_folder_it_says_the_model_is_missing_and_how_to_get_it() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let embedder = BuiltinEmbedder::new(folder.path().to_path_buf());
    match embedder.embed_now(&one_note()) {
        Err(ProviderError::ModelMissing(words)) => {
            assert!(words.contains("inkling pull-model --embedder"), "{words}")
        }
        other => panic!("not a missing model: {other:?}"),
    }
}

#[test]
fn a_file_that_is_not_the_pinned_model_is_refused_with_its_fix() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        folder.path().join(super::super::wheel::MODEL_FILE),
        b"E5S1 not it",
    )
    .expect("written");
    let embedder = BuiltinEmbedder::new(folder.path().to_path_buf());
    match embedder.embed_now(&one_note()) {
        Err(ProviderError::Unexpected(words)) => {
            assert!(words.contains("not the expected file"), "{words}");
            assert!(words.contains("pull-model --embedder"), "{words}");
        }
        other => panic!("not refused: {other:?}"),
    }
}
