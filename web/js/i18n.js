// The page's words (web/i18n.json, English and Korean) and how numbers, times and
// plurals are written in the page's language. `applyStrings` fills the fixed text of
// index.html (`data-i18n`, `data-i18n-placeholder`, `data-i18n-label`) and the help
// dialog's keys.

let strings = {};
let currentLocale = "en";
let plurals = new Intl.PluralRules("en");

export const locale = () => currentLocale;
/// A string as it is in i18n.json (a list, say: the help's keys, the table's columns).
export const raw = (key) => strings[key];

/// A string in the page's language. A plural string is an object of Intl.PluralRules
/// categories ("one", "other"), chosen by `values.n`; numbers are written the
/// locale's way.
export function t(key, values = {}) {
  let text = strings[key] ?? key;
  if (text && typeof text === "object" && !Array.isArray(text)) {
    text = text[plurals.select(Number(values.n ?? 0))] ?? text.other;
  }
  // One pass: a value is never read as a template (a tag named "{to}" is shown as it is).
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name];
    return typeof value === "number" ? value.toLocaleString(currentLocale) : String(value);
  });
}

export function applyStrings(all, wanted) {
  currentLocale = all[wanted] ? wanted : "en";
  strings = all[currentLocale];
  plurals = new Intl.PluralRules(currentLocale);
  document.documentElement.lang = currentLocale;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of document.querySelectorAll("[data-i18n-placeholder]")) {
    element.placeholder = t(element.dataset.i18nPlaceholder);
  }
  for (const element of document.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
  // The help's keys: the inbox has them, the quick-capture window does not.
  const keys = document.getElementById("help-keys");
  if (!keys) return;
  keys.replaceChildren();
  for (const [key, what] of strings.keys) {
    const term = document.createElement("dt");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    term.append(kbd);
    const description = document.createElement("dd");
    description.textContent = what;
    keys.append(term, description);
  }
}

/// "5 min ago", "yesterday", or the date for anything older than a week.
export function relativeTime(iso) {
  const then = Date.parse(iso);
  const seconds = Math.round((then - Date.now()) / 1000);
  const words = new Intl.RelativeTimeFormat(currentLocale, { numeric: "auto" });
  const abs = Math.abs(seconds);
  if (abs < 45) return t("justNow");
  if (abs < 3600) return words.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return words.format(Math.round(seconds / 3600), "hour");
  if (abs < 7 * 86_400) return words.format(Math.round(seconds / 86_400), "day");
  return new Date(then).toLocaleDateString(currentLocale, { year: "numeric", month: "short", day: "numeric" });
}

/// A day as a person reads it: "Dec 2" / "12월 2일".
export function shortDay(day) {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString(currentLocale, { month: "short", day: "numeric", timeZone: "UTC" });
}
