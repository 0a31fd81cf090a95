// Communication / cluster: every collective and send/recv with its wait vs transit (the
// numbers of communication.json), the communication wait per rank × step as a heatmap, and
// the point-to-point matrix (communication_matrix.json's links). Says what is missing when
// the run has no communication or one rank only. An operation opens on the timeline (its
// slice selected), a rank its processes, and a heatmap cell the operation that waited most
// in that rank's step.
import { getJson } from "../api";
import { card, el, formatNs } from "../format";
import { timelineHref, timelineLink } from "../router";
import { Column, numberColumn, SHOWN_ROWS, sortable } from "./sortable_table";

// [name, group, kind, type, rank, step, start, elapse, transit, wait, synchronization, idle,
//  wait ratio, bytes (-1 unknown), bandwidth GB/s, transport, wait source, slice (-1: none)];
//  times in ns.
type OpRow = [string, string, string, string, number, number, number, number, number, number, number, number, number, number, number, string, string, number];

// An operation's place on the timeline: its slice selected, with as much again on each side.
const opTarget = (op: OpRow) => ({ t0: op[6] - op[7], t1: op[6] + 2 * op[7], slice: op[17] >= 0 ? op[17] : undefined });
// [name, group, step, src, dst, transport, bytes, transit ns, bandwidth GB/s]
type MatrixRow = [string, string, number, number, number, string, number, number, number];

interface CommunicationData {
  missing: string | null;
  wait_note: string;
  ops: OpRow[];
  ranks: number[];
  steps: number[];
  heatmap: [number, number, number, number][];  // rank, step, wait ns, elapse ns
  matrix: MatrixRow[];
}

// communication.json's units: ms for times (ns / 1e6, exact with 6 decimals), MB for sizes.
const ms = (ns: number) => (ns / 1e6).toFixed(6);
const mb = (bytes: number) => (bytes < 0 ? "—" : String(bytes / 1e6));
const stepName = (step: number) => (step < 0 ? "—" : String(step));

// The table, drawn once sorted descending by `sortColumn`, in its scrolling box.
function sortableTable<Row>(id: string, columns: Column<Row>[], rows: Row[], sortColumn: number): HTMLElement {
  const table = el("table", { class: "data", id });
  sortable<Row>(table, sortColumn)(columns, rows);
  const wrap = el("div", { class: "table-wrap comm-table" }, table);
  if (rows.length > SHOWN_ROWS) wrap.append(el("div", { class: "hint" }, `first ${SHOWN_ROWS} of ${rows.length} rows shown`));
  return wrap;
}

// Wait then transit, as one bar scaled to the longest operation's elapse.
function waitTransitBar(op: OpRow, longest: number): HTMLElement {
  const scale = longest > 0 ? 160 / longest : 0;
  return el("div", { class: "comm-bar", title: `wait ${formatNs(op[9])}, transit ${formatNs(op[8])}` },
    el("span", { class: "comm-wait", style: `width:${(op[9] * scale).toFixed(1)}px` }),
    el("span", { class: "comm-transit", style: `width:${(op[8] * scale).toFixed(1)}px` }),
  );
}

function opsTable(ops: OpRow[]): HTMLElement {
  const longest = Math.max(0, ...ops.map((op) => op[7]));
  const columns: Column<OpRow>[] = [
    { title: "Operation", numeric: false, value: (r) => r[0], cell: (r) => timelineLink(r[0], opTarget(r), "this operation on the timeline") },
    { title: "Group", numeric: false, value: (r) => r[1], cell: (r) => r[1] },
    { title: "Rank", numeric: true, value: (r) => r[4], cell: (r) => timelineLink(String(r[4]), { rank: r[4] }, "the rank's processes on the timeline") },
    numberColumn("Step", (r) => r[5], stepName),
    { title: "Wait vs transit", numeric: false, value: (r) => r[9], cell: (r) => waitTransitBar(r, longest) },
    numberColumn("Elapse Time(ms)", (r) => r[7], ms),
    numberColumn("Transit Time(ms)", (r) => r[8], ms),
    numberColumn("Wait Time(ms)", (r) => r[9], ms),
    numberColumn("Synchronization Time(ms)", (r) => r[10], ms),
    numberColumn("Idle Time(ms)", (r) => r[11], ms),
    numberColumn("Wait Time Ratio", (r) => r[12], (v) => v.toFixed(4)),
    numberColumn("Start (ms from run start)", (r) => r[6], ms),
    numberColumn("Transit Size(MB)", (r) => r[13], mb),
    numberColumn("Bandwidth(GB/s)", (r) => r[14], (v) => v.toFixed(4)),
    { title: "Transport", numeric: false, value: (r) => r[15], cell: (r) => r[15] },
    { title: "Kind", numeric: false, value: (r) => r[2], cell: (r) => r[2] },
  ];
  return sortableTable("communication-ops", columns, ops, 7);
}

function matrixTable(matrix: MatrixRow[]): HTMLElement {
  const columns: Column<MatrixRow>[] = [
    { title: "Op Name", numeric: false, value: (r) => r[0], cell: (r) => r[0] },
    { title: "Group", numeric: false, value: (r) => r[1], cell: (r) => r[1] },
    numberColumn("Step", (r) => r[2], stepName),
    numberColumn("Src", (r) => r[3], String),
    numberColumn("Dst", (r) => r[4], String),
    { title: "Transport Type", numeric: false, value: (r) => r[5], cell: (r) => r[5] },
    numberColumn("Transit Size(MB)", (r) => r[6], mb),
    numberColumn("Transit Time(ms)", (r) => r[7], ms),
    numberColumn("Bandwidth(GB/s)", (r) => r[8], (v) => v.toFixed(4)),
  ];
  return sortableTable("communication-matrix", columns, matrix, 8);
}

