//! The hybrid search (docs/DESIGN.md, "Hybrid search"), end to end on virtual time
//! with the fake's bag-of-words vectors, whose few synonyms ("automobile" read as
//! "car") stand for meaning: a note found by what it means though it has no word of
//! the search, merged with the words' hits; the filters held; the query embedded once
//! (asked again, as the page does for more hits, it is not); and, without the model
//! (down, missing, still embedding, too slow), the words' hits and why, in one line.

use std::time::Duration;

use inkling::actors::provider_monitor::Recheck;
use inkling::api::search::{FoundBy, KeywordOnly};
use inkling::domain::{AiStatus, ListFilter};
use inkling::inbox::search::HybridHits;
use inkling::storage::SearchQuery;

use crate::fake_ollama::EmbedReply;
use crate::harness::{PausedSystem, Pipeline};

async fn search(p: &Pipeline, words: &str, filter: ListFilter) -> HybridHits {
    let query = SearchQuery::parse(words).unwrap();
    p.run(p.services.inbox.search(query, filter))
        .await
        .expect("searched")
}

/// The hits' ids with what found them.
fn found(hits: &HybridHits) -> Vec<(String, FoundBy)> {
    hits.hits
        .iter()
        .map(|(hit, by)| (hit.note.id.clone(), *by))
        .collect()
}

