// The notes list's window: which notes the list holds, so that a page left open for a
// week holds about as many cards as a fresh one. Plain rules over counts and the
// scroll position; notes.js carries them out.
//
// The list holds the notes from the top down to its last loaded one; older ones are
// loaded page by page while scrolling (the API pages by a `before` cursor: the last
// held note). So the window only ever has to end somewhere, and "dropped" just means
// "not loaded yet": the paging brings the notes back when the person scrolls to them.
// - At the top of the list (the usual place of a page left open), a new note goes on
//   top and the list keeps its first KEEP notes: the screen and a few screens below.
// - Further down, a note newer than the top is not put in (the list would grow above
//   the person's place with every arrival); the list is loaded anew when the person
//   is back at the top. A note older than the last held one is left to the paging.
// - Back at the top, the list drops what is past KEEP.
// A note being edited in its card is never dropped (its form and what is typed).

/// How many notes the list keeps at its top: a screen of compact cards is 8–12 of them,
/// so this is the screen and about four more, and the first page (50) fits.
export const KEEP = 60;

/// How many notes to keep of `length`, the note being edited at `held` (-1: none).
export function keepCount({ length, atTop, held = -1 }) {
  if (!atTop) return length;
  return Math.min(length, Math.max(KEEP, held + 1));
}

/// What to do with a note the list does not hold but shows (the filter matches): `at`
/// is its place by date among the `length` held notes (-1: older than all of them).
/// Returns `{insert}` (the index to put it at, or null), `newerLater` (the list is to
/// be loaded anew once the person is at the top), `hasMore` (older notes are left to
/// the paging) and `keep` (how many notes to keep after it is put in).
export function arrival({ at, length, hasMore, atTop, held = -1 }) {
  if (length === 0) return { insert: 0, newerLater: false, hasMore, keep: 1 };
  if (at < 0 && hasMore) return { insert: null, newerLater: false, hasMore, keep: length };
  if (!atTop && at === 0) return { insert: null, newerLater: true, hasMore, keep: length };
  if (!atTop && at < 0) return { insert: null, newerLater: false, hasMore: true, keep: length };
  const insert = at < 0 ? length : at;
  const heldAfter = held >= insert ? held + 1 : held;
  const keep = keepCount({ length: length + 1, atTop, held: heldAfter });
  return { insert, newerLater: false, hasMore: hasMore || keep < length + 1, keep };
}