// White (no wait) to dark red (the largest wait of the run).
function heatColor(fraction: number): string {
  const f = Math.max(0, Math.min(1, fraction));
  const channel = (from: number, to: number) => Math.round(from + (to - from) * f);
  return `rgb(${channel(255, 165)},${channel(255, 15)},${channel(255, 21)})`;
}

function heatmap(data: CommunicationData): HTMLElement {
  const cellW = Math.max(8, Math.min(48, Math.floor(1100 / Math.max(data.steps.length, 1))));
  const cellH = Math.max(10, Math.min(28, Math.floor(420 / Math.max(data.ranks.length, 1))));
  const left = 70;
  const top = 18;
  const canvas = el("canvas", { id: "communication-heatmap" });
  const width = left + cellW * data.steps.length + 10;
  const height = top + cellH * data.ranks.length + 4;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = width * ratio;
  canvas.height = height * ratio;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext("2d")!;
  ctx.scale(ratio, ratio);
  const rowOf = new Map(data.ranks.map((rank, i) => [rank, i]));
  const columnOf = new Map(data.steps.map((step, i) => [step, i]));
  const maxWait = Math.max(0, ...data.heatmap.map((cell) => cell[2]));
  const cells = new Map<string, [number, number, number, number]>();
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = "#1d2330";
  ctx.textBaseline = "middle";
  data.ranks.forEach((rank, i) => ctx.fillText(`rank ${rank}`, 4, top + i * cellH + cellH / 2));
  const labelEvery = Math.ceil(40 / cellW);
  data.steps.forEach((step, i) => {
    if (i % labelEvery === 0) ctx.fillText(stepName(step), left + i * cellW + 2, top / 2);
  });
  for (const cell of data.heatmap) {
    const row = rowOf.get(cell[0])!;
    const column = columnOf.get(cell[1])!;
    cells.set(`${row},${column}`, cell);
    ctx.fillStyle = heatColor(maxWait > 0 ? cell[2] / maxWait : 0);
    ctx.fillRect(left + column * cellW, top + row * cellH, cellW - 1, cellH - 1);
    ctx.strokeStyle = "#dde2ea";  // a cell without wait stays visible on the white page
    ctx.strokeRect(left + column * cellW + 0.5, top + row * cellH + 0.5, cellW - 2, cellH - 2);
  }
  canvas.dataset.cells = String(cells.size);
  // A click on a cell opens the operation that waited most in that rank's step.
  canvas.addEventListener("click", (event) => {
    const column = Math.floor((event.offsetX - left) / cellW);
    const row = Math.floor((event.offsetY - top) / cellH);
    const cell = cells.get(`${row},${column}`);
    if (!cell) return;
    const ops = data.ops.filter((op) => op[4] === cell[0] && op[5] === cell[1]);
    const worst = ops.reduce<OpRow | null>((a, b) => (a === null || b[9] > a[9] ? b : a), null);
    if (worst) location.hash = timelineHref(opTarget(worst));
  });
  canvas.style.cursor = "pointer";
  canvas.addEventListener("mousemove", (event) => {
    const column = Math.floor((event.offsetX - left) / cellW);
    const row = Math.floor((event.offsetY - top) / cellH);
    const cell = cells.get(`${row},${column}`);
    canvas.title = cell
      ? `rank ${cell[0]}, step ${stepName(cell[1])}: wait ${formatNs(cell[2])} of ${formatNs(cell[3])} in communication`
      : "";
  });
  const legend = el("div", { class: "comm-legend", id: "communication-legend" },
    el("span", {}, "wait 0"),
    el("span", { class: "comm-scale", style: `background:linear-gradient(to right, ${heatColor(0)}, ${heatColor(1)})` }),
    el("span", {}, formatNs(maxWait)),
  );
  return el("div", { class: "chart" }, el("div", { class: "hint" }, "Communication wait per rank (rows) and step (columns): the operations' summed wait; hover a cell for its value"), canvas, legend);
}

export async function renderCommunication(root: HTMLElement): Promise<void> {
  const data = await getJson<CommunicationData>("/api/communication");
  root.append(el("h2", {}, "Communication / cluster"));
  if (data.missing) root.append(el("div", { class: "missing", id: "communication-missing" }, data.missing));
  if (!data.ops.length) return;
  if (data.wait_note) root.append(el("div", { class: "hint", id: "communication-wait-note" }, data.wait_note));
  const wait = data.ops.reduce((sum, op) => sum + op[9], 0);
  const transit = data.ops.reduce((sum, op) => sum + op[8], 0);
  root.append(
    el("div", { class: "cards", id: "communication-summary" },
      card("ranks", String(data.ranks.length)),
      card("operations", String(data.ops.length)),
      card("wait", formatNs(wait)),
      card("transit", formatNs(transit)),
    ),
    el("h2", {}, "Wait per rank × step"),
    heatmap(data),
    el("h2", {}, "Operations (communication.json)"),
    el("div", { class: "hint" }, "Wait vs transit: ", el("span", { class: "comm-wait comm-key" }), " wait ", el("span", { class: "comm-transit comm-key" }), " transit, scaled to the longest operation"),
    opsTable(data.ops),
    el("h2", {}, "Communication matrix (communication_matrix.json)"),
  );
  if (data.matrix.length) root.append(matrixTable(data.matrix));
  else root.append(el("div", { class: "hint", id: "communication-matrix-missing" }, "No point-to-point transfers with a known peer: the matrix lists send/recv links (src → dst); collectives have none."));
}
