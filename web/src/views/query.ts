// Query: read-only SQL over the run's tables, the database `aiprof export --type=db` writes
// (docs/db-schema.md; /api/query). Results as a sortable table; a row with a time
// (startNs/endNs/timestampNs, epoch ns) or an event id (API.id, TASK.globalTaskId,
// MSTX_EVENTS.rangeId, eventId: the slice row) opens that place on the timeline. Examples
// fill the box; the address keeps the query, so a result can be shared.
import { getJson } from "../api";
import { el } from "../format";
import { replaceParams, timelineLink, TimelineTarget } from "../router";
import { sortable } from "./sortable_table";

interface QueryResult {
  columns: string[];
  rows: (string | number | null)[][];
  truncated: boolean;
  ms: number;
  origin_ns: string;
}

const EXAMPLES: [string, string][] = [
  ["The slowest operators (each call: click a row for it on the timeline)",
   "SELECT a.id AS sliceId, s.value AS name, a.startNs, a.endNs, (a.endNs - a.startNs) / 1e3 AS dur_us\nFROM API a JOIN STRING_IDS s ON s.id = a.name\nWHERE a.category = (SELECT id FROM STRING_IDS WHERE value = 'cpu_op')\nORDER BY a.endNs - a.startNs DESC LIMIT 20"],
  ["Time per operator name",
   "SELECT s.value AS name, count(*) AS calls, sum(a.endNs - a.startNs) / 1e3 AS total_us\nFROM API a JOIN STRING_IDS s ON s.id = a.name\nWHERE a.category = (SELECT id FROM STRING_IDS WHERE value = 'cpu_op')\nGROUP BY a.name ORDER BY total_us DESC LIMIT 20"],
  ["Steps, longest first",
   "SELECT id AS step, loop, startNs, endNs, (endNs - startNs) / 1e6 AS ms\nFROM STEP_TIME ORDER BY endNs - startNs DESC"],
  ["Input waits (DataLoader fetches) by length",
   "SELECT a.id AS sliceId, s.value AS name, a.startNs, a.endNs, (a.endNs - a.startNs) / 1e6 AS ms\nFROM API a JOIN STRING_IDS s ON s.id = a.name\nWHERE s.value LIKE 'enumerate(DataLoader)%'\nORDER BY a.endNs - a.startNs DESC LIMIT 20"],
  ["Processes and threads",
   "SELECT p.pid, p.name, p.rankId, t.tid, t.name AS thread\nFROM PROCESSES p JOIN THREADS t ON t.globalPid = p.globalPid ORDER BY p.pid, t.tid"],
  ["Tables in this database", "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"],
];

const TIME_COLUMNS = ["startNs", "timestampNs", "ts"];
const SLICE_COLUMNS = ["sliceId", "eventId", "globalTaskId", "rangeId", "opId"];

// Epoch ns (a number, or a string past 2^53) → ns since the run's origin, exactly.
function sinceOrigin(value: string | number | null, origin: bigint): number | null {
  if (value === null || value === "") return null;
  try {
    return Number(BigInt(typeof value === "number" ? Math.round(value) : value) - origin);
  } catch {
    return null;
  }
}

function targetOf(result: QueryResult, row: (string | number | null)[]): TimelineTarget | null {
  const origin = BigInt(result.origin_ns);
  const column = (names: string[]) => result.columns.findIndex((c) => names.includes(c));
  const slice = column(SLICE_COLUMNS);
  const start = column(TIME_COLUMNS);
  const end = result.columns.indexOf("endNs");
  const target: TimelineTarget = {};
  if (slice >= 0 && typeof row[slice] === "number" && (row[slice] as number) >= 0) target.slice = row[slice] as number;
  if (start >= 0) {
    const t0 = sinceOrigin(row[start], origin);
    const t1 = end >= 0 ? sinceOrigin(row[end], origin) : null;
    if (t0 !== null) {
      const len = Math.max((t1 ?? t0) - t0, 1000);
      target.t0 = t0 - len * 0.5;
      target.t1 = (t1 ?? t0) + len * 0.5;
    }
  }
  return target.slice !== undefined || target.t0 !== undefined ? target : null;
}

export async function renderQuery(root: HTMLElement, params: URLSearchParams): Promise<void> {
  root.append(el("h2", {}, "Query (read-only SQL over the run's tables)"));
  root.append(
    el("div", { class: "hint" }, "The tables of aiprof export --type=db (docs/db-schema.md): times in epoch ns, names as STRING_IDS ids, event ids = the timeline's slices. SELECT and WITH only; at most 1,000 rows and 10 s per query. A row with startNs or an event id (sliceId, globalTaskId, rangeId, eventId) opens on the timeline."),
  );
  const text = el("textarea", { id: "query-text", rows: "7", spellcheck: "false" });
  text.value = params.get("q") ?? EXAMPLES[0][1];
  const runButton = el("button", { id: "query-run" }, "Run (Ctrl+Enter)");
  const status = el("span", { id: "query-status", class: "hint" });
  const examples = el("div", { id: "query-examples", class: "query-examples" });
  for (const [title, sql] of EXAMPLES) {
    const button = el("button", { title: sql }, title);
    button.addEventListener("click", () => {
      text.value = sql;
      void execute();
    });
    examples.append(button);
  }
  const schema = el("details", { id: "query-schema" }, el("summary", {}, "Tables and columns"));
  const results = el("table", { class: "data", id: "query-results" });
  root.append(
    el("div", { class: "query-box" }, text, el("div", { class: "toolbar" }, runButton, status)),
    el("div", { class: "hint" }, "Examples:"),
    examples,
    schema,
    el("div", { class: "table-wrap" }, results),
  );
  const drawResults = sortable<(string | number | null)[]>(results, -1, 1000);

  async function execute(): Promise<void> {
    const sql = text.value.trim();
    if (!sql) return;
    replaceParams("query", { q: sql });
    status.textContent = "running (the first query writes the run's database first)…";
    status.className = "hint";
    try {
      const result = await getJson<QueryResult>(`/api/query?q=${encodeURIComponent(sql)}&limit=1000`);
      const columns = result.columns.map((title, i) => ({
        title,
        numeric: result.rows.some((r) => typeof r[i] === "number"),
        value: (row: (string | number | null)[]) => row[i] ?? "",
        cell: (row: (string | number | null)[]): Node | string => {
          const value = row[i];
          if (i !== 0) return value === null ? "NULL" : String(value);
          const target = targetOf(result, row);
          return target ? timelineLink(value === null ? "NULL" : String(value), target) : value === null ? "NULL" : String(value);
        },
      }));
      drawResults(columns, result.rows);
      status.textContent = `${result.rows.length.toLocaleString("en-US")} row(s)${result.truncated ? " (more not shown: add a LIMIT or narrow the WHERE)" : ""} in ${result.ms.toFixed(1)} ms`;
    } catch (error) {
      results.replaceChildren();
      status.textContent = String(error instanceof Error ? error.message : error).replace(/^\/api\/query\?[^:]*: /, "");
      status.className = "query-error";
    }
  }

  runButton.addEventListener("click", () => void execute());
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void execute();
    }
  });
  void getJson<{ tables: { name: string; columns: string[] }[] }>("/api/query_schema").then((s) => {
    for (const table of s.tables) schema.append(el("div", { class: "hint" }, el("b", {}, table.name), ` ${table.columns.join(", ")}`));
  });
  await execute();
}
