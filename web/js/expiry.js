// When the page asks about notes past `expiry.days` (docs/DESIGN.md, "The inbox page",
// its expiry banner): the question is calm, not a daily nag. It is asked when there
// are such notes and it was not answered (looked through, all kept, all trashed, or
// put away) in the last week; the answer's time is kept in this origin's storage, so
// a reload does not ask again.

const ANSWERED_KEY = "inkling.expiryAnsweredAt";

/// How long an answer stands before the page asks again.
export const ASK_AGAIN_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/// Whether to ask now: `expired` notes, the last answer at `answeredAt` (ms since the
/// epoch, or null), the time `now` (ms).
export function reviewDue(expired, answeredAt, now) {
  if (expired <= 0) return false;
  return answeredAt == null || now - answeredAt >= ASK_AGAIN_AFTER_MS;
}

/// The last answer's time, or null.
export function answeredAt() {
  const kept = Number(localStorage.getItem(ANSWERED_KEY));
  return Number.isFinite(kept) && kept > 0 ? kept : null;
}

/// The question was answered now.
export function answered(now = Date.now()) {
  localStorage.setItem(ANSWERED_KEY, String(now));
}
