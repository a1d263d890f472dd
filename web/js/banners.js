// The banner stack under the capture box (docs/DESIGN.md, "The inbox page"): the
// service offline, the provider down or its model missing (and the download), the
// notes waiting, the failed ones (and a retry-all in flight), the expired ones, the
// filter chip; and the toasts: recovered, undo a trash. Drawn from the `service`,
// `banners` and `place` slices on every render.

import { t, relativeTime } from "./i18n.js";
import { $, setDetail, guarded } from "./dom.js";
import { onRender, update, flush, state } from "./store.js";
import * as api from "./api.js";
import * as expiry from "./expiry.js";
import { loadNotes } from "./notes.js";

/// Shows a banner unless it was dismissed while saying the same (`says`).
function showBanner(dismissed, id, visible, says) {
  const banner = $(id);
  // What was dismissed is over (gone, or saying something else): it may come back.
  if (!visible || (dismissed.has(id) && dismissed.get(id) !== says)) dismissed.delete(id);
  banner.hidden = !visible || dismissed.get(id) === says;
  banner.dataset.says = says;
}

function setText(id, text) {
  const element = $(id).querySelector(".text");
  if (element.textContent !== text) element.textContent = text;
}

/// "Check again" answered: "Checking…" on the button while the check is under way, then
/// "Still not answering — checked just now" while the provider stays down (a check that
/// finds it back needs no line: the banner goes and the recovery toast says so).
function renderRecheck(recheck, down) {
  const checking = Boolean(recheck && recheck.checking);
  const recheckButton = $("recheck");
  const label = t(checking ? "rechecking" : "recheck");
  if (recheckButton.textContent !== label) recheckButton.textContent = label;
  // aria-disabled, not disabled: the focus stays on the button through the check.
  recheckButton.setAttribute("aria-disabled", String(checking));
  const result = $("recheck-result");
  const said = down && recheck && recheck.at ? t("stillDown", { when: relativeTime(recheck.at) }) : "";
  if (result.textContent !== said) result.textContent = said;
  result.hidden = !said;
}

function renderProvider({ service, banners }, down) {
  const { health, pull, counts } = service;
  const ollama = $("provider-banner");
  const text = ollama.querySelector(".text");
  const pulling = pull && pull.state === "running";
  const progress = $("pull-progress");
  const missing = Boolean(health && health.state === "model_missing");
  // An OpenAI-compatible server loads its models itself: no download here.
  const openai = service.modelServer === "openai";
  progress.hidden = !pulling;
  $("pull-model").hidden = !missing || pulling || openai;
  $("recheck").hidden = !down || (missing && !openai);
  renderRecheck(banners.recheck, down);
  // While Ollama is down nothing is being processed: the waiting notes are said here,
  // and the "working on" line stays away.
  const waiting = counts.pending ? ` ${t("waitingForOllama", { n: counts.pending })}` : "";
  if (missing) {
    $("pull-model").textContent = t(pull && pull.state === "failed" ? "pullAgain" : "pullModel", {
      model: health.model,
    });
    if (pulling) {
      const share = pull.total ? pull.completed / pull.total : 0;
      progress.value = share;
      progress.setAttribute("aria-label", t("pullProgressLabel", { model: health.model }));
      text.textContent = t("pulling", { model: health.model, percent: Math.floor(share * 100) });
      setDetail(ollama, "");
    } else if (pull && pull.state === "failed") {
      text.textContent = t("pullFailed", { model: health.model });
      setDetail(ollama, t("pullFailedDetail", { error: pull.error }));
    } else if (openai) {
      text.textContent = t("serverModelMissing", { model: health.model }) + waiting;
      setDetail(ollama, t("serverModelMissingDetail", { model: health.model }));
    } else {
      text.textContent = t("ollamaModelMissing", { model: health.model }) + waiting;
      setDetail(ollama, t("modelMissingDetail", { model: health.model }));
    }
  } else if (down && health.state === "untrusted_listener") {
    const name = health.user || String(health.uid);
    const user = health.user ? `uid ${health.uid}, ${health.user}` : `uid ${health.uid}`;
    const server = openai ? t("theModelServer") : "Ollama";
    // A port is a name, not a quantity: no thousands separator.
    text.textContent = t("untrustedListener", { user, server, port: String(health.port) }) + waiting;
    setDetail(ollama, t("untrustedListenerDetail", { server, name }));
  } else if (down && health.state === "loading") {
    text.textContent = t("serverLoading") + waiting;
    setDetail(ollama, "");
  } else if (down && health.state === "key_refused") {
    text.textContent = t("serverKeyRefused") + waiting;
    setDetail(ollama, t("serverKeyRefusedDetail", { detail: health.detail }));
  } else if (down && openai) {
    text.textContent = t("serverNotRunning") + waiting;
    setDetail(ollama, t("serverNotRunningDetail", { detail: health.detail }));
  } else if (down) {
    text.textContent = t("ollamaNotRunning") + waiting;
    setDetail(ollama, t("notRunningDetail", { detail: health.detail }));
  }
  showBanner(banners.dismissed, "provider-banner", down, down ? health.state : "");
}

