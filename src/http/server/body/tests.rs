use actix_web::middleware::from_fn;
use actix_web::test::{call_service, init_service, read_body, TestRequest};
use actix_web::{web, App, HttpResponse};

use super::*;

async fn echo(body: Bytes) -> HttpResponse {
    HttpResponse::Ok().body(body)
}

/// A request whose body is `payload`, fed by the test.
fn request_with(
    header: (actix_web::http::header::HeaderName, &str),
    payload: actix_http::h1::Payload,
) -> actix_http::Request {
    let request = TestRequest::post()
        .uri("/")
        .insert_header(header)
        .to_request();
    let boxed: actix_web::dev::Payload = payload.into();
    request.replace_payload(boxed).0
}

macro_rules! app {
    () => {
        init_service(
            App::new()
                .app_data(web::Data::new(BodyLimit(16)))
                .wrap(from_fn(read_within_deadline))
                .route("/", web::post().to(echo)),
        )
        .await
    };
}

#[actix_rt::test]
async fn a_body_that_stops_arriving_is_answered_408_at_the_deadline() {
    tokio::time::pause();
    let app = app!();
    let (mut sender, payload) = actix_http::h1::Payload::create(false);
    sender.feed_data(Bytes::from_static(b"half"));
    let request = request_with((CONTENT_LENGTH, "10"), payload);
    let started = tokio::time::Instant::now();
    let response = call_service(&app, request).await;
    assert_eq!(response.status().as_u16(), 408);
    // Virtual time: the timer wheel's millisecond is all that is added.
    let waited = started.elapsed();
    assert!(waited >= BODY_DEADLINE && waited <= BODY_DEADLINE + Duration::from_millis(1));
    let body: serde_json::Value = serde_json::from_slice(&read_body(response).await).unwrap();
    assert!(body["error"]
        .as_str()
        .unwrap()
        .contains("did not arrive within 5 s"));
    drop(sender);
}

#[actix_rt::test]
async fn a_whole_body_reaches_the_route_and_an_oversized_one_is_413_unread() {
    let app = app!();
    let request = TestRequest::post()
        .uri("/")
        .set_payload("a note")
        .to_request();
    let response = call_service(&app, request).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(read_body(response).await, "a note");

    // Declared too large: refused before a byte of it is read.
    let (_sender, payload) = actix_http::h1::Payload::create(false);
    let request = request_with((CONTENT_LENGTH, "17"), payload);
    assert_eq!(call_service(&app, request).await.status().as_u16(), 413);

    // Chunked (no length said) and too large once read.
    let (mut sender, payload) = actix_http::h1::Payload::create(false);
    sender.feed_data(Bytes::from_static(b"seventeen bytes!!"));
    let request = request_with((TRANSFER_ENCODING, "chunked"), payload);
    assert_eq!(call_service(&app, request).await.status().as_u16(), 413);
}
