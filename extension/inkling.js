// What the toolbar button and the options page share: where inkling is, the paired
// token, and the two calls the extension makes (POST /pair, POST /api/clip), each
// failure said in plain words with what to do.
//
// The token is the capture-only one `inkling pair` hands out: it can save notes and
// nothing else, so it is kept in the extension's local storage (never synced).

export const DEFAULT_PORT = 7373;

/** The settings: {port, token, deviceName}. */
export async function settings() {
  const kept = await chrome.storage.local.get(["port", "token", "deviceName"]);
  return {
    port: Number.isInteger(kept.port) ? kept.port : DEFAULT_PORT,
    token: typeof kept.token === "string" ? kept.token : "",
    deviceName: typeof kept.deviceName === "string" ? kept.deviceName : "",
  };
}

export function baseUrl(port) {
  return `http://127.0.0.1:${port}`;
}

const NOT_RUNNING = "inkling isn't running — start it with `inkling` (or `inkling run`), then try again.";

/** Why a call failed, in words, from its answer. */
async function refusal(response, unauthorized) {
  if (response.status === 401) return unauthorized;
  let said = "";
  try {
    said = (await response.json()).error || "";
  } catch (_) {
    // Not inkling's JSON: say the status alone.
  }
  return said ? `inkling refused it: ${said}` : `inkling answered ${response.status}.`;
}

/** POST url with a JSON body; {response} or {error} (inkling not reachable). */
async function post(url, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    return { response: await fetch(url, { method: "POST", headers, body: JSON.stringify(body) }) };
  } catch (_) {
    return { error: NOT_RUNNING };
  }
}

/** Trades a pairing code for a capture-only token; {ok, name} or {ok: false, error}. */
export async function pair(port, code, name) {
  const { response, error } = await post(`${baseUrl(port)}/pair`, { code, name });
  if (error) return { ok: false, error };
  if (response.status !== 201) {
    let said = "";
    try {
      said = (await response.json()).error || "";
    } catch (_) {
      // Fall through to the status.
    }
    return { ok: false, error: said || `inkling answered ${response.status}.` };
  }
  const paired = await response.json();
  await chrome.storage.local.set({ port, token: paired.token, deviceName: paired.name });
  return { ok: true, name: paired.name };
}

/** Saves a page; {ok, note} or {ok: false, error}. */
export async function clip(page) {
  const { port, token } = await settings();
  if (!token) {
    return { ok: false, error: "This browser is not paired with inkling yet: run `inkling pair` and enter its code in the extension's options." };
  }
  if (!/^https?:\/\//i.test(page.url || "")) {
    return { ok: false, error: "Only web pages (http and https) can be saved." };
  }
  const { response, error } = await post(`${baseUrl(port)}/api/clip`, page, token);
  if (error) return { ok: false, error };
  if (response.status !== 201) {
    const unpaired = "This browser is no longer paired with inkling (it was revoked, or inkling's data was reset): pair it again with a code from `inkling pair`.";
    return { ok: false, error: await refusal(response, unpaired) };
  }
  return { ok: true, note: await response.json() };
}
