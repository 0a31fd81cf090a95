// Memory: allocated/reserved curves per pool with the peak marked, live bytes by category,
// and the operators that allocated most (the memory analysis, analysis/memory.h). Each chart
// is titled by its pool and the process it belongs to (role and pid), and drawn in the unit
// its largest value fits (B, KiB, MiB, GiB).
import uPlot from "uplot";
import { getJson, type MemoryData } from "../api";
import { el, formatBytes, formatNs, timeAxisUnit } from "../format";

// The unit the largest value fits: its scale and name.
export function byteUnit(max: number): [number, string] {
  const units: [number, string][] = [[2 ** 30, "GiB"], [2 ** 20, "MiB"], [2 ** 10, "KiB"]];
  for (const unit of units) if (max >= unit[0]) return unit;
  return [1, "B"];
}

function lineChart(title: string, series: { label: string; points: [number, number][] }[], width: number, peakTs?: number): HTMLElement {
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const [scale, unit] = byteUnit(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p[1]))));
  const [timeScale, timeLabel] = timeAxisUnit(times.length ? times[times.length - 1] : 0);
  const columns = series.map((s) => {
    const column: (number | null)[] = times.map(() => null);
    for (const [t, v] of s.points) column[index.get(t)!] = v / scale;
    return column;
  });
  const chart = el("div", { class: "chart", "data-unit": unit, "data-time-unit": timeLabel });
  const peakLine = (u: uPlot) => {
    if (peakTs === undefined) return;
    const x = u.valToPos(peakTs / timeScale, "x", true);
    u.ctx.save();
    u.ctx.strokeStyle = "#c44b4b";
    u.ctx.setLineDash([4, 3]);
    u.ctx.beginPath();
    u.ctx.moveTo(x, u.bbox.top);
    u.ctx.lineTo(x, u.bbox.top + u.bbox.height);
    u.ctx.stroke();
    u.ctx.restore();
  };
  new uPlot(
    {
      title,
      width,
      height: 220,
      scales: { x: { time: false } },
      axes: [{ label: timeLabel }, { label: unit, size: 80 }],
      series: [{ label: timeLabel.split(" ")[0] }, ...series.map((s, k) => ({ label: s.label, stroke: `hsl(${(k * 97 + 210) % 360} 60% 45%)`, spanGaps: true }))],
      hooks: { draw: [peakLine] },
    },
    [times.map((t) => t / timeScale), ...columns] as uPlot.AlignedData,
    chart,
  );
  return chart;
}

export async function renderMemory(root: HTMLElement): Promise<void> {
  const width = Math.min(root.clientWidth - 20, 1400);
  const data = await getJson<MemoryData>(`/api/memory?px=${Math.max(width, 200)}`);
  root.append(el("h2", {}, "Memory"));
  if (!data.pools.length) {
    root.append(
      el("div", { class: "missing", id: "memory-missing" }, "No memory data in this run: the memory analysis needs framework allocator events (torch profile_memory=True), CUPTI allocations or NVML samples (CUDA source)."),
    );
    return;
  }
  root.append(el("div", { class: "hint" }, `From: ${data.inputs.join(", ")}`));
  const cards = el("div", { class: "cards", id: "memory-peaks" });
  for (const pool of data.pools) {
    cards.append(
      el("div", { class: "card" }, el("div", { class: "label" }, `${pool.name} · ${pool.role} · pid ${pool.pid} peak allocated`), el("div", { class: "value" }, formatBytes(pool.peak_allocated)), el("div", { class: "hint" }, `at ${formatNs(pool.peak_allocated_ts)}${pool.peak_reserved !== null ? ` · reserved peak ${formatBytes(pool.peak_reserved)}` : ""}${pool.capacity > 0 ? ` · capacity ${formatBytes(pool.capacity)}` : ""}`)),
    );
  }
  root.append(cards);
  for (const pool of data.pools) {
    const series = [{ label: "allocated", points: pool.allocated }];
    if (pool.reserved) series.push({ label: "reserved", points: pool.reserved });
    root.append(lineChart(`${pool.name} · ${pool.role} · pid ${pool.pid} (${pool.source})`, series, width, pool.peak_allocated_ts));
  }
  if (data.categories.length) {
    root.append(el("h2", {}, "By category"));
    const pools = [...new Set(data.categories.map((c) => c.pool))];
    for (const pool of pools) {
      const tracks = data.categories.filter((c) => c.pool === pool);
      const p = data.pools[pool];
      root.append(lineChart(`${p.name} · ${p.role} · pid ${p.pid} by category`, tracks.map((c) => ({ label: c.category, points: c.points })), width));
    }
  }
  root.append(el("h2", {}, "Top operators by allocated memory"));
  if (!data.top_operators.length) {
    root.append(el("div", { class: "missing" }, "No operator attribution: allocations were not recorded inside operators."));
    return;
  }
  const table = el("table", { class: "data", id: "memory-operators" });
  // operator_memory_top.csv's columns and numbers (bytes, exact).
  table.append(el("tr", {}, ...["Name", "Pool", "Allocations", "Allocated(B)", "Max Allocation(B)", "Freed(B)"].map((h) => el("th", {}, h))));
  for (const op of data.top_operators) {
    const cells = [op.allocations, op.allocated_bytes, op.max_allocation, op.freed_bytes].map((n) => el("td", { class: "num", title: formatBytes(n) }, String(n)));
    table.append(el("tr", {}, el("td", {}, op.name), el("td", {}, data.pools[op.pool]?.name ?? String(op.pool)), ...cells));
  }
  root.append(table);
}
