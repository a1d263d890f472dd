// The stats view: this week at a glance (counted from the notes there are), the top
// tags, the oldest note waiting, the chart of the last 30 days (the usage log's
// record, drawn as SVG, said in words for a screen reader) and the usage log's daily
// counters behind "Diagnostics".

import * as api from "./api.js";
import { t, raw, locale, shortDay } from "./i18n.js";
import { $, headline, noteAddress, tagButton, timeElement } from "./dom.js";
import { filterByTag, openNote, whenShown } from "./navigation.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/// The last `n` days as "YYYY-MM-DD" (UTC, as the usage log counts them), oldest first.
function lastDays(n) {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

// This week's notes are read a page of this many at a time, at most WEEK_PAGES pages.
const WEEK_PAGE = 500;
const WEEK_PAGES = 10;

/// This week's notes among `notes` (newest first): how many were written since `since`
/// ("YYYY-MM-DD", UTC, as the chart's days), how many of them the AI has done, and
/// whether an older note was reached (no need to read further).
export function weekCounts(notes, since) {
  const week = notes.filter((note) => note.created_at.slice(0, 10) >= since);
  return {
    written: week.length,
    done: week.filter((note) => note.ai_status === "done").length,
    reachedOlder: week.length < notes.length,
  };
}

/// This week at a glance, counted from the notes there are (not the usage log's
/// events: a note trashed since, or the AI run again on a note, made it say 39 notes
/// where the list had 32).
async function countThisWeek(since) {
  const total = { written: 0, done: 0 };
  let before;
  for (let page = 0; page < WEEK_PAGES; page += 1) {
    const notes = await api.notes({ limit: WEEK_PAGE, before });
    const counts = weekCounts(notes, since);
    total.written += counts.written;
    total.done += counts.done;
    if (counts.reachedOlder || notes.length < WEEK_PAGE) break;
    before = notes[notes.length - 1].id;
  }
  return total;
}

export async function loadStats() {
  const since = lastDays(7)[0];
  const [stats, tags, waiting, week] = await Promise.all([
    api.stats(),
    api.tags(),
    api.notes({ status: "pending", limit: 500 }),
    countThisWeek(since),
  ]);
  const counted = (day) => stats.days[day] || { captured: 0, aiDone: 0 };

  // At a glance: this week, the top tags, the oldest note still waiting.
  $("stat-week").textContent = t("thisWeekValue", { n: week.written });
  $("stat-week-ai").textContent = t("thisWeekAi", { n: week.done });
  const top = $("stat-tags");
  top.replaceChildren();
  for (const { tag, count } of tags.slice(0, 5)) {
    top.append(tagButton(tag, filterByTag), ` ${count.toLocaleString(locale())} `);
  }
  if (!tags.length) top.textContent = t("tagsEmpty");
  const oldest = waiting[waiting.length - 1];
  const oldestCell = $("stat-oldest");
  oldestCell.replaceChildren();
  if (oldest) {
    const link = document.createElement("a");
    link.href = noteAddress(oldest.id);
    link.dir = "auto";
    link.textContent = headline(oldest);
    link.addEventListener("click", (event) => {
      event.preventDefault();
      openNote(oldest.id);
    });
    oldestCell.append(link, " · ", timeElement(oldest.created_at));
  } else {
    oldestCell.textContent = t("nothingWaiting");
  }

  drawChart(lastDays(30).map((day) => [day, counted(day)]));
  diagnosticsTable(stats);
}

// The scale's labels: 11 px text, a figure or a separator at most this wide.
const LABEL_CHAR_PX = 7;

/// Notes written per day as bars, the AI's per day as a line, every one of the last 30
/// days on the axis (a day with none is a gap, so day one reads as one bar), with a
/// scale and dates, and the same said in words for a screen reader. `days`:
/// [["YYYY-MM-DD", {captured, aiDone}]], oldest first.
export function drawChart(days) {
  const chart = $("chart");
  chart.replaceChildren();
  const max = Math.max(1, ...days.map(([, c]) => Math.max(c.captured, c.aiDone)));
  // A round top for the scale: 1, 2, 5, 10, 20, 50…
  const step = [1, 2, 5].map((m) => m * 10 ** Math.floor(Math.log10(max))).find((s) => s * Math.ceil(max / s) >= max);
  const ceiling = Math.max(step, Math.ceil(max / step) * step);
  // The plot starts right of its widest scale label ("20,000" needs more room than
  // "5"), so no label is cut at the chart's edge.
  const widest = ceiling.toLocaleString(locale()).length;
  const [left, right, top, bottom] = [Math.max(34, 12 + widest * LABEL_CHAR_PX), 592, 12, 150];
  const slot = (right - left) / days.length;
  const y = (value) => bottom - (value / ceiling) * (bottom - top);
  for (const value of [0, ceiling / 2, ceiling]) {
    chart.append(svg("line", { class: "axis", x1: left, x2: right, y1: y(value), y2: y(value) }));
    chart.append(svg("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end" }, Number.isInteger(value) ? value.toLocaleString(locale()) : ""));
  }
  days.forEach(([day, c], i) => {
    const height = bottom - y(c.captured);
    if (height > 0) {
      const bar = svg("rect", { class: "bar", x: left + i * slot + 2, y: y(c.captured), width: Math.max(slot - 4, 1), height });
      bar.append(svg("title", {}, `${shortDay(day)}: ${c.captured} / ${c.aiDone}`));
      chart.append(bar);
    }
  });
  const points = days.map(([, c], i) => `${left + i * slot + slot / 2},${y(c.aiDone)}`).join(" ");
  chart.append(svg("polyline", { class: "line", points }));
  for (const i of [0, Math.floor(days.length / 2), days.length - 1]) {
    const anchor = i === 0 ? "start" : i === days.length - 1 ? "end" : "middle";
    const x = i === 0 ? left : i === days.length - 1 ? right : left + i * slot + slot / 2;
    chart.append(svg("text", { x, y: bottom + 18, "text-anchor": anchor }, shortDay(days[i][0])));
  }
  const captured = days.reduce((total, [, c]) => total + c.captured, 0);
  const done = days.reduce((total, [, c]) => total + c.aiDone, 0);
  const busiest = days.reduce((best, entry) => (entry[1].captured > best[1].captured ? entry : best), days[0]);
  $("chart-summary").textContent = captured
    ? t("chartSummary", {
        captured: t("notesCount", { n: captured }),
        done: t("notesCount", { n: done }),
        day: shortDay(busiest[0]),
        most: t("notesCount", { n: busiest[1].captured }),
      })
    : t("chartEmpty");
}

/// The developer's daily counters, behind "Diagnostics".
function diagnosticsTable(stats) {
  const days = Object.entries(stats.days).sort(([a], [b]) => (a < b ? 1 : -1));
  const head = document.createElement("tr");
  for (const column of raw("columns")) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = column;
    head.append(th);
  }
  $("stats-table").tHead.replaceChildren(head);
  const rows = days.map(([day, c]) => {
    const row = document.createElement("tr");
    const values = [day, c.captured, c.aiDone, c.aiFailedSchema, c.aiFailedOther, c.ollamaRechecks, c.aiRetries];
    for (const value of values) {
      const td = document.createElement("td");
      td.textContent = typeof value === "number" ? value.toLocaleString(locale()) : String(value);
      row.append(td);
    }
    return row;
  });
  if (!rows.length) {
    const row = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 7;
    td.textContent = t("noStats");
    row.append(td);
    rows.push(row);
  }
  $("stats-table").tBodies[0].replaceChildren(...rows);
}

whenShown("stats", () => loadStats().catch(() => {}));
