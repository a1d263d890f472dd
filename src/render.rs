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
mod tests;
