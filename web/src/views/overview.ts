// Overview: run info, drops, the slowest step with links to it and to its input wait on the
// timeline, the step-time chart (stacked by the breakdown's parts; a click on a bar opens
// that step), the per-step tables (each step, and each step's input wait, a link), top
// operators and kernels (a name opens its longest call) and the top advice.
import uPlot from "uplot";
import { analysis, BreakdownRow, getJson, run, TableData } from "../api";
import { card, el, formatBytes, formatNs, micros } from "../format";
import { timelineHref, timelineLink } from "../router";
import { advice, findingCard } from "./advice";

function commandOf(metadata: Record<string, unknown> | null): string {
  const cmdline = metadata?.["cmdline"];
  if (Array.isArray(cmdline)) return cmdline.join(" ");
  if (typeof cmdline === "string") return cmdline;
  return "";
}

// The rows of /api/table (analysis::ComputeOperatorTable) with the most self time (an
// operator's total holds the operators it calls): name (a link to its longest call), process,
// count, total, self, and total and self as shares of the run's wall time.
function topTable(data: TableData, limit: number, id: string): HTMLElement {
  if (data.missing) return el("div", { class: "missing" }, data.missing);
  const table = el("table", { class: "data", id });
  table.append(el("tr", {}, ...["Name", "Process", "Count", "Total Time(us)", "Self Time(us)", "Total/Wall(%)", "Self/Wall(%)"].map((h) => el("th", {}, h))));
  const order = data.rows.map((_, i) => i).sort((a, b) => (data.rows[b][6] as number) - (data.rows[a][6] as number));
  order.slice(0, limit).forEach((i) => {
    const row = data.rows[i];
    table.append(
      el(
        "tr",
        {},
        el("td", {}, timelineLink(String(row[2]), { slice: data.slices[i] }, "its longest call on the timeline")),
        el("td", {}, String(row[0])),
        el("td", { class: "num" }, String(row[4])),
        el("td", { class: "num" }, micros(row[5] as number)),
        el("td", { class: "num" }, micros(row[6] as number)),
        el("td", { class: "num" }, (row[10] as number).toFixed(2)),
        el("td", { class: "num" }, (row[11] as number).toFixed(2)),
      ),
    );
  });
  return table;
}

// A step's links: the step (its span, selected as an area on its thread) and its input wait
// (the longest wait range, selected, with the step in view).
function stepLink(r: BreakdownRow): HTMLElement | string {
  return r.id === null ? r.label : timelineLink(r.label, { step: r.id }, `step ${r.label} on the timeline`);
}
function waitLink(r: BreakdownRow, text: string): HTMLElement | string {
  if (r.wait_slice === null) return text;
  const pad = (r.duration || 1) * 0.03;
  return timelineLink(text, { t0: r.begin - pad, t1: r.begin + r.duration + pad, slice: r.wait_slice }, `step ${r.label}'s input wait on the timeline`);
}

function slowestStep(breakdown: BreakdownRow[]): HTMLElement | null {
  const steps = breakdown.filter((r) => r.id !== null);
  if (!steps.length) return null;
  const slowest = steps.reduce((a, b) => (b.duration > a.duration ? b : a));
  const parts: [string, number][] = [
    ["input wait", slowest.input_wait],
    ["computing", slowest.computing],
    ["communication not overlapped", slowest.communication_not_overlapped],
    ["idle", slowest.idle],
  ];
  const box = el("div", { class: "panel slowest", id: "slowest-step" },
    el("b", {}, "Slowest step: "), stepLink(slowest), ` took ${formatNs(slowest.duration)}: `,
    parts.filter(([, v]) => v > 0).map(([k, v]) => `${k} ${formatNs(v)}`).join(", "), ". ");
  box.append(timelineLink("Show the step", { step: slowest.id! }, "the step on the timeline, its slices listed by name"));
  if (slowest.wait_slice !== null) {
    box.append(" · ");
    const link = waitLink(slowest, `Show its input wait (${formatNs(slowest.input_wait)})`);
    if (link instanceof HTMLElement) link.id = "slowest-step-wait";
    box.append(link);
  }
  return box;
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
  // The breakdown of the first scope that ran steps (a DataLoader worker's scope has one
  // whole-run row, and may come first).
  const scope = (summary.step_breakdown.find((r) => r.id !== null) ?? summary.step_breakdown[0])?.scope;
  const breakdown = summary.step_breakdown.filter((r) => r.scope === scope);
  const scopeProcess = scope === undefined ? undefined : info.processes[summary.scopes[scope]?.process];
  if (dataprep.steps.length && dataprep.total_step > 0) {
    // The data preparation analysis's figure, as the Data preparation view and the advice read it.
    const share = dataprep.total_wait / dataprep.total_step;
    cards.append(card("Input wait", `${formatNs(dataprep.total_wait)} (${(100 * share).toFixed(1)} % of ${formatNs(dataprep.total_step)} in steps)`, share > 0.1));
  }
  const slowest = slowestStep(breakdown);
  if (slowest) root.append(slowest);
  if (breakdown.length > 1 || (breakdown.length === 1 && info.steps.length === 1)) {
    root.append(el("h2", {}, `Step time breakdown (µs per step)${scopeProcess ? ` of ${scopeProcess.role_label} · pid ${scopeProcess.pid}` : ""}`));
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
    // A click on a bar opens that step on the timeline.
    const openStep = (u: uPlot) => {
      u.over.addEventListener("click", () => {
        const i = u.cursor.idx;
        const row = i === null || i === undefined ? undefined : breakdown[i];
        if (row && row.id !== null) location.hash = timelineHref({ step: row.id });
      });
    };
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
        hooks: { ready: [openStep] },
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
          { "data-step": String(r.id) },
          el("td", {}, stepLink(r)),
          ...[r.duration, r.computing, r.communication_not_overlapped, r.free].map((v) => el("td", { class: "num" }, micros(v))),
          el("td", { class: "num" }, waitLink(r, micros(r.input_wait))),
          el("td", { class: "num" }, micros(r.preparing)),
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
          el("td", {}, timelineLink(r.label, { step: r.id }, `step ${r.label} on the timeline`)),
          el("td", { class: "num" }, micros(r.iteration)),
          el("td", { class: "num" }, micros(r.fp_to_bp)),
          el("td", { class: "num" }, micros(r.refresh)),
          el("td", { class: "num" }, r.data_aug_bound === null ? "N/A" : micros(r.data_aug_bound)),
        ),
      );
    }
    root.append(el("div", { class: "table-wrap", style: "max-height:300px" }, table));
  }
  root.append(el("h2", {}, "Top operators (by self time)"), topTable(operators, 10, "top-operators"));
  root.append(el("h2", {}, "Top kernels (by self time)"), topTable(kernels, 10, "top-kernels"));
  // The top advice: the first triggered findings, as ranked by the advice rules.
  const triggered = (await advice()).findings.filter((f) => f.status === "triggered");
  const top = el("div", { id: "advice" });
  if (!triggered.length) top.append(el("div", { class: "panel" }, "No advice rule crossed its threshold on this run."));
  for (const finding of triggered.slice(0, 3)) top.append(findingCard(finding, 3));
  if (triggered.length > 3) top.append(el("a", { href: "#advice" }, `all ${triggered.length} findings`));
  root.append(el("h2", {}, "Top advice"), top);
}
