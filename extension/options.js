// The options page: pair with a code from `inkling pair`, and say whether this browser
// is paired and how the last save went.

import { pair, settings } from "./inkling.js";

const form = document.getElementById("pair");
const result = document.getElementById("result");
const state = document.getElementById("state");

async function showState() {
  const { token, deviceName, port } = await settings();
  document.getElementById("port").value = String(port);
  const { lastClip } = await chrome.storage.local.get("lastClip");
  state.textContent = token
    ? `Paired as "${deviceName}" with inkling on port ${port}.`
    : "Not paired yet.";
  if (lastClip && !lastClip.ok) state.textContent += ` The last save failed: ${lastClip.error}`;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const port = Number(document.getElementById("port").value);
  const code = document.getElementById("code").value.trim();
  const name = document.getElementById("name").value.trim();
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    result.className = "error";
    result.textContent = "The port is a number from 1 to 65535 (inkling's is 7373 unless you changed http.port).";
    return;
  }
  // Asked within the click, before any other await: Firefox grants a permission only
  // there. Already granted for the manifest's port (Chromium at install; Firefox 127
  // and later too), it answers true at once; another port must be in the manifest.
  const origin = `http://127.0.0.1:${port}/*`;
  let reachable = false;
  try {
    reachable = await chrome.permissions.request({ origins: [origin] });
  } catch (_) {
    reachable = false;
  }
  if (!reachable) {
    result.className = "error";
    result.textContent = `This extension may not reach inkling on port ${port}: add "${origin}" to host_permissions in its manifest.json and reload it (in Firefox: allow it in the add-on's Permissions tab).`;
    return;
  }
  result.className = "";
  result.textContent = "Pairing…";
  const outcome = await pair(port, code, name);
  result.className = outcome.ok ? "" : "error";
  result.textContent = outcome.ok
    ? `Paired. Click the inkling button in the toolbar to save a page.`
    : outcome.error;
  document.getElementById("code").value = "";
  await showState();
});

if (navigator.userAgent.includes("Firefox/")) {
  document.getElementById("name").value = "Firefox clipper";
}
// Marks the page ready once its state is shown (the fields are then the person's).
showState().then(() => {
  document.body.dataset.ready = "true";
});
