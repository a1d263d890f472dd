// The one module that knows the service's addresses and how to call them: the
// session (kept in this origin's localStorage, sent as `Authorization: Bearer`, never
// a cookie: browsers send those to every port of 127.0.0.1), the answers' errors, and
// every API path the page uses. Other modules call the named functions below.

export class NoSession extends Error {}

/// A request that got an answer other than success: its HTTP status and the service's
/// own words, which go behind "Details".
export class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const SESSION_KEY = "inkling.session";

let whenSignedOut = () => {};

/// What the page does when the session is refused (it shows how to open it again).
export function onSignedOut(handler) {
  whenSignedOut = handler;
}

function signedOut() {
  localStorage.removeItem(SESSION_KEY);
  whenSignedOut();
}

export function session() {
  return localStorage.getItem(SESSION_KEY);
}

function withSession(headers = {}) {
  const held = session();
  return held ? { ...headers, Authorization: `Bearer ${held}` } : headers;
}

async function call(path, options = {}) {
  const init = { credentials: "omit", ...options };
  init.headers = withSession();
  if (options.json !== undefined) {
    init.method = init.method || "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    signedOut();
    throw new NoSession();
  }
  const type = response.headers.get("content-type") || "";
  // NDJSON (a download's progress) is read as text: it is followed on the live feed.
  const body = type.includes("application/json") ? await response.json() : await response.text();
  if (!response.ok) {
    throw new ApiFailure(response.status, body && body.error ? body.error : `HTTP ${response.status}`);
  }
  return body;
}

const post = (path, json = {}) => call(path, { json });
const note = (id) => `/api/notes/${encodeURIComponent(id)}`;

/// The page's words, both languages (an asset, no session needed).
export const strings = () => fetch("/assets/i18n.json").then((response) => response.json());

/// Trades a one-time code for a session, kept in this origin's storage;
/// the session this page held before, if any, is ended rather than left to expire.
/// A used or stale code keeps the session the page may already hold.
export async function openSession(grant) {
  const response = await fetch("/session", {
    method: "POST",
    credentials: "omit",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(grant),
  });
  if (!response.ok) return;
  const old = session();
  localStorage.setItem(SESSION_KEY, (await response.json()).session);
  if (old) {
    await fetch("/api/session/end", {
      method: "POST",
      credentials: "omit",
      headers: { Authorization: `Bearer ${old}`, "Content-Type": "application/json" },
      body: "{}",
    }).catch(() => {});
  }
}

export const status = () => call("/api/status");

/// A page of notes: `query` is {limit, tag, expired, q, before, trash, status}.
export function notes(query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== false) params.set(name, String(value));
  }
  return call(`/api/notes?${params}`);
}

export const capture = (body) => post("/api/notes", { body });
export const noteDetail = (id) => call(note(id));
export const related = (id) => call(`${note(id)}/related`);
export const editNote = (id, change) => call(note(id), { method: "PATCH", json: change });
export const deleteNote = (id) => call(note(id), { method: "DELETE" });
/// trash, restore, keep, enrich.
export const noteAction = (id, action) => post(`${note(id)}/${action}`);
export const tickTask = (id, index, done) => post(`${note(id)}/tasks/${index}`, { done });
export const importNotes = (batch) => post("/api/notes/import", batch);
export const tags = () => call("/api/tags");
// The tag in the body: a tag named "." or ".." is a dot segment in a path, which the
// browser folds away even encoded.
export const renameTag = (tag, to) => post("/api/tags/rename", { tag, to });
export const emptyTrash = () => post("/api/trash/empty");
export const retryAllFailed = () => post("/api/inbox/retry-all-failed");
export const trashExpired = () => post("/api/inbox/trash-expired");
export const keepExpired = () => post("/api/inbox/keep-expired");
export const pullModel = () => post("/api/ollama/pull");
export const recheckProvider = () => post("/api/ollama/recheck");
export const stats = () => call("/api/stats?format=json");
export const exportUsageLog = () => post("/api/usage-log/export");

/// Every note as inkling's JSON export, as text (whole: parsed once to be sure the
/// stream did not end early).
export async function exportNotes() {
  const response = await fetch("/api/notes/export?format=json", {
    credentials: "omit",
    headers: withSession(),
  });
  if (response.status === 401) {
    signedOut();
    throw new NoSession();
  }
  const text = await response.text();
  if (!response.ok) throw new Error(JSON.parse(text).error || `HTTP ${response.status}`);
  return text;
}

/// The live feed's response (its body is read by live.js), or null when the session
/// was refused.
export async function events() {
  const response = await fetch("/api/events", { credentials: "omit", headers: withSession() });
  if (response.status === 401) {
    signedOut();
    return null;
  }
  return response;
}
