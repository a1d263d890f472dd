// Facts about notes and limits that are the service's rules, read from what the service
// sends (a note's `expired`, `/api/status`'s `limits`) so the page never repeats a rule
// the service owns. One function per fact.

/// Whether a note is expired now: past the `expires_at` the service sent (which it
/// leaves empty for a note kept or in the trash), so a page left open keeps up.
export function isExpired(note) {
  return note.expires_at != null && Date.parse(note.expires_at) <= Date.now();
}

/// How many bytes of notes go in one import request: under the service's request
/// limit, with room for the JSON around them.
export function importBatchBytes(limits) {
  return Math.floor(limits.request_bytes * 0.75);
}

/// The longest tag, in characters (unknown until the status has come).
export function tagChars(limits) {
  return limits ? limits.tag_chars : undefined;
}
