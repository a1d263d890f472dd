//! The MCP tools: what `inkling mcp` offers a person's AI tools, each a short async
//! function that asks the running service through the CLI's client
//! (`crate::client::ServiceClient`) and hands its answer to `replies.rs`. No tool opens
//! the database: the service stays its one owner, and proves itself before the token
//! goes out, on every call.
//!
//! Why a new client per call: the client remembers that the service proved itself, and
//! this process lives as long as the AI tool that started it. After the service stops,
//! something else may listen on its port; a client made for the call asks for the proof
//! again before the token is sent (one more loopback round trip, well under a
//! millisecond). It also means a service started after this process finds no stale
//! state: the first call after `inkling` starts just works.
//!
//! A refused argument, a service that refuses, or a service that is not running all
//! answer a tool error (`isError`) in plain words (`replies::tool_error_text`); the
//! protocol itself never fails because of the notes.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde::Serialize;

use super::arguments::{
    AskNotesArgs, CaptureNoteArgs, ListRemindersArgs, NoteIdArgs, SearchNotesArgs, SetReminderArgs,
};
use super::ask;
use super::replies::{
    tool_error_text, FoundNotes, NoteReply, RelatedReply, RemindersReply, TagsReply,
};
use crate::api::requests::EditRequest;
use crate::client::{ClientError, ServiceClient};
use crate::configuration::Settings;

/// The tool that adds notes; `mcp.allow_capture = false` takes it away.
pub const CAPTURE_TOOL: &str = "capture_note";
/// The tool that changes a note's reminder; taken away with capture: an AI tool that
/// may not add notes may not change them either.
pub const REMINDER_TOOL: &str = "set_reminder";

/// What a call to `set_reminder` answers while capture is turned off.
pub const REMINDER_TURNED_OFF: &str = "changing notes from AI tools is turned off in \
inkling's configuration (`[mcp] allow_capture = false`), so no reminder was set. The person can \
turn it on by setting `allow_capture = true` under `[mcp]` in inkling's config file.";

/// What a call to `capture_note` answers while it is turned off (a client that kept an
/// older tool list may still call it).
pub const CAPTURE_TURNED_OFF: &str = "adding notes from AI tools is turned off in inkling's \
configuration (`[mcp] allow_capture = false`), so nothing was saved. The person can turn it \
on by setting `allow_capture = true` under `[mcp]` in inkling's config file.";

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "inkling holds the person's own notes: quick thoughts, tasks, \
links and pasted text, each titled, tagged and summarised by their local model. Use \
search_notes to find notes by words and meaning and get_note to read one whole; related_notes finds notes \
close in meaning to one; list_tags shows how the notes are grouped; ask_notes answers a \
question from the notes; list_reminders lists what the person is to be reminded of. \
capture_note (when offered) saves a new note for the person, and set_reminder (when offered) \
sets when the person is reminded of a note. The notes are private: quote them only to the \
person.";

/// The MCP server: the settings that find the running service, and the tools.
#[derive(Clone)]
pub struct InklingTools {
    settings: Settings,
    tool_router: ToolRouter<Self>,
}

impl InklingTools {
    pub fn new(settings: Settings) -> Self {
        let mut tool_router = Self::tool_router() + Self::reminder_router();
        if !settings.mcp.allow_capture {
            // Not offered at all: a model cannot choose a tool it is not shown.
            tool_router.disable_route(CAPTURE_TOOL);
            tool_router.disable_route(REMINDER_TOOL);
        }
        InklingTools {
            settings,
            tool_router,
        }
    }

    /// A client of the running service, for one call.
    fn client(&self) -> Result<ServiceClient, ClientError> {
        ServiceClient::from_settings(&self.settings)
    }
}