/// Notes about cars (one says "automobile", one only "car") and one about soup.
async fn notes(p: &Pipeline) -> (String, String, String) {
    p.fake.set_tags(&["cars"]);
    let car = p.capture("Take the car to the garage Friday").await;
    p.settle().await; // its AI's answer carries the tag
    p.fake.set_tags(&[]);
    let insurance = p.capture("Automobile insurance renewal").await;
    let soup = p.capture("Tomato soup recipe").await;
    p.settle().await;
    (car, insurance, soup)
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_note_is_found_by_its_meaning_beside_the_notes_with_the_words() {
    let p = Pipeline::start(&[]).await;
    let (car, insurance, _soup) = notes(&p).await;
    let asked = p.fake.embed_calls().len();

    let hits = search(&p, "automobile", ListFilter::default()).await;
    assert_eq!(hits.keyword_only, None);
    assert_eq!(
        found(&hits),
        [
            (insurance.clone(), FoundBy::Both),
            (car.clone(), FoundBy::Meaning)
        ],
        "the soup is below the floor"
    );
    // The words' hit keeps its marked snippet; the meaning's shows its body's start.
    assert!(hits.hits[0].0.snippet.iter().any(|part| part.matched));
    let by_meaning = &hits.hits[1].0.snippet;
    assert_eq!(by_meaning.len(), 1);
    assert_eq!(by_meaning[0].text, "Take the car to the garage Friday");
    assert!(!by_meaning[0].matched);
    assert_eq!(
        p.fake.embed_calls().len(),
        asked + 1,
        "one call for the query"
    );
    assert_eq!(
        p.fake.embed_calls()[asked]["input"],
        serde_json::json!(["automobile"])
    );

    // Asked again for more hits (the page's paging), or typed again in other case and
    // spacing: the query's vector is kept, no second call.
    let more = ListFilter {
        limit: Some(200),
        ..ListFilter::default()
    };
    let again = search(&p, " Automobile ", more).await;
    assert_eq!(found(&again), found(&hits));
    assert_eq!(p.fake.embed_calls().len(), asked + 1);
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_filters_hold_for_the_notes_found_by_meaning() {
    let p = Pipeline::start(&[]).await;
    let (car, insurance, _soup) = notes(&p).await;

    let tagged = ListFilter {
        tag: Some("cars".into()),
        ..ListFilter::default()
    };
    let hits = search(&p, "automobile", tagged).await;
    assert_eq!(found(&hits), [(car.clone(), FoundBy::Meaning)]);

    let failed = ListFilter {
        status: Some(AiStatus::Failed),
        ..ListFilter::default()
    };
    assert!(search(&p, "automobile", failed).await.hits.is_empty());

    p.run(p.services.inbox.trash(car.clone())).await.unwrap();
    let hits = search(&p, "automobile", ListFilter::default()).await;
    assert_eq!(found(&hits), [(insurance.clone(), FoundBy::Both)]);

    // The trash is searched by its words only, and says so; no call for it.
    let asked = p.fake.embed_calls().len();
    let trash = ListFilter {
        trash: true,
        ..ListFilter::default()
    };
    let hits = search(&p, "garage", trash.clone()).await;
    assert_eq!(found(&hits), [(car.clone(), FoundBy::Words)]);
    assert_eq!(hits.keyword_only, Some(KeywordOnly::Trash));
    assert!(search(&p, "automobile", trash).await.hits.is_empty());
    assert_eq!(p.fake.embed_calls().len(), asked);
}

#[actix_rt::test(system = "PausedSystem")]
async fn without_the_model_a_search_finds_by_words_and_says_why_without_a_call() {
    let mut p = Pipeline::start(&[]).await;
    let (_car, insurance, _soup) = notes(&p).await;
    let by_words = [(insurance.clone(), FoundBy::Words)];

    // The embedding model missing (found by the notes' own work): no call for the query.
    p.fake.set_embed(EmbedReply::ModelMissing);
    p.capture("Automobile service booked").await;
    p.settle().await;
    let asked = p.fake.embed_calls().len();
    let hits = search(&p, "insurance", ListFilter::default()).await;
    assert_eq!(found(&hits), by_words);
    assert_eq!(
        hits.keyword_only,
        Some(KeywordOnly::ModelMissing {
            model: "embeddinggemma".into()
        })
    );
    assert_eq!(
        p.fake.embed_calls().len(),
        asked,
        "the worker knew: no call"
    );

    // A server without embeddings.
    p.fake.set_embed(EmbedReply::NotServed);
    p.ask(&p.services.monitor, Recheck).await;
    p.settle().await;
    let hits = search(&p, "insurance", ListFilter::default()).await;
    assert_eq!(hits.keyword_only, Some(KeywordOnly::NotServed));
    assert_eq!(found(&hits), by_words);

    // The server down.
    p.fake.set_embed(EmbedReply::Ok);
    p.fake.stop();
    p.ask(&p.services.monitor, Recheck).await;
    p.settle().await;
    let asked = p.fake.embed_calls().len();
    let hits = search(&p, "insurance", ListFilter::default()).await;
    assert_eq!(hits.keyword_only, Some(KeywordOnly::ProviderDown));
    assert_eq!(found(&hits), by_words);
    assert_eq!(p.fake.embed_calls().len(), asked);

    // Back: the notes' vectors are made again first; until then, still indexing. Once
    // caught up, the meaning is used again.
    p.fake.start().await;
    p.ask(&p.services.monitor, Recheck).await;
    p.settle().await;
    let hits = search(&p, "insurance", ListFilter::default()).await;
    assert_eq!(hits.keyword_only, None, "caught up");
    assert_eq!(found(&hits), [(insurance.clone(), FoundBy::Both)]);
}

#[actix_rt::test(system = "PausedSystem")]
async fn notes_still_without_vectors_make_a_search_by_words_until_they_have_them() {
    let p = Pipeline::start(&[]).await;
    let (_car, insurance, _soup) = notes(&p).await;
    // The next note's vector takes longer than its call's deadline: the embedding work
    // waits to try again, the note without its vector meanwhile.
    p.fake.set_embed(EmbedReply::HoldFor(100_000));
    p.capture("Automobile service booked").await;
    p.settle().await;
    p.advance(Duration::from_secs(600)).await;
    let hits = search(&p, "insurance", ListFilter::default()).await;
    assert_eq!(hits.keyword_only, Some(KeywordOnly::Indexing));
    assert_eq!(found(&hits), [(insurance.clone(), FoundBy::Words)]);
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_query_the_server_does_not_embed_in_time_is_found_by_words_after_the_deadline() {
    let p = Pipeline::start(&[]).await;
    let (_car, insurance, _soup) = notes(&p).await;
    p.fake.set_embed(EmbedReply::HoldFor(60));
    let asked = p.fake.embed_calls().len();
    let inbox = p.services.inbox.clone();
    let query = SearchQuery::parse("insurance").unwrap();
    let searching =
        actix_rt::spawn(async move { inbox.search(query, ListFilter::default()).await });
    p.settle_until("the query's call reached the server", |p| {
        p.fake.embed_calls().len() > asked
    })
    .await;
    // Not answered before the query's deadline (a round trip through the worker shows
    // the call is out and the search still waiting)…
    p.advance(inkling::actors::ai_worker::core::QUERY_DEADLINE - Duration::from_millis(100))
        .await;
    assert!(!searching.is_finished());
    // …and answered by the words at it.
    p.advance(Duration::from_millis(200)).await;
    let hits = p.run(searching).await.unwrap().expect("searched");
    assert_eq!(hits.keyword_only, Some(KeywordOnly::TimedOut));
    assert_eq!(found(&hits), [(insurance, FoundBy::Words)]);
}
