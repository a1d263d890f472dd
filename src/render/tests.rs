use super::*;

#[test]
fn markdown_comes_out_as_html_with_line_breaks_kept() {
    let html = body_html("**bold** and `code`\nnext line\n\n```\nfn main() {}\n```");
    assert!(html.contains("<strong>bold</strong>"), "{html}");
    assert!(html.contains("<code>code</code>"), "{html}");
    assert!(
        html.contains("<br>\nnext line") || html.contains("<br>next line"),
        "{html}"
    );
    assert!(html.contains("<pre><code>fn main() {}"), "{html}");
}

#[test]
fn a_bare_web_address_is_a_link_and_nothing_else_becomes_one() {
    let html = body_html(
        "Read https://example.org/a?b=1&c=2 later (see https://example.org/x).\n\
             ssh://host and example.org stay text; `https://in.code` too\n\n\
             ```\nhttps://in.block\n```\n\n[named](https://example.org/named) \
             <https://example.org/angle>",
    );
    assert!(
            html.contains(r#"<a href="https://example.org/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">https://example.org/a?b=1&amp;c=2</a> later"#),
            "{html}"
        );
    assert!(html.contains(r#"href="https://example.org/x""#), "{html}");
    assert!(
        html.contains("</a>).<br>"),
        "the closing punctuation stays text: {html}"
    );
    assert!(!html.contains("href=\"ssh"), "{html}");
    assert!(!html.contains("href=\"https://in.code"), "{html}");
    assert!(!html.contains("href=\"https://in.block"), "{html}");
    assert_eq!(
        html.matches("href=\"https://example.org/named\"").count(),
        1,
        "{html}"
    );
    assert_eq!(
        html.matches("href=\"https://example.org/angle\"").count(),
        1,
        "{html}"
    );
}

#[test]
fn a_tick_is_told_from_an_edit_of_the_words() {
    let body = "Shopping\n- [ ] milk\n- [x] eggs\n\nnot a task: [ ] here";
    let ticked = set_task(body, 0, true).unwrap().unwrap();
    let both = set_task(&ticked, 1, false).unwrap().unwrap();
    assert!(only_ticks_differ(body, &ticked));
    assert!(only_ticks_differ(body, &both), "two ticks at once");
    assert!(only_ticks_differ(&ticked, body), "unticked again");
    assert!(!only_ticks_differ(body, body), "nothing changed");
    let edits = [
        body.replace("milk", "mild"),
        body.replace("not a task: [ ]", "not a task: [x]"),
        body.replace("- [ ] milk", "- [x]  milk"),
        body.replace("- [ ] milk", "- [?] milk"),
        format!("{body} "),
    ];
    for edited in edits {
        assert!(!only_ticks_differ(body, &edited), "{edited:?}");
    }
}

#[test]
fn only_web_and_mail_links_are_links() {
    let html = body_html(
        "[web](https://example.org) [mail](mailto:a@example.org) [shell](ssh://host) \
             [torrent](magnet:?xt=urn:btih:x) [calendar](webcal://example.org/c.ics)",
    );
    assert!(html.contains("href=\"https://example.org\""), "{html}");
    assert!(html.contains("href=\"mailto:a@example.org\""), "{html}");
    for scheme in ["ssh:", "magnet:", "webcal:"] {
        assert!(
            !html.contains(&format!("href=\"{scheme}")),
            "{scheme}: {html}"
        );
    }
}

#[test]
fn raw_html_is_shown_as_text_and_nothing_runs() {
    let html = body_html(
        "<script>alert(1)</script>\n\n<b onclick=\"x()\">hi</b> <img src=x onerror=alert(1)>",
    );
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<b "), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
}

#[test]
fn links_open_safely_and_only_absolute_ones_are_kept() {
    let html = body_html(
            "[site](https://example.org) [bad](javascript:alert(1)) [api](/api/notes) <https://auto.example>",
        );
    assert!(
        html.contains(
            r#"<a href="https://example.org" target="_blank" rel="noopener noreferrer">site</a>"#
        ),
        "{html}"
    );
    assert!(!html.contains("javascript:"), "{html}");
    assert!(!html.contains(r#"href="/api"#), "{html}");
    assert!(html.contains(r#"href="https://auto.example""#), "{html}");
    // A note's own address on the page is the one relative link kept.
    let html = body_html(
        "[water](/?note=0197a2b3-59e2) [odd](/?note=a/../../api) [api](/api/notes?note=x)",
    );
    assert!(html.contains(r#"href="/?note=0197a2b3-59e2""#), "{html}");
    assert_eq!(html.matches("href=").count(), 1, "{html}");
}

#[test]
fn an_image_becomes_a_link_and_is_never_fetched() {
    let html = body_html("![a cat](https://example.org/cat.png)");
    assert!(!html.contains("<img"), "{html}");
    assert!(
        html.contains(r#"href="https://example.org/cat.png""#),
        "{html}"
    );
    assert!(html.contains("a cat"), "{html}");
}

#[test]
fn checklist_items_are_checkboxes_in_order() {
    let html = body_html("- [ ] stamps\n- [x] milk");
    assert_eq!(html.matches(r#"type="checkbox""#).count(), 2, "{html}");
    assert_eq!(html.matches("checked").count(), 1, "{html}");
    // A checkbox typed as HTML is text, so the page's count matches the body's.
    let typed = body_html("<input type=checkbox>\n\n- [ ] real");
    assert_eq!(typed.matches("<input").count(), 1, "{typed}");
}

#[test]
fn ticking_an_item_changes_only_its_marker() {
    let body = "Shopping:\n- [ ] stamps\n- [x] milk\n  - [ ] nested\n\n`- [ ] not a task`";
    assert_eq!(
        set_task(body, 0, true).unwrap().unwrap(),
        "Shopping:\n- [x] stamps\n- [x] milk\n  - [ ] nested\n\n`- [ ] not a task`"
    );
    assert_eq!(
        set_task(body, 1, false).unwrap().unwrap(),
        "Shopping:\n- [ ] stamps\n- [ ] milk\n  - [ ] nested\n\n`- [ ] not a task`"
    );
    assert_eq!(
        set_task(body, 2, true).unwrap().unwrap(),
        "Shopping:\n- [ ] stamps\n- [x] milk\n  - [x] nested\n\n`- [ ] not a task`"
    );
    assert_eq!(set_task(body, 1, true), Ok(None));
    assert_eq!(
        set_task(body, 3, true),
        Err(TaskError::NoSuchItem { index: 3, count: 3 })
    );
    assert_eq!(
        set_task("- [X] upper", 0, false).unwrap().unwrap(),
        "- [ ] upper"
    );
}

#[test]
fn korean_and_emoji_bodies_tick_at_the_right_bytes() {
    let body = "할 일 🎉\n- [ ] 우표 사기";
    assert_eq!(
        set_task(body, 0, true).unwrap().unwrap(),
        "할 일 🎉\n- [x] 우표 사기"
    );
}