#[tool_router]
impl InklingTools {
    #[tool(
        description = "Search the person's notes by words and by meaning. Returns up to \
`limit` notes, best first, each with its id, title, tags, when it was written, the piece of \
its text that matched and what found it (`words`, `meaning` or `both`); read a whole note with \
get_note. Use a few distinctive words (\"dentist march\"), not a sentence: a note with every \
word ranks first. `by_words_only` says when the meaning could not be used.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_notes(&self, Parameters(args): Parameters<SearchNotesArgs>) -> CallToolResult {
        let query = match args.to_query() {
            Ok(query) => query,
            Err(why) => return refused(why),
        };
        let hits = match self.client() {
            Ok(client) => client.search(&query).await,
            Err(e) => Err(e),
        };
        answer(hits.map(FoundNotes::from_answer))
    }

    #[tool(
        description = "Read one of the person's notes whole, by its id (from search_notes, \
related_notes or ask_notes): its text as written, and the title, tags and summary their local \
model gave it (none yet while `ai_status` is pending).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_note(&self, Parameters(args): Parameters<NoteIdArgs>) -> CallToolResult {
        let id = match args.checked_id() {
            Ok(id) => id,
            Err(why) => return refused(why),
        };
        let note = match self.client() {
            Ok(client) => client.show(id).await,
            Err(e) => Err(e),
        };
        answer(note.map(NoteReply::from_note))
    }

    #[tool(
        description = "Save a new note for the person, with the text given (when they ask you \
to note, remember or jot something down). It is saved at once and returned with its id; their \
local model adds a title, tags and a summary in the background. Does not change or delete any \
existing note.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn capture_note(&self, Parameters(args): Parameters<CaptureNoteArgs>) -> CallToolResult {
        let text = match args.checked_text() {
            Ok(text) => text,
            Err(why) => return refused(why),
        };
        let note = match self.client() {
            Ok(client) => client.capture(text).await,
            Err(e) => Err(e),
        };
        answer(note.map(NoteReply::from_note))
    }

    #[tool(
        description = "Find the notes closest in meaning to one note (by its id), best first, \
with how alike each is (0 to 1). Finds notes on the same subject even when they share no \
words; a note just written or edited has no related notes until the local model has read it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn related_notes(&self, Parameters(args): Parameters<NoteIdArgs>) -> CallToolResult {
        let id = match args.checked_id() {
            Ok(id) => id,
            Err(why) => return refused(why),
        };
        let related = match self.client() {
            Ok(client) => client.related(id).await,
            Err(e) => Err(e),
        };
        answer(related.map(RelatedReply::from_related))
    }

    #[tool(
        description = "List the tags of the person's notes with how many notes have each, most \
used first: what the notes are about, and the tag names search_notes can filter by.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_tags(&self) -> CallToolResult {
        let tags = match self.client() {
            Ok(client) => client.tags().await,
            Err(e) => Err(e),
        };
        answer(tags.map(|tags| TagsReply { tags }))
    }

    #[tool(
        description = "Answer a question from the person's notes. Returns the notes that match \
the question, [1] first, and, when the person's local model can answer, its answer citing \
those notes as [1], [2]; when it cannot, `why` says so and the notes are there to answer from. \
Quote only what the notes say.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn ask_notes(&self, Parameters(args): Parameters<AskNotesArgs>) -> CallToolResult {
        let question = match args.checked_question() {
            Ok(question) => question,
            Err(why) => return refused(why),
        };
        let reply = match self.client() {
            Ok(client) => ask::ask(&client, question).await,
            Err(e) => Err(e),
        };
        answer(reply)
    }
}

#[tool_router(router = reminder_router, vis = "pub(crate)")]
impl InklingTools {
    #[tool(
        description = "List the person's reminders not done yet up to a time (default: the \
end of today), earliest first, so the overdue come first: each note with its id, title, \
`remind_at` (UTC) and `remind_state`; then `unopened`, the notes written yesterday that the \
person has not opened yet. `until` may be words (\"tomorrow\", \"in 3 days\") or an RFC \
3339 time.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_reminders(
        &self,
        Parameters(args): Parameters<ListRemindersArgs>,
    ) -> CallToolResult {
        let until = match args.checked_until(chrono::Utc::now(), &chrono::Local) {
            Ok(until) => until.map(crate::domain::timestamp),
            Err(why) => return refused(why),
        };
        let answer_ = match self.client() {
            Ok(client) => client.reminders(until).await,
            Err(e) => Err(e),
        };
        answer(answer_.map(RemindersReply::from_answer))
    }

    #[tool(
        description = "Remind the person of one of their notes at a time (when they ask you \
to remind them): `when` in their words as they said it (\"tomorrow 9:00\", \"in 2 hours\", \
\"next tuesday 3pm\", \"2026-12-24 18:00\", \"내일 오전 9시\"), read on their machine's clock \
and time zone, or \"none\" to remove it. Their desktop shows it at that time. Returns the \
note with its `remind_at`; changes nothing else.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn set_reminder(&self, Parameters(args): Parameters<SetReminderArgs>) -> CallToolResult {
        let (id, at) = match args.checked(chrono::Utc::now(), &chrono::Local) {
            Ok(checked) => checked,
            Err(why) => return refused(why),
        };
        let request = EditRequest {
            remind_at: Some(at.map(crate::domain::timestamp)),
            ..EditRequest::default()
        };
        let note = match self.client() {
            Ok(client) => client.edit(id, &request).await,
            Err(e) => Err(e),
        };
        answer(note.map(NoteReply::from_note))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for InklingTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("inkling", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.to_string())
    }

    /// The router's, except that `capture_note` while it is turned off answers why.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(why) = refused_write(&request.name, self.settings.mcp.allow_capture) {
            return Ok(refused(why.to_string()).into());
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }
}

/// Why a call is refused: a tool that writes while capture is turned off.
fn refused_write(tool: &str, allow_capture: bool) -> Option<&'static str> {
    match tool {
        _ if allow_capture => None,
        CAPTURE_TOOL => Some(CAPTURE_TURNED_OFF),
        REMINDER_TOOL => Some(REMINDER_TURNED_OFF),
        _ => None,
    }
}

/// A tool error with the plain reason.
fn refused(why: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(why)])
}

/// The service's answer as the tool's JSON text, or its failure as a tool error.
fn answer<T: Serialize>(result: Result<T, ClientError>) -> CallToolResult {
    match result {
        Ok(reply) => match serde_json::to_string(&reply) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => refused(format!("the answer could not be written as JSON: {e}")),
        },
        Err(e) => {
            tracing::info!(error = %e, "a tool call failed");
            refused(tool_error_text(&e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_writing_tools_are_refused_and_only_when_turned_off() {
        assert_eq!(
            refused_write("capture_note", false),
            Some(CAPTURE_TURNED_OFF)
        );
        assert_eq!(
            refused_write("set_reminder", false),
            Some(REMINDER_TURNED_OFF)
        );
        assert_eq!(refused_write("capture_note", true), None);
        assert_eq!(refused_write("set_reminder", true), None);
        assert_eq!(refused_write("search_notes", false), None);
        assert_eq!(refused_write("list_reminders", false), None);
    }
}