/// From how many waiting notes the pending line speaks: a backlog (notes imported, the
/// AI back after an outage), not a capture or two, whose waiting the card's own meta
/// line says ("AI waiting") without a banner that comes and goes above the list.
export const BACKLOG_FROM = 10;

/// Whether the pending line shows: a retry-all in flight, a note the AI is slow on, or
/// a backlog, from when it reaches `BACKLOG_FROM` until every note is done (so a
/// backlog draining past 9 does not take the line away halfway). Returns the new
/// `backlog` memory too.
export function pendingLine({ pending, retrying, slow, backlog }) {
  const inBacklog = pending > 0 && (backlog || pending >= BACKLOG_FROM);
  return { shown: pending > 0 && (retrying || slow > 0 || inBacklog), backlog: inBacklog };
}

function renderBanners(state) {
  const { service, banners, place } = state;
  const { pending, failed, expired } = service.counts;
  const down = Boolean(service.health && service.health.state !== "ready");

  $("offline-banner").hidden = !service.offline;
  renderProvider(state, down);

  const slow = service.slow.size ? ` ${t("slowBanner", { n: service.slow.size })}` : "";
  const retrying = banners.retry && pending > 0;
  setText("pending-banner", retrying ? t("retrying", { n: banners.retry.sent }) : t("pending", { n: pending }) + slow);
  const line = pendingLine({ pending, retrying: Boolean(retrying), slow: service.slow.size, backlog: banners.backlog });
  banners.backlog = line.backlog;
  showBanner(banners.dismissed, "pending-banner", line.shown && !down, "pending");

  // After a retry-all, notes that fail again are said as such, until none is failed.
  if (banners.retry && pending === 0) {
    banners.failedAgain = failed > 0;
    banners.retry = null;
  }
  if (failed === 0) banners.failedAgain = false;
  const again = (banners.retry || banners.failedAgain) && failed > 0;
  setText("failed-banner", t(again ? "failedAgain" : "failed", { n: failed }));
  showBanner(banners.dismissed, "failed-banner", failed > 0, String(failed));

  // Asked once, after a month of use (docs/DESIGN.md, "Expiry"); answered, it is gone.
  setText("expiry-question", t("expiryQuestion", { days: service.expiryDays }));
  $("expiry-question").hidden = !service.expiry.ask;
  setText("expiry-banner", t("expired", { n: expired, days: service.expiryDays }));
  setDetail($("expiry-banner"), t("expiredDetail", { days: service.expiryDays }));
  // Asked at most once a week (web/js/expiry.js): put away, it stays away.
  $("expiry-banner").hidden = !expiry.reviewDue(expired, expiry.answeredAt(), Date.now());

  const chip = $("filter-chip");
  chip.hidden = !place.filter.tag && !place.filter.expired;
  setText("filter-chip", place.filter.tag ? t("filterTag", { tag: place.filter.tag }) : t("filterExpired"));
}

onRender(renderBanners);

