// Overview: run info, drops, the step-time chart (stacked by the step trace's phases), the
// per-step table, top operators and kernels.
import uPlot from "uplot";
import { analysis, getJson, run, TableData } from "../api";
import { card, el, formatBytes, formatNs, micros } from "../format";
import { advice, findingCard } from "./advice";

function commandOf(metadata: Record<string, unknown> | null): string {
  const cmdline = metadata?.["cmdline"];
  if (Array.isArray(cmdline)) return cmdline.join(" ");
  if (typeof cmdline === "string") return cmdline;
  return "";
}

function topTable(data: TableData, limit: number): HTMLElement {
  if (data.missing) return el("div", { class: "missing" }, data.missing);
  const table = el("table", { class: "data" });
  table.append(el("tr", {}, ...["Name", "Count", "Total Time(us)", "Avg Time(us)", "Ratio(%)"].map((h) => el("th", {}, h))));
  for (const row of data.rows.slice(0, limit)) {
    table.append(
      el(
        "tr",
        {},
        el("td", {}, String(row[1])),
        el("td", { class: "num" }, String(row[3])),
        el("td", { class: "num" }, micros(row[4] as number)),
        el("td", { class: "num" }, micros(row[6] as number)),
        el("td", { class: "num" }, (row[8] as number).toFixed(2)),
      ),
    );
  }
  return table;
}

