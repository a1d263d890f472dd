// Bare web addresses in a note's text, for the places that show it as text (a card's
// preview), by nearly the rule of the note view's renderer (src/render.rs, where
// linkify finds them): `http://` and `https://` only, and a sentence's closing
// punctuation is not part of the address. The two may cut an odd address differently.

const ADDRESS = /https?:\/\/[^\s<>"]+/giu;

/// Where an address found in running text really ends: without the punctuation that
/// closes the sentence or a bracket opened before it.
function trimmed(address) {
  let end = address.length;
  for (;;) {
    const last = address[end - 1];
    if (".,:;!?'*_".includes(last)) {
      end -= 1;
    } else if (last === ")" || last === "]") {
      const open = last === ")" ? "(" : "[";
      const inside = address.slice(0, end);
      if (inside.split(open).length >= inside.split(last).length) break;
      end -= 1;
    } else {
      break;
    }
  }
  return address.slice(0, end);
}

/// The text in order as parts: `{text}` and `{url}` (a web address to link).
export function linkParts(text) {
  const parts = [];
  let done = 0;
  for (const match of text.matchAll(ADDRESS)) {
    const url = trimmed(match[0]);
    if (url.length <= "https://".length) continue;
    if (match.index > done) parts.push({ text: text.slice(done, match.index) });
    parts.push({ url });
    done = match.index + url.length;
  }
  if (done < text.length) parts.push({ text: text.slice(done) });
  return parts;
}

/// `text` into `element`, its web addresses as links that open in a new tab.
export function appendLinkedText(element, text) {
  for (const part of linkParts(text)) {
    if (part.text !== undefined) {
      element.append(document.createTextNode(part.text));
    } else {
      const link = document.createElement("a");
      link.href = part.url;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.textContent = part.url;
      element.append(link);
    }
  }
}
