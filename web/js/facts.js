// Facts about notes and limits that are the service's rules, read from what the service
// sends (a note's `expired`, `/api/status`'s `limits`) so the page never repeats a rule
// the service owns. One function per fact.

/// Whether a note is expired (active, never kept, older than `expiry.days`), as the
/// service said when it sent the note.
export function isExpired(note) {
  return note.expired === true;
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