export async function renderOverview(root: HTMLElement): Promise<void> {
  const [info, summary, operators, kernels, dataprep] = await Promise.all([
    run(),
    analysis(),
    getJson<TableData>("/api/table/operators"),
    getJson<TableData>("/api/table/kernels"),
    getJson<{ total_wait: number; total_step: number; steps: unknown[] }>("/api/dataprep"),
  ]);
  const hosts = new Set(info.processes.map((p) => p.host));
  const devices = info.processes.filter((p) => p.device >= 0).length;
  const ranks = new Set(info.processes.filter((p) => p.rank >= 0).map((p) => p.rank));
  const command = info.processes.map((p) => commandOf(p.metadata)).find((c) => c) ?? "";
  root.append(
    el("h2", {}, "Run"),
    el("div", { class: "panel", id: "run-command" }, command ? `Command: ${command}` : "Command: not recorded"),
  );
  const cards = el("div", { class: "cards", id: "run-cards" });
  cards.append(
    card("Duration", formatNs(info.end)),
    card("Hosts", String(hosts.size)),
    card("Processes", String(info.processes.filter((p) => p.device < 0).length)),
    card("Devices", String(devices)),
    card("Ranks", ranks.size ? String(ranks.size) : "—"),
    card("Steps", String(info.steps.length)),
    card("Slices", info.counts.slices.toLocaleString()),
    card("Raw data", formatBytes(info.counts.raw_bytes)),
    card("Dropped records", info.drops.total.toLocaleString(), info.drops.total > 0),
  );
  root.append(cards);
  const badFiles = info.files.filter((f) => f.error);
  if (badFiles.length) {
    root.append(el("div", { class: "missing" }, `Unreadable raw files: ${badFiles.map((f) => `${f.path}: ${f.error}`).join("; ")}`));
  }
  if (info.drops.total > 0) {
    root.append(
      el("div", { class: "missing" }, `${info.drops.total} records were dropped (buffers full): the timeline has gaps there. Raise --buffer-size or lower the sampling.`),
    );
  }

  root.append(el("div", { class: "hint", id: "analysis-inputs" }, `Analysed: ${summary.inputs}`));
  const breakdown = summary.step_breakdown.filter((r) => r.scope === summary.step_breakdown[0]?.scope);
  if (dataprep.steps.length && dataprep.total_step > 0) {
    // The data preparation analysis's figure, as the Data preparation view and the advice read it.
    const share = dataprep.total_wait / dataprep.total_step;
    cards.append(card("Input wait", `${formatNs(dataprep.total_wait)} (${(100 * share).toFixed(1)} % of ${formatNs(dataprep.total_step)} in steps)`, share > 0.1));
  }
  if (breakdown.length > 1 || (breakdown.length === 1 && info.steps.length === 1)) {
    root.append(el("h2", {}, "Step time breakdown (µs per step)"));
    root.append(
      el("div", { class: "hint" }, "Each bar is the step's time on the scope (msprof's step_trace_time: Computing + Communication(Not Overlapped) + Free); Free is split into the time spent waiting for input and the rest (idle). Preparing, the time before the step's first task, is a part of Free and is listed in the table below."),
    );
    const chart = el("div", { class: "chart", id: "breakdown-chart" });
    root.append(chart);
    // Stacked from the bottom; the parts add up to the step's time.
    type Row = (typeof breakdown)[0];
    const layers: [string, string, (r: Row) => number][] = [
      ["computing", "#7fb3e8", (r) => r.computing],
      ["communication (not overlapped)", "#b38fe8", (r) => r.communication_not_overlapped],
      ["input wait", "#e88f8f", (r) => r.input_wait],
      ["idle", "#c9d1e0", (r) => r.idle],
    ];
    const raw = layers.map(([, , value]) => breakdown.map((r) => value(r) / 1e3));
    const cumulative: number[][] = [];
    let running = breakdown.map(() => 0);
    for (const values of raw) {
      running = running.map((sum, i) => sum + values[i]);
      cumulative.push(running);
    }
    const bars = uPlot.paths.bars!({ size: [0.8, 40] });
    const index = breakdown.map((_, i) => i);
    // The legend shows each part of the hovered step, not the running sums the bars are drawn from.
    const part = (layer: number) => (_u: uPlot, _v: number, _s: number, i: number | null) => (i === null ? "" : raw[layer][i].toFixed(3));
    new uPlot(
      {
        width: Math.min(root.clientWidth - 20, 1400),
        height: 240,
        scales: { x: { time: false } },
        axes: [{ label: "step", values: (_u, ticks) => ticks.map((t) => breakdown[t]?.label ?? "") }, { label: "µs", size: 70 }],
        series: [
          { label: "step", value: (_u, v) => breakdown[v]?.label ?? "" },
          ...[...layers].map((layer, i) => [layer, i] as const).reverse().map(([[label, color], i]) => ({ label, fill: color, stroke: color, paths: bars, points: { show: false }, value: part(i) })),
        ],
      },
      [index, ...[...cumulative].reverse()],
      chart,
    );
    const table = el("table", { class: "data", id: "breakdown-table" });
    table.append(el("tr", {}, ...["Step", "Step Time(us)", "Computing(us)", "Communication(Not Overlapped)(us)", "Free(us)", "Input Wait(us)", "Preparing(us)"].map((h) => el("th", {}, h))));
    for (const r of breakdown.slice(0, 200)) {
      table.append(
        el(
          "tr",
          {},
          el("td", {}, r.label),
          ...[r.duration, r.computing, r.communication_not_overlapped, r.free, r.input_wait, r.preparing].map((v) => el("td", { class: "num" }, micros(v))),
        ),
      );
    }
    root.append(el("div", { class: "table-wrap", style: "max-height:300px" }, table));
  }
  root.append(el("h2", {}, "Step trace (µs per step)"));
  const trace = summary.step_trace;
  if (!trace.length) {
    root.append(el("div", { class: "missing" }, "No steps in this run: mark iterations (aiprof step API, mstx, ProfilerStep) to get the step chart."));
  } else {
    const chart = el("div", { class: "chart", id: "step-chart" });
    root.append(chart);
    const steps = trace.map((_, i) => i);
    // Stacked so that the bars add up to the iteration time: step start → FP start (data
    // wait, set-up), FP to BP, refresh (BP end → iteration end).
    const beforeFp = trace.map((r) => Math.max(r.iteration - r.fp_to_bp - r.refresh, 0) / 1e3);
    const fp = trace.map((r, i) => beforeFp[i] + r.fp_to_bp / 1e3);
    const total = trace.map((r, i) => fp[i] + r.refresh / 1e3);
    const bars = uPlot.paths.bars!({ size: [0.8, 40] });
    new uPlot(
      {
        width: Math.min(root.clientWidth - 20, 1400),
        height: 240,
        scales: { x: { time: false } },
        axes: [{ label: "step", values: (_u, ticks) => ticks.map((t) => trace[t]?.label ?? "") }, { label: "µs", size: 70 }],
        series: [
          { label: "step", value: (_u, v) => trace[v]?.label ?? "" },
          { label: "refresh (BP end → iteration end)", fill: "#f2b880", stroke: "#d98b3a", paths: bars, points: { show: false } },
          { label: "FP to BP", fill: "#7fb3e8", stroke: "#3d7fc4", paths: bars, points: { show: false } },
          { label: "step start → FP start", fill: "#e88f8f", stroke: "#c44b4b", paths: bars, points: { show: false } },
        ],
      },
      [steps, total, fp, beforeFp],
      chart,
    );
    const table = el("table", { class: "data", id: "step-table" });
    table.append(el("tr", {}, ...["Step", "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)", "Data Aug Bound(us)"].map((h) => el("th", {}, h))));
    for (const r of trace.slice(0, 200)) {
      table.append(
        el(
          "tr",
          {},
          el("td", {}, r.label),
          el("td", { class: "num" }, micros(r.iteration)),
          el("td", { class: "num" }, micros(r.fp_to_bp)),
          el("td", { class: "num" }, micros(r.refresh)),
          el("td", { class: "num" }, r.data_aug_bound === null ? "N/A" : micros(r.data_aug_bound)),
        ),
      );
    }
    root.append(el("div", { class: "table-wrap", style: "max-height:300px" }, table));
  }
  root.append(el("h2", {}, "Top operators"), topTable(operators, 10));
  root.append(el("h2", {}, "Top kernels"), topTable(kernels, 10));
  // The top advice: the first triggered findings, as ranked by the advice rules.
  const triggered = (await advice()).findings.filter((f) => f.status === "triggered");
  const top = el("div", { id: "advice" });
  if (!triggered.length) top.append(el("div", { class: "panel" }, "No advice rule crossed its threshold on this run."));
  for (const finding of triggered.slice(0, 3)) top.append(findingCard(finding, 3));
  if (triggered.length > 3) top.append(el("a", { href: "#advice" }, `all ${triggered.length} findings`));
  root.append(el("h2", {}, "Top advice"), top);
}
