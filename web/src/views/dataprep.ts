// Data preparation: per step, how long the training thread waited for input and whether the
// loader kept up (analysis/data_preparation.h).
import uPlot from "uplot";
import { getJson, run, type DataPreparation } from "../api";
import { el, micros } from "../format";
import { timelineLink } from "../router";

export async function renderDataPreparation(root: HTMLElement): Promise<void> {
  const [data, info] = await Promise.all([getJson<DataPreparation>("/api/dataprep"), run()]);
  const begins = new Map(info.steps.map((s) => [s[0], s[1]]));
  root.append(el("h2", {}, "Data preparation"));
  if (!data.steps.length) {
    root.append(
      el("div", { class: "missing", id: "dataprep-missing" }, `No data-preparation results: they need steps and input-wait ranges (DataLoader operators, or marker ranges such as data_wait / load_batch). Found: ${data.inputs.join(", ") || "none"}.`),
    );
    return;
  }
  const share = data.total_step > 0 ? (100 * data.total_wait) / data.total_step : 0;
  root.append(
    el("div", { class: "cards", id: "dataprep-summary" },
      el("div", { class: "card" }, el("div", { class: "label" }, "time waiting for data"), el("div", { class: "value" }, `${share.toFixed(1)} %`)),
      el("div", { class: "card" }, el("div", { class: "label" }, "steps"), el("div", { class: "value" }, String(data.steps.length))),
      el("div", { class: "card" + (data.empty_queue_steps ? " warn" : "") }, el("div", { class: "label" }, "steps with an empty queue"), el("div", { class: "value" }, data.has_queue_view ? String(data.empty_queue_steps) : "n/a")),
    ),
    el("div", { class: "hint" }, `From: ${data.inputs.join(", ")}`),
  );
  const chart = el("div", { class: "chart" });
  root.append(chart);
  // x is the step id (unique in the run); the axis and legend show the step's label.
  const labels = new Map(data.steps.map((s) => [s.id, s.label]));
  new uPlot(
    {
      title: "Wait for data per step (% of the step)",
      width: Math.min(root.clientWidth - 20, 1400),
      height: 220,
      scales: { x: { time: false } },
      axes: [{ label: "step", values: (_u, ticks) => ticks.map((t) => labels.get(t) ?? "") }, { label: "%", size: 60 }],
      series: [{ label: "step", value: (_u, v) => labels.get(v) ?? "" }, { label: "wait", stroke: "#c44b4b", fill: "rgba(196,75,75,0.25)", paths: uPlot.paths.bars!({ size: [0.8, 30] }), points: { show: false } }],
    },
    [data.steps.map((s) => s.id), data.steps.map((s) => (s.duration > 0 ? (100 * s.wait) / s.duration : 0))],
    chart,
  );
  const table = el("table", { class: "data", id: "dataprep-table" });
  table.append(el("tr", {}, ...["Step", "Thread", "Step Time(us)", "Wait Time(us)", "Waits", "Loader Busy(us)", "Queue Empty"].map((h) => el("th", {}, h))));
  for (const { id, label, tid, duration, wait, waits, loader_busy: busy, queue_empty: empty, wait_slice: waitSlice } of data.steps.slice(0, 500)) {
    const begin = begins.get(id) ?? 0;
    const waitCell = waitSlice === null ? micros(wait) : timelineLink(micros(wait), { t0: begin - duration * 0.03, t1: begin + duration * 1.03, slice: waitSlice }, `step ${label}'s input wait on the timeline`);
    table.append(el("tr", {}, el("td", {}, timelineLink(label, { step: id }, `step ${label} on the timeline`)), el("td", {}, String(tid)), el("td", { class: "num" }, micros(duration)), el("td", { class: "num" }, waitCell), el("td", { class: "num" }, String(waits)), el("td", { class: "num" }, micros(busy)), el("td", {}, data.has_queue_view ? (empty ? "yes" : "no") : "n/a")));
  }
  root.append(el("div", { class: "table-wrap", style: "max-height:400px" }, table));
}
