// The timeline's side panel: the selected slice's or instant's details (times to the ns, its
// thread, process and role, arguments; its parent and flows as links that jump to the other
// end), the statistics of an area selection (sortable by any column; a row selects the
// longest slice of that name), and the search with next/previous and the match count.
import { getJson } from "../api";
import { el, formatNs, formatNsExact, formatNsShort } from "../format";
import { sortable, numberColumn } from "./sortable_table";

export interface SliceDetail {
  id: number;
  name: string;
  category: string;
  ts: number;
  dur: number;
  track: number;
  depth: number;
  tid: number;
  thread: string;
  pid: number;
  process: string;
  role: string;
  unclosed: boolean;
  parent?: { id: number; name: string };
  args: Record<string, unknown>;
  flows: { direction: string; category: string; slice: number; name: string; ts: number; dur: number; track: number; depth: number }[];
}

export interface InstantDetail {
  id: number;
  name: string;
  category: string;
  ts: number;
  track: number;
  tid: number;
  thread: string;
  pid: number;
  role: string;
  args: Record<string, unknown>;
}

// Where a click in the panel goes: a slice (its time, track and depth known) or one to look up.
export type Jump = (slice: number, place?: { ts: number; dur: number; track: number }) => void;

function kvTable(rows: [string, string | Node][]): HTMLElement {
  return el("table", { class: "kv" }, ...rows.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))));
}

function jumpLink(text: string, id: string, onClick: () => void): HTMLElement {
  const a = el("a", { href: "javascript:void 0", class: "panel-jump", "data-jump": id }, text);
  a.addEventListener("click", (e) => {
    e.preventDefault();
    onClick();
  });
  return a;
}

export function sliceDetails(d: SliceDetail, merged: number, jump: Jump): HTMLElement[] {
  const rows: [string, string | Node][] = [
    ["name", d.name],
    ["category", d.category],
    ["start", formatNsExact(d.ts)],
    ["end", formatNsExact(d.ts + d.dur)],
    ["duration", formatNsExact(d.dur)],
    ["thread", `${d.thread} ${d.tid}`],
    ["process", `${d.role} · pid ${d.pid}`],
    ["depth", String(d.depth)],
  ];
  if (d.parent) rows.push(["parent", jumpLink(d.parent.name, `parent-${d.parent.id}`, () => jump(d.parent!.id))]);
  if (d.unclosed) rows.push(["note", "its end was missing; closed at the end of the data"]);
  for (const [k, v] of Object.entries(d.args)) rows.push([k, String(v)]);
  const parts: HTMLElement[] = [
    el("div", { id: "timeline-details-name" }, el("b", {}, d.name)),
  ];
  if (merged > 1) parts.push(el("div", { class: "hint" }, `${merged} slices merged at this zoom; zoom in to separate them.`));
  parts.push(kvTable(rows));
  if (d.flows.length) {
    const list = el("div", { id: "timeline-flows" }, el("div", { class: "hint" }, "Flows (click to jump to the other end)"));
    for (const f of d.flows) {
      const arrow = f.direction === "out" ? "→" : "←";
      list.append(
        el("div", { class: "flow-entry" },
          jumpLink(`${arrow} ${f.name}`, `flow-${f.slice}`, () => jump(f.slice, { ts: f.ts, dur: f.dur, track: f.track })),
          el("span", { class: "hint" }, ` ${f.category} · ${formatNs(f.ts)}`)),
      );
    }
    parts.push(list);
  }
  return parts;
}

export function instantDetails(d: InstantDetail): HTMLElement[] {
  const rows: [string, string][] = [
    ["name", d.name],
    ["category", d.category],
    ["time", formatNsExact(d.ts)],
    ["thread", `${d.thread} ${d.tid}`],
    ["process", `${d.role} · pid ${d.pid}`],
  ];
  for (const [k, v] of Object.entries(d.args)) rows.push([k, String(v)]);
  return [el("div", { id: "timeline-details-name" }, el("b", {}, d.name)), el("div", { class: "hint" }, "instant"), kvTable(rows)];
}

// [name, count, total, max, mean, longest slice]
export type AreaRow = [string, number, number, number, number, number];
export interface AreaStatistics {
  slices: number;
  names: number;
  tracks: number;
  rows: AreaRow[];
}

