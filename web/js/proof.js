// The page's proof of the service, and the service's of the page, before anything that
// matters is sent (src/page_proof.rs says the same from the service's side).
//
// While inkling is stopped, another program can listen on its port: it is this page's
// own origin, so whatever the page sends goes to it. So the page keeps no bearer
// between runs. It keeps its session's id (public: it opens nothing) and its key, a
// WebCrypto HMAC key imported as non-extractable, in IndexedDB (no script, this
// origin's included, can read the key's bytes back). Before it sends anything after a
// lost connection, it sends a fresh nonce and checks the answer with that key: only
// the service that derived the key can answer. Then it answers the service's challenge
// with the same key and gets an access, a bearer kept only in memory here and in the
// service, which dies with either. Until then nothing is sent: no bearer, no note.

const DB_NAME = "inkling";
const STORE = "page";
const RECORD = "session";
const encoder = new TextEncoder();

/// The service did not prove itself: it is not running, or something else answers.
export class Unproven extends Error {}
/// The service says this page's session is not open (ended, or never was).
export class NotOpen extends Error {}

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(text) {
  if (typeof text !== "string" || text.length % 2 || !/^[0-9a-f]*$/i.test(text)) return null;
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function database() {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(DB_NAME, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () => reject(opening.error);
  });
}

async function inStore(mode, act) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const request = act(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

/// The session this page holds: {id, key}, or null.
export async function heldSession() {
  return (await inStore("readonly", (store) => store.get(RECORD))) || null;
}

/// Keeps a session the service just opened: its key (hex) becomes a non-extractable
/// CryptoKey; its bytes are not kept anywhere.
export async function keepSession(id, keyHex) {
  const raw = unhex(keyHex);
  if (!raw || raw.length !== 32) throw new Error("the service sent a malformed session key");
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  raw.fill(0);
  await inStore("readwrite", (store) => store.put({ id, key }, RECORD));
}

// The port the proofs name: a squatter on this port cannot pass a nonce to an inkling
// on another port and relay its answer.
function port() {
  return location.port || (location.protocol === "https:" ? "443" : "80");
}

function nonce() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}

/// Whether `proof` is the service's HMAC of this port and `nonce` under `key`.
export async function isServiceProof(key, nonce, proof) {
  const bytes = unhex(proof);
  if (!bytes || bytes.length !== 32) return false;
  return crypto.subtle.verify("HMAC", key, bytes, encoder.encode(`inkling service v1\n${port()}\n${nonce}`));
}

async function answer(key, challenge) {
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(`inkling page v1\n${port()}\n${challenge}`)));
}

// Every request of the proof: no credential, nothing from any cache.
const plain = { credentials: "omit", cache: "no-store" };

/// Whether a service worker stands between this page and the network (inkling has
/// none: another program's, registered while inkling was stopped, which took this
/// tab over). Everything the page sends passes through it.
export function underServiceWorker() {
  return Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
}

/// Proves the service and gets an access for this run of it. Throws Unproven when the
/// service cannot be reached or does not prove itself (nothing but the session's id
/// and a nonce was sent), NotOpen when it says the session is not open.
///
/// Under a service worker, nothing past the nonce is sent: the worker is unregistered,
/// and once the service has proved itself the page is loaded again, from the network
/// (the worker could answer the challenge itself with the page's answer).
export async function prove() {
  const held = await heldSession();
  if (!held) throw new NotOpen("no session");
  const underWorker = underServiceWorker();
  if (underWorker) await removeServiceWorkers();
  const sent = nonce();
  let response;
  try {
    const query = new URLSearchParams({ session: held.id, nonce: sent });
    response = await fetch(`/session/proof?${query}`, plain);
  } catch (error) {
    throw new Unproven(`inkling is not reachable: ${error.message}`);
  }
  if (response.status === 401) throw new NotOpen("the session is not open");
  let body = null;
  if (response.ok) body = await response.json().catch(() => null);
  if (!body || !(await isServiceProof(held.key, sent, body.proof))) {
    // Not inkling (or not this install's): it gets nothing more.
    throw new Unproven(`what answers on port ${port()} did not prove it is inkling (HTTP ${response.status})`);
  }
  if (underWorker) {
    location.reload();
    throw new Unproven("loaded again without the service worker");
  }
  try {
    response = await fetch("/session/access", {
      ...plain,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ session: held.id, challenge: body.challenge, answer: await answer(held.key, body.challenge) }),
    });
  } catch (error) {
    throw new Unproven(`inkling went away: ${error.message}`);
  }
  if (response.status === 401) throw new NotOpen("the session is not open");
  const granted = response.ok ? await response.json().catch(() => null) : null;
  if (!granted || typeof granted.access !== "string") throw new Unproven(`no access (HTTP ${response.status})`);
  return granted.access;
}

/// Removes every service worker of this origin (inkling has none: one here was put by
/// another program while inkling was stopped), and the caches such a worker fills.
export async function removeServiceWorkers() {
  if (navigator.serviceWorker) {
    for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
  }
  if (globalThis.caches) {
    for (const name of await caches.keys()) await caches.delete(name);
  }
}
