// The toolbar button: one click saves the current tab (its address, title and the text
// selected in it) as a note. The badge says how it went (✓, or ! with the reason in the
// button's tooltip); the last outcome is kept for the options page.

import { clip } from "./inkling.js";

/** The text selected in the tab; "" where a page cannot be read (the browser's own). */
async function selectionIn(tabId) {
  try {
    const [frame] = await chrome.scripting.executeScript({
      target: { tabId },
      func: () => String(globalThis.getSelection ? getSelection() : ""),
    });
    return typeof frame?.result === "string" ? frame.result : "";
  } catch (_) {
    return "";
  }
}

async function show(tabId, outcome) {
  const text = outcome.ok ? "✓" : "!";
  const title = outcome.ok ? "Saved to inkling" : outcome.error;
  await chrome.action.setBadgeText({ tabId, text });
  await chrome.action.setBadgeBackgroundColor({ tabId, color: outcome.ok ? "#2e7d32" : "#c62828" });
  await chrome.action.setTitle({ tabId, title });
  await chrome.storage.local.set({ lastClip: { ok: outcome.ok, error: outcome.error || "", at: Date.now() } });
}

/** Saves the tab: what the button does. */
export async function clipTab(tab) {
  const selection = await selectionIn(tab.id);
  const outcome = await clip({ url: tab.url || "", title: tab.title || "", selection });
  await show(tab.id, outcome);
  return outcome;
}

chrome.action.onClicked.addListener((tab) => {
  clipTab(tab);
});

// The options page's "Save a tab" (and the tests) ask the same of a tab by its id.
// Only the extension's own pages can send these messages.
chrome.runtime.onMessage.addListener((message, sender, answer) => {
  if (sender.id !== chrome.runtime.id || message?.kind !== "clip-tab") return false;
  chrome.tabs.get(message.tabId).then(clipTab).then(answer, (e) => answer({ ok: false, error: String(e) }));
  return true;
});
