// Communication / cluster: every collective and send/recv with its wait vs transit (the
// numbers of communication.json), the communication wait per rank × step as a heatmap, and
// the point-to-point matrix (communication_matrix.json's links). Says what is missing when
// the run has no communication or one rank only. An operation opens on the timeline (its
// slice selected), a rank its processes, and a heatmap cell the operation that waited most
// in that rank's step.
import { type CommMatrixLink, type CommOp, type CommunicationData, getJson } from "../api";
import { card, el, formatNs } from "../format";
import { timelineHref, timelineLink } from "../router";
import { Column, numberColumn, SHOWN_ROWS, sortable } from "./sortable_table";

// An operation's place on the timeline: its slice selected, with as much again on each side.
const opTarget = (op: CommOp) => ({ t0: op.start - op.elapse, t1: op.start + 2 * op.elapse, slice: op.slice ?? undefined });

// communication.json's units: ms for times (ns / 1e6, exact with 6 decimals), MB for sizes.
const ms = (ns: number) => (ns / 1e6).toFixed(6);
const mb = (bytes: number | null) => (bytes === null ? "—" : String(bytes / 1e6));
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
function waitTransitBar(op: CommOp, longest: number): HTMLElement {
  const scale = longest > 0 ? 160 / longest : 0;
  return el("div", { class: "comm-bar", title: `wait ${formatNs(op.wait)}, transit ${formatNs(op.transit)}` },
    el("span", { class: "comm-wait", style: `width:${(op.wait * scale).toFixed(1)}px` }),
    el("span", { class: "comm-transit", style: `width:${(op.transit * scale).toFixed(1)}px` }),
  );
}

function opsTable(ops: CommOp[]): HTMLElement {
  const longest = Math.max(0, ...ops.map((op) => op.elapse));
  const columns: Column<CommOp>[] = [
    { title: "Operation", numeric: false, value: (r) => r.name, cell: (r) => timelineLink(r.name, opTarget(r), "this operation on the timeline") },
    { title: "Group", numeric: false, value: (r) => r.group, cell: (r) => r.group },
    { title: "Rank", numeric: true, value: (r) => r.rank, cell: (r) => timelineLink(String(r.rank), { rank: r.rank }, "the rank's processes on the timeline") },
    numberColumn("Step", (r) => r.step, stepName),
    { title: "Wait vs transit", numeric: false, value: (r) => r.wait, cell: (r) => waitTransitBar(r, longest) },
    numberColumn("Elapse Time(ms)", (r) => r.elapse, ms),
    numberColumn("Transit Time(ms)", (r) => r.transit, ms),
    numberColumn("Wait Time(ms)", (r) => r.wait, ms),
    numberColumn("Synchronization Time(ms)", (r) => r.synchronization, ms),
    numberColumn("Idle Time(ms)", (r) => r.idle, ms),
    numberColumn("Wait Time Ratio", (r) => r.wait_ratio, (v) => v.toFixed(4)),
    numberColumn("Start (ms from run start)", (r) => r.start, ms),
    numberColumn("Transit Size(MB)", (r) => r.bytes ?? -1, (v) => mb(v < 0 ? null : v)),
    numberColumn("Bandwidth(GB/s)", (r) => r.bandwidth, (v) => v.toFixed(4)),
    { title: "Transport", numeric: false, value: (r) => r.transport, cell: (r) => r.transport },
    { title: "Kind", numeric: false, value: (r) => r.kind, cell: (r) => r.kind },
  ];
  return sortableTable("communication-ops", columns, ops, 7);
}

function matrixTable(matrix: CommMatrixLink[]): HTMLElement {
  const columns: Column<CommMatrixLink>[] = [
    { title: "Op Name", numeric: false, value: (r) => r.name, cell: (r) => r.name },
    { title: "Group", numeric: false, value: (r) => r.group, cell: (r) => r.group },
    numberColumn("Step", (r) => r.step, stepName),
    numberColumn("Src", (r) => r.src_rank, String),
    numberColumn("Dst", (r) => r.dst_rank, String),
    { title: "Transport Type", numeric: false, value: (r) => r.transport_type, cell: (r) => r.transport_type },
    numberColumn("Transit Size(MB)", (r) => r.transit_size, String),
    numberColumn("Transit Time(ms)", (r) => r.transit_time, ms),
    numberColumn("Bandwidth(GB/s)", (r) => r.bandwidth, (v) => v.toFixed(4)),
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
    const ops = data.ops.filter((op) => op.rank === cell[0] && op.step === cell[1]);
    const worst = ops.reduce<CommOp | null>((a, b) => (a === null || b.wait > a.wait ? b : a), null);
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
  const wait = data.ops.reduce((sum, op) => sum + op.wait, 0);
  const transit = data.ops.reduce((sum, op) => sum + op.transit, 0);
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
