use super::*;

#[test]
fn a_frame_names_the_event_and_carries_its_data_alone() {
    let frame = LiveEvent::FailedCount { count: 3 }.frame();
    assert_eq!(frame, "event: failed_count\ndata: {\"count\":3}\n\n");
    let frame = LiveEvent::Counts(NoteCounts {
        pending: 2,
        failed: 3,
        expired: 0,
    })
    .frame();
    assert_eq!(
        frame,
        "event: counts\ndata: {\"expired\":0,\"failed\":3,\"pending\":2}\n\n"
    );
    let frame = LiveEvent::ProviderStatus(ProviderHealth::Ready).frame();
    assert_eq!(
        frame,
        "event: ollama_status\ndata: {\"state\":\"ready\"}\n\n"
    );
}

#[test]
fn a_frame_reads_back_as_the_event_it_was() {
    let event = LiveEvent::NotesChanged { count: 1200 };
    let frame = event.frame();
    let (head, data) = frame.trim_end().split_once('\n').expect("two lines");
    let read = LiveEvent::from_frame(
        head.trim_start_matches("event: "),
        data.trim_start_matches("data: "),
    )
    .expect("readable");
    assert_eq!(read, event);
}
