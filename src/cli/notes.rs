//! The notes themselves: `capture`, `list`, `search`, `show`, `related` and `edit`.

use super::ids;
use super::input::{edit_in_editor, read_note};
use super::render::{
    describe_slow, hit_snippet_line, list_line, more_line, not_embedded_line, note_lines,
    related_line,
};
use super::{Invocation, ListArgs};
use crate::api::changes::ChangesQuery;
use crate::api::requests::{EditRequest, ListQuery};
use crate::client::{ClientError, ServiceClient};
use crate::domain::{ListFilter, Note, NoteBody};

/// `inkling capture TEXT|-|--clipboard`. A note with nothing to see is refused here,
/// naming where it came from (an empty pipe or clipboard is easy to miss), and the
/// service is not asked.
pub async fn capture(
    run: &mut Invocation<'_>,
    text: Option<String>,
    clipboard: bool,
) -> Result<(), ClientError> {
    let (body, from) =
        match text {
            _ if clipboard => (
                super::clipboard::read_text(run.max_body_bytes)?,
                "the clipboard",
            ),
            Some(dash) if dash == "-" => (
                read_note(std::io::stdin().lock(), run.max_body_bytes)?,
                "standard input",
            ),
            Some(text) => (text, "the command line"),
            // clap asks for one of them; said again for a caller that did not.
            None => return Err(ClientError::Api(
                "nothing to capture: give the note's text, `-` for standard input, or --clipboard"
                    .into(),
            )),
        };
    if NoteBody::is_blank(&body) {
        return Err(ClientError::Api(format!(
            "the note from {from} is empty; nothing was captured"
        )));
    }
    let note = run.client.capture(&body).await?;
    if run.json {
        run.out.json(&note)
    } else {
        run.out.line(format!(
            "captured {} ({})",
            note.id,
            note.ai_status.as_str()
        ))
    }
}

/// `inkling list`: every note asked for, newest first, and a word on stderr when a
/// `--limit` left some out.
pub async fn list(run: &mut Invocation<'_>, args: &ListArgs) -> Result<(), ClientError> {
    let (notes, more) = list_all(run.client, args).await?;
    if run.json {
        run.out.json(&notes)?;
    } else if notes.is_empty() {
        run.out.line("no notes")?;
    } else {
        let ids: Vec<String> = notes.iter().map(|note| note.id.clone()).collect();
        let short = ids::short_forms(run.client, &ids).await;
        for note in &notes {
            run.out
                .line(list_line(note, ids::shown(&short, &note.id)))?;
        }
    }
    if more {
        eprintln!(
            "the newest {} shown; more exist (a larger --limit, or none to see every note)",
            notes.len()
        );
    }
    Ok(())
}

/// `inkling search QUERY…`: the best hits, each with its snippet (a hit found by its
/// meaning alone says so), then the quiet line on standard error when the meaning was
/// not used.
pub async fn search(
    run: &mut Invocation<'_>,
    query: &[String],
    filters: &ListArgs,
) -> Result<(), ClientError> {
    let limit = filters.limit.unwrap_or(ListFilter::DEFAULT_LIMIT);
    // One more than shown, to know whether the limit left notes out (and say so).
    let asked = limit.saturating_add(1).min(ListFilter::MAX_LIMIT);
    let query = ListQuery {
        q: Some(query.join(" ")),
        ..list_query(filters, asked)
    };
    let mut answer = run.client.search(&query).await?;
    let more = answer.hits.len() > limit as usize;
    answer.hits.truncate(limit as usize);
    if run.json {
        return run.out.json(&answer);
    }
    if answer.hits.is_empty() {
        run.out.line("no notes match")?;
    }
    let ids: Vec<String> = answer
        .hits
        .iter()
        .map(|hit| hit.hit.note.note.id.clone())
        .collect();
    let short = ids::short_forms(run.client, &ids).await;
    for hit in &answer.hits {
        let note = &hit.hit.note.note;
        run.out
            .line(list_line(note, ids::shown(&short, &note.id)))?;
        run.out.line(format!(
            "    {}",
            hit_snippet_line(hit.found_by, &hit.hit.snippet)
        ))?;
    }
    // The quiet lines: about the search, not one of its hits, so not on standard output.
    if more {
        eprintln!("{}", more_line(limit, filters.limit.is_some()));
    }
    if let Some(keyword_only) = &answer.keyword_only {
        eprintln!("{}", keyword_only.line);
    }
    Ok(())
}

