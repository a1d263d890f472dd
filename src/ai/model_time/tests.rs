use std::collections::BTreeMap;

use super::*;

#[test]
fn time_is_added_up_as_kept_loading_or_wasted_per_reason() {
    let mut time = ModelTime::default();
    time.add(ModelUse::Kept, 6_000);
    time.add(ModelUse::Loading, 2_000);
    time.add(ModelUse::Timeout, 1_500);
    time.add(ModelUse::Timeout, 500);
    assert_eq!(time.total_ms(), 10_000);
    assert_eq!(time.wasted_ms, BTreeMap::from([(ModelUse::Timeout, 2_000)]));
    assert_eq!(time.wasted_percent(), 20);
    assert_eq!(ModelTime::default().wasted_percent(), 0);
    let refused_connection = ModelTime {
        wasted_ms: BTreeMap::from([(ModelUse::Unreachable, 3)]),
        ..ModelTime::default()
    };
    assert_eq!(refused_connection.describe(Locale::En), "none yet");
    assert!(!refused_connection.is_worth_saying());
    assert!(ModelUse::of_failure(FailureReason::Schema).is_waste());
    assert!(!ModelUse::Loading.is_waste());
    assert!(!ModelUse::Asked.is_waste());
    time.add(ModelUse::Asked, 10_000);
    assert_eq!(time.asked_ms, 10_000);
    assert_eq!(time.wasted_percent(), 10);
    assert!(
        time.describe(Locale::En)
            .ends_with(", answering questions 50 %"),
        "{}",
        time.describe(Locale::En)
    );
    time.add(ModelUse::Vectors, 10_000);
    time.hung_up = 2;
    time.after_hang_up_ms = 40;
    time.after_hang_up_measured = 1;
    assert!(!ModelUse::Vectors.is_waste());
    assert!(
        time.describe(Locale::En).ends_with(
            ", answering questions 33 %, making vectors 33 %; hung up 2 calls at their \
                 deadline, after which the server went on 40 ms (1 measured)"
        ),
        "{}",
        time.describe(Locale::En)
    );
    time.asked_ms = 0;
    let json = serde_json::to_value(&time).unwrap();
    assert_eq!(json["wasted_ms"]["timeout"], 2_000);
}
