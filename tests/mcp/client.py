"""A real MCP client for `inkling mcp`: the official MCP Python SDK (PyPI `mcp`).

Run by tests/mcp/main.rs with the Python of scripts/mcp-test-tools.sh's venv:

    client.py SCENARIO

It starts `$MCP_TEST_INKLING [--config $MCP_TEST_CONFIG] mcp` over stdio, as Claude Desktop
would, with INKLING_DATA_DIR and INKLING_HTTP__PORT passed on, and checks what a model
would see. Scenarios:

- `running`: the service runs with its two seed notes (tests/mcp/main.rs): the tools
  and their schemas, each tool called, bad arguments answered with a tool error
  (isError); prints the id of the one note it captured (the Rust side checks that it is
  the only note added);
- `capture-off`: `[mcp] allow_capture = false`: capture_note is not listed, and a call to
  it is refused with the plain reason;
- `stopped`: nothing answers on the port: the server still starts and lists its tools,
  and every call answers how to start inkling.

A failed check raises (exit status 1) with what was expected and what came.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ALL_TOOLS = {
    "search_notes",
    "get_note",
    "capture_note",
    "related_notes",
    "list_tags",
    "ask_notes",
    "list_reminders",
    "set_reminder",
}
# The tools that change notes, offered only while capture is allowed.
WRITING = {"capture_note", "set_reminder"}
# The required argument of each tool that takes one.
REQUIRED = {
    "search_notes": ["query"],
    "get_note": ["id"],
    "capture_note": ["text"],
    "related_notes": ["id"],
    "ask_notes": ["question"],
    "set_reminder": ["id", "when"],
}
NOT_RUNNING = "inkling is not running"
START_HINTS = ["cargo run --release", "inkling autostart on"]
SEED_DENTIST = "Call the dentist about the March appointment"
CAPTURED = "A thought from an AI tool: water the basil on Fridays"


def check(condition, what, got=None):
    if not condition:
        raise AssertionError(f"{what}; got: {got!r}")


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


async def ok(session, tool, arguments=None):
    """Calls a tool that must succeed; returns its JSON answer."""
    result = await session.call_tool(tool, arguments or {})
    check(not result.is_error, f"{tool}({arguments}) succeeds", text_of(result))
    return json.loads(text_of(result))


async def refused(session, tool, arguments, *words):
    """Calls a tool that must answer a tool error (isError) saying each of `words`."""
    result = await session.call_tool(tool, arguments)
    said = text_of(result)
    check(result.is_error, f"{tool}({arguments}) is a tool error", said)
    for word in words:
        check(word in said, f"{tool}({arguments})'s error says {word!r}", said)
    return said


def server():
    args = []
    if os.environ.get("MCP_TEST_CONFIG"):
        args += ["--config", os.environ["MCP_TEST_CONFIG"]]
    args.append("mcp")
    env = {
        key: os.environ[key]
        for key in ("INKLING_DATA_DIR", "INKLING_HTTP__PORT", "HOME", "XDG_CONFIG_HOME")
        if key in os.environ
    }
    return StdioServerParameters(command=os.environ["MCP_TEST_INKLING"], args=args, env=env)


def check_tools(listed, expected):
    tools = {tool.name: tool for tool in listed.tools}
    check(set(tools) == expected, "the tools listed", sorted(tools))
    for name, tool in tools.items():
        check(len(tool.description or "") > 60, f"{name} has a plain description", tool.description)
        schema = tool.input_schema
        check(schema.get("type") == "object", f"{name}'s schema is an object", schema)
        for argument in REQUIRED.get(name, []):
            check(argument in schema.get("required", []), f"{name} requires {argument}", schema)
            check(
                schema["properties"][argument].get("type") == "string",
                f"{name}'s {argument} is a string",
                schema,
            )
            check(
                schema["properties"][argument].get("description"),
                f"{name}'s {argument} is described",
                schema,
            )
        if name not in REQUIRED:
            check(not schema.get("required"), f"{name} takes no argument", schema)
        read_only = tool.annotations and tool.annotations.read_only_hint
        check(read_only == (name not in WRITING), f"{name}'s read-only hint", tool.annotations)
    if "search_notes" in tools:
        limit = tools["search_notes"].input_schema["properties"]["limit"]
        check("integer" in json.dumps(limit), "search_notes' limit is an integer", limit)
        check((limit.get("minimum"), limit.get("maximum")) == (1, 50), "search_notes' limit's range", limit)
    return tools


async def running(session):
    check_tools(await session.list_tools(), ALL_TOOLS)

    found = await ok(session, "search_notes", {"query": "dentist"})
    check(len(found["notes"]) == 1, "one note has 'dentist'", found)
    dentist = found["notes"][0]
    check("dentist" in dentist["snippet"], "the snippet shows the match", dentist)
    check(dentist["found_by"] == "words", "a hit says what found it", dentist)
    note = await ok(session, "get_note", {"id": dentist["id"]})
    check(note["text"] == SEED_DENTIST, "get_note gives the note's text", note)
    check(note["ai_status"] == "pending" and not note["in_trash"], "the note's state", note)

    related = await ok(session, "related_notes", {"id": dentist["id"]})
    # No embedding model in this test: said as "not known yet", not as "none".
    check(related["notes"] == [] and "not known yet" in related["hint"], "related_notes", related)
    tags = await ok(session, "list_tags")
    check(tags == {"tags": []}, "list_tags (no model has tagged anything)", tags)

    asked = await ok(session, "ask_notes", {"question": "dentist appointment"})
    check([n["id"] for n in asked["notes"]] == [dentist["id"]], "ask_notes finds the note", asked)
    check("answer" in asked or asked.get("why"), "ask_notes answers or says why not", asked)

    captured = await ok(session, "capture_note", {"text": CAPTURED})
    check(captured["text"] == CAPTURED and captured["ai_status"] == "pending", "capture_note", captured)
    again = await ok(session, "get_note", {"id": captured["id"]})
    check(again["text"] == CAPTURED, "the captured note reads back", again)
    basil = await ok(session, "search_notes", {"query": "basil fridays", "limit": 5})
    check([n["id"] for n in basil["notes"]] == [captured["id"]], "the captured note is found", basil)
    none = await ok(session, "search_notes", {"query": "zebra"})
    check(none["notes"] == [] and none["hint"], "no match says what to try", none)

    # Bad arguments: a tool error each, and nothing sent that could change a note.
    await refused(session, "search_notes", {"query": "  "}, "query is empty")
    await refused(session, "search_notes", {"query": "a", "limit": 0}, "use 1 to 50")
    await refused(session, "search_notes", {"query": "a", "limit": "ten"})
    await refused(session, "search_notes", {"qeury": "dentist"}, "qeury")
    await refused(session, "get_note", {"id": "no-such-note"}, "no-such-note")
    await refused(session, "get_note", {}, "id")
    await refused(session, "capture_note", {"text": " \n "}, "text is empty")
    await refused(session, "capture_note", {}, "text")
    await refused(session, "capture_note", {"text": 42})
    await refused(session, "capture_note", {"text": "x" * 70000}, "refused")
    await refused(session, "capture_note", {"text": "a", "tags": ["x"]}, "tags")
    await refused(session, "ask_notes", {"question": ""}, "question is empty")

    # A reminder on the captured note, in words; listed up to a time in words.
    reminded = await ok(session, "set_reminder", {"id": captured["id"], "when": "in 2 hours"})
    check(reminded["remind_state"] == "open" and reminded["remind_at"], "set_reminder", reminded)
    listed = await ok(session, "list_reminders", {"until": "in 3 hours"})
    check([n["id"] for n in listed["reminders"]] == [captured["id"]], "list_reminders", listed)
    check(listed["unopened"] == [], "list_reminders says yesterday's unopened notes (none)", listed)
    await refused(session, "set_reminder", {"id": captured["id"], "when": "someday"}, "cannot read")
    await refused(session, "set_reminder", {"id": captured["id"], "when": "2020-01-01 9:00"}, "has passed")
    await refused(session, "set_reminder", {"id": "no-such-note", "when": "tomorrow"}, "no-such-note")
    await refused(session, "list_reminders", {"until": "whenever"}, "cannot read")
    cleared = await ok(session, "set_reminder", {"id": captured["id"], "when": "none"})
    check("remind_at" not in cleared, "set_reminder none clears it", cleared)
    print(captured["id"])


async def capture_off(session):
    check_tools(await session.list_tools(), ALL_TOOLS - WRITING)
    await refused(session, "capture_note", {"text": CAPTURED}, "turned off", "allow_capture = true")
    await refused(session, "set_reminder", {"id": "n1", "when": "tomorrow"}, "turned off", "allow_capture = true")
    listed = await ok(session, "list_reminders")
    check(listed["reminders"] == [], "reading reminders still works", listed)
    found = await ok(session, "search_notes", {"query": "dentist"})
    check(len(found["notes"]) == 1, "reading still works", found)


async def stopped(session):
    check_tools(await session.list_tools(), ALL_TOOLS)
    calls = {
        "search_notes": {"query": "dentist"},
        "get_note": {"id": "n1"},
        "capture_note": {"text": CAPTURED},
        "related_notes": {"id": "n1"},
        "list_tags": {},
        "ask_notes": {"question": "when is the dentist?"},
        "list_reminders": {},
        "set_reminder": {"id": "n1", "when": "tomorrow 9:00"},
    }
    for tool, arguments in calls.items():
        await refused(session, tool, arguments, NOT_RUNNING, *START_HINTS)


async def main(scenario):
    run = {"running": running, "capture-off": capture_off, "stopped": stopped}[scenario]
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            check(initialized.server_info.name == "inkling", "the server's name", initialized.server_info)
            check("notes" in (initialized.instructions or ""), "the server's instructions", initialized)
            await run(session)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