/// `inkling related ID`: the notes most like it, best first, each with how similar;
/// a note without its vector yet says so, and why when the embedding work is held.
pub async fn related(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    let related = run.client.related(id).await?;
    if run.json {
        return run.out.json(&related);
    }
    if !related.embedded {
        let status = run.client.status().await?;
        let why = status.worker.embeddings.words();
        run.out.line(not_embedded_line(why.as_deref()))?;
        return Ok(());
    }
    if related.notes.is_empty() {
        // The note has its vector: no other note is near it, which is an answer, not
        // something still to come.
        run.out.line("no other note is near this one in meaning")?;
    }
    let ids: Vec<String> = related
        .notes
        .iter()
        .map(|found| found.note.note.id.clone())
        .collect();
    let short = ids::short_forms(run.client, &ids).await;
    for found in &related.notes {
        run.out
            .line(related_line(found, ids::shown(&short, &found.note.note.id)))?;
    }
    Ok(())
}

/// `inkling changes`: a page of the change log, one change a line, then where the next
/// page begins.
pub async fn changes(
    run: &mut Invocation<'_>,
    since: i64,
    limit: Option<u32>,
) -> Result<(), ClientError> {
    let query = ChangesQuery {
        since: Some(since.to_string()),
        limit: limit.map(|limit| limit.to_string()),
    };
    let page = run.client.changes(&query).await?;
    if run.json {
        return run.out.json(&page);
    }
    for change in &page.changes {
        run.out.line(format!(
            "{}  {}  {:<9} {}",
            change.seq,
            change.at,
            change.kind.as_str(),
            change.note_id
        ))?;
    }
    let more = if page.more { " (more follow)" } else { "" };
    run.out.line(format!("next: --since {}{more}", page.next))
}

/// `inkling show ID`: the note; a pending note that is slow says so, with what to do.
pub async fn show(run: &mut Invocation<'_>, id: &str) -> Result<(), ClientError> {
    let note = run.client.show(id).await?;
    if run.json {
        return run.out.json(&note);
    }
    for line in note_lines(&note) {
        run.out.line(line)?;
    }
    if note.ai_status == crate::domain::AiStatus::Pending {
        let status = run.client.status().await?;
        if let Some(slow) = status
            .worker
            .slow_notes
            .iter()
            .find(|s| s.note_id == note.id)
        {
            run.out.line("")?;
            run.out.line(format!("slow:     {}", describe_slow(slow)))?;
        }
    }
    Ok(())
}

/// `inkling edit ID [--title] [--tags] [--body]`: the fields given, or with none the
/// body in the editor.
pub async fn edit(
    run: &mut Invocation<'_>,
    id: &str,
    title: Option<String>,
    tags: Option<String>,
    body: Option<String>,
) -> Result<(), ClientError> {
    let body = match body.as_deref() {
        Some("-") => Some(read_note(std::io::stdin().lock(), run.max_body_bytes)?),
        _ => body,
    };
    let tags = tags.map(|tags| {
        tags.split(',')
            .map(str::trim)
            .filter(|tag| !tag.is_empty())
            .map(String::from)
            .collect::<Vec<_>>()
    });
    let edit = if title.is_none() && tags.is_none() && body.is_none() {
        let note = run.client.show(id).await?;
        match edit_in_editor(&note.body)? {
            Some(body) => EditRequest {
                body: Some(body),
                ..EditRequest::default()
            },
            None => return run.out.line(format!("no change to {}", note.id)),
        }
    } else {
        EditRequest {
            body,
            title,
            tags,
            ..EditRequest::default()
        }
    };
    let note = run.client.edit(id, &edit).await?;
    if run.json {
        run.out.json(&note)
    } else {
        run.out
            .line(format!("edited {} ({})", note.id, note.ai_status.as_str()))
    }
}

/// The notes `inkling list` asks for, newest first, a page of at most
/// [`ListFilter::MAX_LIMIT`] at a time: every one, or `--limit` of them and whether
/// more exist.
async fn list_all(
    client: &ServiceClient,
    args: &ListArgs,
) -> Result<(Vec<Note>, bool), ClientError> {
    let wanted = args.limit.map(|limit| limit as usize);
    let mut notes: Vec<Note> = Vec::new();
    loop {
        let left = wanted.map_or(usize::MAX, |wanted| wanted - notes.len());
        // One more than asked for, on the last page: is there more?
        let page_size = left.saturating_add(1).min(ListFilter::MAX_LIMIT as usize);
        let query = ListQuery {
            before: notes.last().map(|last| last.id.clone()),
            ..list_query(args, page_size as u32)
        };
        let mut page = client.list(&query).await?;
        let full = page.len() == page_size;
        if page.len() > left {
            page.truncate(left);
            notes.extend(page);
            return Ok((notes, true));
        }
        notes.extend(page);
        if !full || notes.len() == wanted.unwrap_or(usize::MAX) {
            return Ok((notes, false));
        }
    }
}

/// The filters of `inkling list` (and `search`) as the list's query, `limit` a page.
fn list_query(args: &ListArgs, limit: u32) -> ListQuery {
    ListQuery {
        status: args.status.clone(),
        tag: args.tag.clone(),
        trash: args.trash,
        expired: args.expired,
        limit: Some(limit),
        before: None,
        q: None,
    }
}
