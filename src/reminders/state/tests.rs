use super::*;

#[test]
fn changes_read_from_the_two_fields() {
    let now = DateTime::parse_from_rfc3339("2026-12-02T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let at = "2026-12-24T18:00:00+09:00";
    let instant = DateTime::parse_from_rfc3339(at)
        .unwrap()
        .with_timezone(&Utc);
    let parse = |t, s| ReminderChange::parse(t, s, now);
    assert_eq!(parse(None, None), Ok(None));
    assert_eq!(parse(Some(None), None), Ok(Some(ReminderChange::Clear)));
    assert_eq!(
        parse(Some(Some(at)), None),
        Ok(Some(ReminderChange::Set(instant)))
    );
    assert_eq!(
        parse(Some(Some(at)), Some("open")),
        Ok(Some(ReminderChange::Set(instant)))
    );
    assert_eq!(
        parse(Some(Some(at)), Some("snoozed")),
        Ok(Some(ReminderChange::Snooze(instant)))
    );
    assert_eq!(parse(None, Some("done")), Ok(Some(ReminderChange::Done)));
    assert_eq!(parse(None, Some("open")), Ok(Some(ReminderChange::Reopen)));
    assert_eq!(
        parse(None, Some("snoozed")),
        Ok(Some(ReminderChange::Snooze(now + SNOOZE)))
    );
    assert_eq!(
        parse(Some(Some("tomorrow")), None),
        Err(ReminderError::NotATime("tomorrow".into()))
    );
    assert_eq!(
        parse(None, Some("later")),
        Err(ReminderError::UnknownState("later".into()))
    );
    assert_eq!(
        parse(Some(None), Some("open")),
        Err(ReminderError::StateWithClear)
    );
    assert_eq!(
        parse(Some(Some(at)), Some("done")),
        Err(ReminderError::TimeWithDone)
    );
}

#[test]
fn the_words_read_back() {
    for state in [
        ReminderState::Open,
        ReminderState::Done,
        ReminderState::Snoozed,
    ] {
        assert_eq!(ReminderState::parse(state.as_str()), Some(state));
        let json = serde_json::to_string(&state).unwrap();
        assert_eq!(json, format!("\"{}\"", state.as_str()));
    }
    assert_eq!(ReminderState::parse("later"), None);
}
