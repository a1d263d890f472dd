//! A note's body as the page shows it: CommonMark read by pulldown-cmark, cleaned by
//! ammonia. Also the one edit the rendered body offers, ticking a checklist item.
//!
//! What a note may turn into is kept small on purpose. Raw HTML typed into a note is
//! shown as the text it is (a note is a thought, not a web page), and ammonia cleans
//! the result anyway, so the page never inserts HTML nobody checked. Images become
//! links: a picture from the internet would be fetched each time the note is shown,
//! telling a stranger when you read your notes. Links open in a new tab with
//! `rel="noopener noreferrer"`, and only absolute ones are kept (a relative link would
//! point into inkling's own API), but for one: a note's own address on the page,
//! `/?note=ID` (an answer saved from Ask links its sources so), which the page opens
//! as that note. A single line break is kept as a line break, as
//! people type notes, not CommonMark's space. A bare `http(s)://` address in the text is
//! a link (found by `linkify`, which leaves a sentence's closing punctuation out): "a
//! link and a comment" is the most common note, and nobody writes `<…>` around it.

use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// What the parser understands: checklists, tables, ~~strikethrough~~.
fn options() -> Options {
    Options::ENABLE_TASKLISTS | Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// The sanitiser, built once: ammonia's defaults (which drop scripts, styles, event
/// handlers and `javascript:` links) with checkboxes allowed, images out, and links to
/// the web and mail only: a note's `ssh:`, `magnet:` or `webcal:` link would hand
/// whatever it names to another program with one click, so it stays text.
static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut builder = ammonia::Builder::default();
    builder
        .add_tags(["input"])
        .add_tag_attributes("input", ["checked", "disabled"])
        .set_tag_attribute_value("input", "type", "checkbox")
        .set_tag_attribute_value("a", "target", "_blank")
        .rm_tags(["img"])
        .url_relative(ammonia::UrlRelative::Custom(Box::new(note_address)))
        .url_schemes(["http", "https", "mailto"].into())
        .link_rel(Some("noopener noreferrer"));
    builder
});

/// A relative link kept: a note's address on the page (`/?note=ID`, an id as an import
/// may give it: letters, digits, `-` and `_`), and nothing else.
fn note_address(url: &str) -> Option<std::borrow::Cow<'_, str>> {
    let id = url.strip_prefix("/?note=")?;
    let valid = (1..=64).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then_some(std::borrow::Cow::Borrowed(url))
}

/// The body as safe HTML. Checklist items come out as disabled checkboxes, in the
/// order [`set_task`] counts them.
pub fn body_html(body: &str) -> String {
    let mut unsafe_html = String::with_capacity(body.len() * 3 / 2);
    pulldown_cmark::html::push_html(
        &mut unsafe_html,
        autolinked(Parser::new_ext(body, options()).map(plain)),
    );
    SANITIZER.clean(&unsafe_html).to_string()
}

/// One parser event as inkling shows it (see the module header).
fn plain(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
        // A block of HTML reads as a paragraph of its text.
        Event::Start(Tag::HtmlBlock) => Event::Start(Tag::Paragraph),
        Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::Paragraph),
        Event::SoftBreak => Event::HardBreak,
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    }
}

/// The events with every bare web address in text made a link, except in text that is
/// already a link's (or an image's) or a code block's.
fn autolinked<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    let mut enclosing = 0usize;
    events.flat_map(move |event| {
        match &event {
            Event::Start(Tag::Link { .. } | Tag::CodeBlock(_)) => enclosing += 1,
            Event::End(TagEnd::Link | TagEnd::CodeBlock) => enclosing = enclosing.saturating_sub(1),
            _ => {}
        }
        match event {
            Event::Text(text) if enclosing == 0 => with_links(text),
            other => vec![other],
        }
    })
}

/// A piece of text as text and links to the `http(s)` addresses in it.
fn with_links(text: CowStr<'_>) -> Vec<Event<'_>> {
    let mut finder = linkify::LinkFinder::new();
    finder.kinds(&[linkify::LinkKind::Url]);
    let web = |address: &str| {
        let lower = address.to_ascii_lowercase();
        lower.starts_with("http://") || lower.starts_with("https://")
    };
    if !finder.links(&text).any(|link| web(link.as_str())) {
        return vec![Event::Text(text)];
    }
    let mut events = Vec::new();
    let mut done = 0;
    for link in finder.links(&text).filter(|link| web(link.as_str())) {
        if link.start() > done {
            events.push(Event::Text(CowStr::from(
                text[done..link.start()].to_string(),
            )));
        }
        let address = link.as_str().to_string();
        events.push(Event::Start(Tag::Link {
            link_type: LinkType::Autolink,
            dest_url: CowStr::from(address.clone()),
            title: CowStr::from(""),
            id: CowStr::from(""),
        }));
        events.push(Event::Text(CowStr::from(address)));
        events.push(Event::End(TagEnd::Link));
        done = link.end();
    }
    if done < text.len() {
        events.push(Event::Text(CowStr::from(text[done..].to_string())));
    }
    events
}

/// Where each checklist marker (`[ ]`, `[x]`) is in the body, in order.
fn task_markers(body: &str) -> Vec<(Range<usize>, bool)> {
    Parser::new_ext(body, options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::TaskListMarker(done) => Some((range, done)),
            _ => None,
        })
        .collect()
}

/// Whether `after` is `before` with checklist items ticked or unticked and nothing
/// else changed: what the AI wrote about the note (its title, tags, summary) still
/// holds, so such an edit asks no model. A tick changes one marker's inside
/// (`[ ]` ↔ `[x]`) and the markers stay where they were.
pub fn only_ticks_differ(before: &str, after: &str) -> bool {
    if before.len() != after.len() || before == after {
        return false;
    }
    let markers = task_markers(before);
    let insides: Vec<usize> = markers.iter().map(|(range, _)| range.start + 1).collect();
    let (old, new) = (before.as_bytes(), after.as_bytes());
    let only_insides = (0..old.len())
        .filter(|&i| old[i] != new[i])
        .all(|i| insides.contains(&i) && matches!(new[i], b' ' | b'x' | b'X'));
    let ranges = |markers: Vec<(Range<usize>, bool)>| -> Vec<Range<usize>> {
        markers.into_iter().map(|(range, _)| range).collect()
    };
    only_insides && ranges(task_markers(after)) == ranges(markers)
}

/// Why a checklist item could not be ticked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    #[error("the note has no checklist item {index} (it has {count})")]
    NoSuchItem { index: usize, count: usize },
}

/// The body with its `index`-th checklist item (from 0, in reading order) ticked or
/// unticked. Only the marker's character changes; everything else stays as typed.
/// `None`: the item already is as asked.
pub fn set_task(body: &str, index: usize, done: bool) -> Result<Option<String>, TaskError> {
    let markers = task_markers(body);
    let (range, was_done) = markers.get(index).cloned().ok_or(TaskError::NoSuchItem {
        index,
        count: markers.len(),
    })?;
    if was_done == done {
        return Ok(None);
    }
    // The marker is `[ ]`, `[x]` or `[X]`: the character between the brackets.
    let inside = range.start + 1..range.end - 1;
    let mut edited = String::with_capacity(body.len());
    edited.push_str(&body[..inside.start]);
    edited.push(if done { 'x' } else { ' ' });
    edited.push_str(&body[inside.end..]);
    Ok(Some(edited))
}

#[cfg(test)]
mod tests {
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
            html.contains(r#"<a href="https://example.org" target="_blank" rel="noopener noreferrer">site</a>"#),
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
}
