use super::*;

#[test]
fn every_kind_reads_back_from_its_word() {
    for kind in ChangeKind::ALL {
        assert_eq!(ChangeKind::parse(kind.as_str()), Some(kind));
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{}\"", kind.as_str()));
    }
    assert_eq!(ChangeKind::parse("renamed"), None);
}

#[test]
fn a_page_is_refused_below_zero_and_outside_its_limits() {
    let query = |since: Option<&str>, limit: Option<&str>| ChangesQuery {
        since: since.map(String::from),
        limit: limit.map(String::from),
    };
    assert_eq!(query(None, None).page(), Ok((0, CHANGES_PAGE)));
    assert_eq!(query(Some("7"), Some("1")).page(), Ok((7, 1)));
    for (since, limit) in [
        (Some("-1"), None),
        (Some("soon"), None),
        (None, Some("0")),
        (None, Some("5001")),
        (None, Some("-3")),
    ] {
        let refused = query(since, limit).page().unwrap_err();
        let named = if since.is_some() { "since" } else { "limit" };
        assert!(refused.starts_with(named), "{refused}");
    }
}
