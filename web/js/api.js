// The one module that knows the service's addresses and how to call them: the
// session (proof.js proves the service and gets an access; the access is sent as
// `Authorization: Bearer`, never a cookie: browsers send those to every port of
// 127.0.0.1), the answers' errors, and every API path the page uses. Other modules
// call the named functions below.
//
// Nothing is sent to an unproven service: after any lost connection (a request that
// could not reach the service, the live feed ending) the access is dropped, and the
// next request first proves the service again (proof.js). A request refused with 401
// proves again once (the service restarted: accesses live in its memory) before the
// page says it is signed out.

import * as proof from "./proof.js";

export class NoSession extends Error {}
export const { Unproven } = proof;

/// A request that got an answer other than success: its HTTP status and the service's
/// own words, which go behind "Details".
export class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// Where the page kept a bearer before it kept a key: readable by any page of this
// origin, a squatter's included. Dropped.
localStorage.removeItem("inkling.session");

let whenSignedOut = () => {};

/// What the page does when the session is refused (it shows how to open it again).
export function onSignedOut(handler) {
  whenSignedOut = handler;
}

// The access for this run of the service, in memory only; null until proved.
let access = null;
let proving = null;

function signedOut() {
  access = null;
  whenSignedOut();
}

/// A connection to the service was lost: nothing more is sent until it has proved
/// itself again.
export function connectionLost() {
  access = null;
}

// After a proof: no service worker of another program stays.
function cleanUpAfterSquatters() {
  proof.removeServiceWorkers().catch(() => {});
}

async function currentAccess() {
  // A service worker that took this tab over would see the access: proved again
  // (proof.js does not send past the nonce under one).
  if (access && !proof.underServiceWorker()) return access;
  access = null;
  if (!proving) {
    proving = proof.prove().finally(() => (proving = null));
    proving.then(
      (granted) => {
        access = granted;
        cleanUpAfterSquatters();
      },
      () => {},
    );
  }
  try {
    return await proving;
  } catch (error) {
    if (error instanceof proof.NotOpen) {
      signedOut();
      throw new NoSession();
    }
    throw error;
  }
}

/// Whether the page holds a session (it may have ended at the service).
export async function hasSession() {
  return (await proof.heldSession()) !== null;
}

// A request with the access: proved first if need be; a lost connection drops the
// access; a 401 proves again once.
async function authorized(path, init) {
  for (let attempt = 0; ; attempt++) {
    const granted = await currentAccess();
    let response;
    try {
      response = await fetch(path, { ...init, credentials: "omit", headers: { ...init.headers, Authorization: `Bearer ${granted}` } });
    } catch (error) {
      if (access === granted) access = null;
      throw error;
    }
    if (response.status !== 401) return response;
    if (access === granted) access = null;
    if (attempt > 0) {
      signedOut();
      throw new NoSession();
    }
  }
}

async function call(path, options = {}) {
  const init = { ...options, headers: {} };
  delete init.json;
  delete init.contentType;
  if (options.contentType) init.headers["Content-Type"] = options.contentType;
  if (options.json !== undefined) {
    init.method = init.method || "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  }
  const response = await authorized(path, init);
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
// Beside this module, under this run's asset path (src/http/routes/page.rs).
export const strings = () => fetch(new URL("./i18n.json", import.meta.url)).then((response) => response.json());

/// Trades a one-time code for a session and keeps its key; the session this page held
/// before, if any, is ended rather than left to expire. A used or stale code keeps the
/// session the page may already hold.
export async function openSession(grant) {
  const old = await proof.heldSession().catch(() => null);
  const response = await fetch("/session", {
    method: "POST",
    credentials: "omit",
    cache: "no-store",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(old ? { ...grant, replaces: old.id } : grant),
  });
  if (!response.ok) return;
  const opened = await response.json();
  access = null;
  await proof.keepSession(opened.session, opened.key);
}

export const status = () => call("/api/status");

/// `query` as a query string, the unset fields left out.
function queryString(query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== false) params.set(name, String(value));
  }
  return params;
}

/// A page of notes: `query` is {limit, tag, expired, q, before, trash, status}.
export const notes = (query) => call(`/api/notes?${queryString(query)}`);

/// The hybrid search (words and meaning): `query` as for `notes`, with `q` and no
/// `before`; the answer is {hits, keyword_only}.
export const search = (query) => call(`/api/search?${queryString(query)}`);

export const capture = (body) => post("/api/notes", { body });
/// A recording as a voice note (`bytes` of `type`): the pending note, stored.
export const captureVoice = (bytes, type) => call("/api/notes/voice", { method: "POST", body: bytes, contentType: type });
export const transcription = () => call("/api/transcription");
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
export const pullModel = () => post("/api/provider/pull");
export const recheckProvider = () => post("/api/provider/recheck");
export const stats = () => call("/api/stats?format=json");
export const exportUsageLog = () => post("/api/usage-log/export");

/// A question asked of the notes: the response, whose body (newline-delimited JSON
/// events) ask.js reads as it streams; aborting `signal` hangs up (the model stops).
export async function ask(question, signal) {
  const response = await authorized("/api/ask", {
    method: "POST",
    signal,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ question }),
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new ApiFailure(response.status, body.error || `HTTP ${response.status}`);
  }
  return response;
}

/// Every note as inkling's JSON export, as text (whole: parsed once to be sure the
/// stream did not end early).
export async function exportNotes() {
  const response = await authorized("/api/notes/export?format=json", { headers: {} });
  const text = await response.text();
  if (!response.ok) throw new Error(JSON.parse(text).error || `HTTP ${response.status}`);
  return text;
}

/// The live feed's response (its body is read by live.js), or null when the session
/// was refused.
export async function events() {
  try {
    return await authorized("/api/events", { headers: {} });
  } catch (error) {
    if (error instanceof NoSession) return null;
    throw error;
  }
}
