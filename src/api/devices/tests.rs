use super::*;

fn clip(url: &str, title: &str, selection: &str) -> Result<String, String> {
    ClipRequest {
        url: url.into(),
        title: title.into(),
        selection: selection.into(),
    }
    .to_markdown()
}

#[test]
fn a_clip_keeps_the_link_and_quotes_the_selection() {
    assert_eq!(
        clip(
            "https://example.com/a",
            "An example",
            "first line\n\nsecond line  \n"
        )
        .unwrap(),
        "[An example](https://example.com/a)\n\n> first line\n>\n> second line"
    );
    assert_eq!(
        clip("http://example.com/", "  ", "").unwrap(),
        "[http://example.com/](http://example.com/)",
        "no title: the address is the link's text"
    );
}

#[test]
fn a_title_or_address_cannot_break_out_of_the_link() {
    assert_eq!(
        clip(
            "https://en.wikipedia.org/wiki/Rust_(language)",
            "a ] b\n[c",
            ""
        )
        .unwrap(),
        "[a \\] b \\[c](https://en.wikipedia.org/wiki/Rust_%28language%29)"
    );
}

#[test]
fn only_web_addresses_of_bounded_size_are_clipped() {
    for bad in [
        "",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,hi",
        "chrome://settings",
        "https://",
        "https:///path",
        "https://exa mple.com",
        "https://example.com/\u{1b}",
    ] {
        assert!(clip(bad, "t", "").is_err(), "{bad:?} was taken");
    }
    let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
    assert!(clip(&long, "t", "").unwrap_err().contains("longer"));
    let title = "t".repeat(MAX_TITLE_CHARS + 1);
    assert!(clip("https://example.com", &title, "")
        .unwrap_err()
        .contains("title"));
    assert!(clip("HTTPS://EXAMPLE.COM", "t", "").is_ok());
}
