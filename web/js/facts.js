// Facts about notes and limits that are the service's rules. The service sends them
// (a note's `expired` and `expires_at`, `/api/status`'s `limits`); each function here
// uses what was sent, and computes it the old way only when a service too old to
// send it answered. One function per fact, so the fallback goes in one place.

/// Whether a note is expired: the service's `expired` when sent; otherwise active,
/// never kept, older than `expiry.days`.
export function isExpired(note, expiryDays) {
  if (typeof note.expired === "boolean") return note.expired;
  const age = Date.now() - Date.parse(note.created_at);
  return !note.deleted_at && !note.kept_at && age > expiryDays * 86_400_000;
}

/// How many bytes of notes go in one import request: under the service's request
/// limit (twice `http.max_body_bytes`), with room for the JSON around them. Without
/// `limits`, 100,000 (under the default 128 KiB).
export function importBatchBytes(limits) {
  if (limits && limits.request_bytes) return Math.floor(limits.request_bytes * 0.75);
  return 100_000;
}

/// The longest tag, in characters.
export function tagChars(limits) {
  return (limits && limits.tag_chars) || 32;
}
