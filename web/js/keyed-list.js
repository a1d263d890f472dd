// The one list renderer, for the notes (and search hits), the trash and the tags:
// it brings a container's children in line with a list of items by key, touching
// only what differs. An item whose `data` changed (compared field by field) is made
// again in the same element (which keeps its place, its focus and the size the
// browser remembers for it, so nothing below it moves); a new one is put in its
// place; a gone one is taken out. An item `held` (a card being edited) is left as
// it is, and made again once it is no longer held.

const lists = new WeakMap(); // container → Map(key → {data, element, stale})

function sameData(a, b) {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/// `items`: [{key, data}]; `make(data, element)` fills `element` (an `li`) from data.
export function renderKeyed(container, items, make, held = () => false) {
  let entries = lists.get(container);
  if (!entries) {
    entries = new Map();
    lists.set(container, entries);
  }
  const wanted = new Set();
  let cursor = container.firstElementChild;
  for (const { key, data } of items) {
    wanted.add(key);
    let entry = entries.get(key);
    if (!entry) {
      const element = document.createElement("li");
      make(data, element);
      entry = { data, element, stale: false };
      entries.set(key, entry);
    } else if (held(key)) {
      entry.stale = true;
    } else if (entry.stale || !sameData(entry.data, data)) {
      make(data, entry.element);
      entry.data = data;
      entry.stale = false;
    }
    if (entry.element !== cursor) container.insertBefore(entry.element, cursor);
    else cursor = cursor.nextElementSibling;
  }
  for (const [key, entry] of entries) {
    if (!wanted.has(key)) {
      entry.element.remove();
      entries.delete(key);
    }
  }
}

/// The element shown for `key` in `container`, if any.
export function elementFor(container, key) {
  const entry = lists.get(container)?.get(key);
  return entry ? entry.element : null;
}

/// The item is made again at the next render, whatever its data (its element was
/// taken over, by an edit form say).
export function invalidate(container, key) {
  const entry = lists.get(container)?.get(key);
  if (entry) entry.stale = true;
}
