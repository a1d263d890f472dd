// The page's state, in slices, and the one way to change it: `update(change)` applies a
// change and schedules one render (a microtask: every change made in the same task —
// a click, a chunk of live events read at once — is drawn once, before the next
// paint). Renderers subscribe with `onRender`; each looks at its own slice and touches
// only what differs. `flush()` draws now, for a person's own action whose answer must
// be on the screen when the handler returns (the optimistic retry, a dismissal).
//
// Each render announces itself as a `inkling:render` DOM event with how long it took:
// how the browser tests and the benchmark see the page's work without globals.

export const state = {
  // What the service says: counts, the provider, the notes the AI is slow on, a model
  // download, the rules it enforces (expiry, limits).
  service: {
    counts: { pending: 0, failed: 0, expired: 0 },
    health: null, // {state: "ready" | "model_missing" | "not_running", ...}
    slow: new Map(), // note id → {timeouts, request_timeout_ms, next_deadline_ms}
    pull: null, // {state: "running" | "done" | "failed", status, completed, total, error}
    expiryDays: 30,
    // Whether notes expire ("ask": not answered yet, so off) and whether to ask now.
    expiry: { choice: "ask", ask: false },
    maxAttempts: 3,
    limits: null, // /api/status `limits`, when the service sends them
    offline: false,
  },
  // The banners' own memory. `retry`: a retry-all in flight (how many were sent back),
  // so the banner can say "Retrying 3 notes…" and then "2 notes failed again".
  // `dismissed`: banner id → what it said when put away; it comes back when it has
  // something new to say.
  // `backlog`: the pending line speaks of a backlog until every note is done.
  // `recheck`: "Check again" under way (`{checking: true}`) or when its answer said the
  // provider is still down (`{at}`, an ISO time), so the click is answered either way.
  banners: { retry: null, failedAgain: false, backlog: false, recheck: null, dismissed: new Map() },
  // Where the page is; the address says the same (navigation.js).
  place: {
    view: "inbox",
    open: null, // the note open in the detail view (its id)
    filter: { tag: null, expired: false },
    // The words in the search box: while there are any, the list is their hits, best
    // first, one page (a search is ranked, not paged by date).
    search: "",
  },
  // The notes list. A list is asked for on another connection than the live events
  // and can be overtaken by a note's event: `loads` numbers list loads (only the
  // newest applies), and `changedDuringLoad` keeps the notes that changed while one
  // was in flight, applied over the list once it is in.
  list: {
    notes: [], // newest first, or a search's hits by rank
    hasMore: false,
    // A search: how many hits it shows, and whether it stops at the most the service
    // answers at once (more may match).
    searchShown: 100,
    capped: false,
    // Why a search found by words only ({reason, model?, line}), or null.
    keywordOnly: null,
    loadingMore: false,
    buttonNear: false,
    loads: 0,
    changedDuringLoad: null,
    // The card j/k moved to (a note id), and its index then: when it leaves the list
    // (trashed), the next j/k goes on from there, not from the top.
    selected: null,
    selectedAt: null,
    // The list's window (list-window.js): whether the person is at the top of the
    // list (new notes go on top only then), and whether notes newer than the top
    // arrived while they were not (the list is loaded anew when they are back).
    atTop: true,
    newerLater: false,
  },
  // The note being edited (its id), in its card or open: its card is kept as it is
  // (the form, what is typed, the focus) while events patch the list around it.
  editing: null,
  detail: { note: null }, // the open note as the service said it
  trash: { notes: [], loaded: false, hasMore: false },
  tags: { list: [] },
  // The question asked of the notes (ask.js), and its answer as it streams; null while
  // the Ask panel is closed.
  ask: null,
};

const renderers = [];
let scheduled = false;

export function onRender(renderer) {
  renderers.push(renderer);
}

/// Changes the state (`change` gets it and may alter any slice) and schedules a render.
export function update(change) {
  if (change) change(state);
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(flush);
}

/// Draws now (and what was scheduled is then drawn already).
export function flush() {
  scheduled = false;
  const started = performance.now();
  for (const renderer of renderers) {
    try {
      renderer(state);
    } catch (error) {
      // One broken view must not stop the others (nor the live feed that called).
      console.error(error);
    }
  }
  document.dispatchEvent(new CustomEvent("inkling:render", { detail: { ms: performance.now() - started } }));
}