export function showRecoveryToast() {
  const toast = $("recovery-toast");
  toast.textContent = t("recovered");
  toast.classList.remove("fading");
  toast.hidden = false;
  setTimeout(() => toast.classList.add("fading"), 3000);
  setTimeout(() => {
    toast.hidden = true;
    toast.classList.remove("fading");
  }, 4000);
}

// "Moved to the trash. Undo": for a few seconds (UNDO_MS), or until the person does
// something else (a click or a key elsewhere: the next action), Undo restores what was
// just trashed. `timers` is the toast's clock: a test puts its own in its place to see
// the toast go without waiting.
export const UNDO_MS = 6000;
export const timers = { later: (run, ms) => setTimeout(run, ms), cancel: (id) => clearTimeout(id) };
// Keys that move to the toast or hold a modifier: reaching Undo is not another action.
const NOT_AN_ACTION = new Set(["Tab", "Shift", "Control", "Alt", "Meta"]);
let undo = null; // {timer, onAction} while the toast shows

function putAwayUndo() {
  if (!undo) return;
  timers.cancel(undo.timer);
  document.removeEventListener("click", undo.onAction, true);
  document.removeEventListener("keydown", undo.onAction, true);
  undo = null;
  $("undo-toast").hidden = true;
}

export function offerUndo(text, ids, restore) {
  putAwayUndo();
  const toast = $("undo-toast");
  toast.querySelector(".text").textContent = text;
  toast.hidden = false;
  const onAction = (event) => {
    if (toast.contains(event.target) || NOT_AN_ACTION.has(event.key)) return;
    putAwayUndo();
  };
  undo = { timer: timers.later(putAwayUndo, UNDO_MS), onAction };
  // A click, not a press: the toast going moves what is under it, and a press that
  // moved its button away would lose its click.
  document.addEventListener("click", onAction, true);
  document.addEventListener("keydown", onAction, true);
  $("undo").onclick = guarded(async () => {
    putAwayUndo();
    for (const id of ids) await restore(id);
  });
}

/// The banners' own buttons: dismiss, retry all, download the model, check again.
export function wireBanners() {
  // Only the banners' own: the Ask panel's × shares their look (`.dismiss`), not this.
  for (const dismiss of document.querySelectorAll("button.dismiss[data-banner]")) {
    dismiss.addEventListener("click", () => {
      const banner = $(dismiss.dataset.banner);
      if (banner.id === "expiry-banner") expiry.answered();
      update((s) => s.banners.dismissed.set(banner.id, banner.dataset.says));
      banner.hidden = true;
    });
  }
  for (const [button, on] of [["expiry-yes", true], ["expiry-no", false]]) {
    $(button).addEventListener("click", guarded(async () => {
      const answer = await api.chooseExpiry(on);
      update((s) => (s.service.expiry = answer));
      // Every note's expiry moved with the answer: the list is read again with it.
      if (on) await loadNotes();
    }));
  }
  $("retry").addEventListener("click", guarded(async () => {
    // Optimistic (docs/DESIGN.md, "The inbox page"): the banner goes at once, and the
    // pending line says what is being retried; the real counts follow live.
    update(({ service, banners }) => {
      banners.retry = { sent: service.counts.failed };
      service.counts = { ...service.counts, pending: service.counts.pending + service.counts.failed, failed: 0 };
    });
    flush();
    await api.retryAllFailed();
  }));
  $("pull-model").addEventListener("click", async () => {
    // Its steps come on the live feed (model_pull); the answer streams the same ones.
    update((s) => (s.service.pull = { state: "running", status: "starting" }));
    try {
      await api.pullModel();
    } catch (error) {
      if (error instanceof api.NoSession) return;
      update((s) => (s.service.pull = { state: "failed", error: error.message }));
    }
  });
  $("recheck").addEventListener("click", guarded(async () => {
    if (state.banners.recheck && state.banners.recheck.checking) return;
    update((s) => (s.banners.recheck = { checking: true }));
    try {
      const health = await api.recheckProvider();
      update((s) => {
        s.service.health = health;
        s.banners.recheck = health.state === "ready" ? null : { at: new Date().toISOString() };
      });
    } catch (failure) {
      update((s) => (s.banners.recheck = null));
      throw failure;
    }
  }));
}