export function areaStatistics(stats: AreaStatistics, t0: number, t1: number, pick: (row: AreaRow) => void): HTMLElement[] {
  const table = el("table", { class: "data area-table", id: "timeline-range-table" });
  const nameCell = (row: AreaRow) => {
    const a = el("a", { href: "javascript:void 0", title: `${row[0]}: select its longest slice` }, row[0]);
    a.addEventListener("click", (e) => {
      e.preventDefault();
      pick(row);
    });
    return a;
  };
  const draw = sortable<AreaRow>(table, 2, 500);
  draw(
    [
      { title: "Name", numeric: false, value: (r) => r[0], cell: nameCell },
      numberColumn("Count", (r) => r[1], (v) => v.toLocaleString("en-US")),
      numberColumn("Total", (r) => r[2], formatNsShort),
      numberColumn("Avg", (r) => r[4], formatNsShort),
      numberColumn("Max", (r) => r[3], formatNsShort),
    ],
    stats.rows,
  );
  return [
    el("div", { id: "timeline-area-summary" },
      el("b", {}, `Area ${formatNs(t1 - t0)}`),
      ` · ${stats.tracks} track${stats.tracks === 1 ? "" : "s"} · ${stats.slices.toLocaleString("en-US")} slices starting inside, ${stats.names} names${stats.names > stats.rows.length ? ` (top ${stats.rows.length})` : ""}`),
    el("div", { class: "area-wrap" }, table),
  ];
}

type Match = [slice: number, ts: number, dur: number, track: number, depth: number, name: string];
const PAGE = 200;

// The search box: Enter or ▶ goes to the next match in time order, Shift+Enter or ◀ to the
// previous one; "i / n" counts them. Matches are fetched a page at a time, in order.
export class Search {
  readonly box = el("input", { id: "timeline-search", placeholder: "search slices by name (Enter: next)" });
  readonly previous = el("button", { id: "timeline-search-prev", title: "previous match (Shift+Enter)" }, "◀");
  readonly next = el("button", { id: "timeline-search-next", title: "next match (Enter)" }, "▶");
  readonly count = el("span", { id: "timeline-search-count", class: "hint" });
  readonly results = el("div", { class: "search-results", id: "timeline-search-results" });
  private text = "";
  private total = 0;
  private index = -1;
  private pages = new Map<number, Match[]>();

  constructor(private readonly go: (match: Match) => void) {
    this.box.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      void this.step(e.shiftKey ? -1 : 1);
    });
    this.previous.addEventListener("click", () => void this.step(-1));
    this.next.addEventListener("click", () => void this.step(1));
  }

  element(): HTMLElement {
    return el("div", { class: "panel" }, el("div", { class: "search-row" }, this.box, this.previous, this.next), this.count, this.results);
  }

  private async page(offset: number): Promise<Match[]> {
    const start = Math.floor(offset / PAGE) * PAGE;
    let page = this.pages.get(start);
    if (!page) {
      const found = await getJson<{ total: number; matches: Match[] }>(`/api/search?q=${encodeURIComponent(this.text)}&offset=${start}&limit=${PAGE}`);
      this.total = found.total;
      page = found.matches;
      this.pages.set(start, page);
    }
    return page;
  }

  // A new text starts at its first match; the same text moves by `direction`.
  async step(direction: number): Promise<void> {
    const text = this.box.value.trim();
    if (!text) return;
    if (text !== this.text) {
      this.text = text;
      this.pages.clear();
      this.index = -1;
      const first = await this.page(0);
      this.results.replaceChildren(...first.map((m) => this.resultRow(m)));
      if (!this.total) {
        this.count.textContent = "no match";
        return;
      }
      direction = 1;
    }
    if (!this.total) return;
    this.index = (this.index + direction + this.total) % this.total;
    const page = await this.page(this.index);
    const match = page[this.index % PAGE];
    this.count.textContent = `${(this.index + 1).toLocaleString("en-US")} / ${this.total.toLocaleString("en-US")}`;
    if (match) this.go(match);
  }

  private resultRow(m: Match): HTMLElement {
    const row = el("div", { "data-slice": String(m[0]) }, `${m[5]} @ ${formatNs(m[1])} (${formatNs(m[2])})`);
    row.addEventListener("click", () => this.go(m));
    return row;
  }
}
