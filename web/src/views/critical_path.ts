// Critical path: what sets each step's length (analysis/critical_path/critical_path.h). Per
// step the path's time by category, the critical rank and thread; one step's path piece by
// piece; the standard projections; and a what-if panel whose sliders are re-solved on every
// step's graph by the server (/api/what_if), not scaled from the attribution.
import { getJson, type CriticalPath, type CriticalPathSegment, type CriticalPathStep } from "../api";
import { card, CRITICAL_COLORS, el, formatNs } from "../format";

interface WhatIfAnswer {
  applied: string[];
  step_ns: number;
  projected_ns: number;
  steps: number[];
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : "–");

// A bar of the step's categories, widths by share.
function attributionBar(parts: number[], total: number): HTMLElement {
  const bar = el("div", { class: "stacked-bar", style: "display:flex;height:12px;min-width:240px" });
  parts.forEach((ns, category) => {
    if (ns <= 0 || total <= 0) return;
    bar.append(el("div", { style: `width:${(100 * ns) / total}%;background:${CRITICAL_COLORS[category]}` }));
  });
  return bar;
}

function legend(categories: string[]): HTMLElement {
  return el("div", { class: "hint", id: "critical-legend" },
    ...categories.map((name, i) => el("span", { style: "margin-right:12px" }, el("span", { style: `display:inline-block;width:10px;height:10px;background:${CRITICAL_COLORS[i]};margin-right:4px` }), name)));
}

function slider(id: string, label: string): [HTMLElement, HTMLInputElement, HTMLElement] {
  const input = el("input", { type: "range", min: "0", max: "100", step: "5", value: "0", id });
  const shown = el("span", {}, "0 %");
  input.addEventListener("input", () => (shown.textContent = `${input.value} %`));
  return [el("label", { style: "display:block" }, `${label} faster by `, input, " ", shown), input, shown];
}

function checkbox(id: string, label: string): [HTMLElement, HTMLInputElement] {
  const input = el("input", { type: "checkbox", id });
  return [el("label", { style: "display:block" }, input, " ", label), input];
}

function whatIfPanel(data: CriticalPath): HTMLElement {
  const operator = data.what_ifs.find((w) => w.kind === "operator_faster")?.target ?? "";
  const [loaderRow, loader] = checkbox("whatif-loader", "data loading free");
  const [commRow, comm] = checkbox("whatif-comm", "communication fully overlapped");
  const [rankRow, rank] = checkbox("whatif-rank", "slowest rank at the median rank's speed");
  const [opRow, op] = slider("whatif-op", operator || "(no compute operator)");
  op.disabled = !operator;
  const categories = [0, 3, 4]; // compute, host overhead, synchronisation
  const categorySliders = categories.map((c) => slider(`whatif-cat${c}`, data.categories[c]));
  const result = el("div", { class: "cards", id: "whatif-result" });
  let timer = 0;
  let asked = 0;
  const update = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(async () => {
      const params = new URLSearchParams();
      if (loader.checked) params.set("loader", "1");
      if (comm.checked) params.set("comm", "1");
      if (rank.checked) params.set("rank", "1");
      if (operator && op.value !== "0") {
        params.set("op", operator);
        params.set("op_pct", op.value);
      }
      categories.forEach((c, i) => {
        const value = categorySliders[i][1].value;
        if (value !== "0") params.set(`cat${c}_pct`, value);
      });
      const ticket = ++asked;
      result.dataset.ready = "0";
      const answer = await getJson<WhatIfAnswer>(`/api/what_if?${params.toString()}`);
      if (ticket !== asked) return;
      const saved = answer.step_ns - answer.projected_ns;
      result.replaceChildren(
        card("step time now", formatNs(answer.step_ns)),
        card("projected", formatNs(answer.projected_ns)),
        card("saving", `${formatNs(saved)} (${pct(saved, answer.step_ns)})`),
        el("div", { class: "hint", style: "flex-basis:100%" }, answer.applied.length ? `Re-solved with: ${answer.applied.join("; ")}` : "Nothing applied: the recording."),
      );
      result.dataset.ready = "1";
    }, 150);
  };
  for (const input of [loader, comm, rank, op, ...categorySliders.map((s) => s[1])]) input.addEventListener("input", update);
  update();
  return el("div", { class: "panel", id: "whatif-panel" },
    el("h3", {}, "What if"),
    el("div", { class: "hint" }, "Each combination is re-solved on every step's dependency graph: what waited for the faster work moves, as far as the other dependencies allow."),
    loaderRow, commRow, rankRow, opRow, ...categorySliders.map((s) => s[0]), result);
}

// The step's time per category, by category number.
function categoryTimes(data: CriticalPath, step: CriticalPathStep): number[] {
  const fields = step as unknown as Record<string, number>;
  return data.category_keys.map((key) => fields[key]);
}

async function showSegments(target: HTMLElement, data: CriticalPath, step: CriticalPathStep): Promise<void> {
  const { segments } = await getJson<{ segments: CriticalPathSegment[] }>(`/api/critical_path/segments?step=${step.id}`);
  const table = el("table", { class: "data", id: "critical-segments" });
  table.append(el("tr", {}, ...["Begin", "Duration", "Category", "Name", "Kind", "Thread", "Rank"].map((h) => el("th", {}, h))));
  for (const { begin, duration, category, name, kind, thread, rank } of segments.slice(0, 2000)) {
    table.append(el("tr", {},
      el("td", { class: "num" }, formatNs(begin)),
      el("td", { class: "num" }, formatNs(duration)),
      el("td", {}, el("span", { style: `display:inline-block;width:8px;height:8px;background:${CRITICAL_COLORS[category]};margin-right:4px` }), data.categories[category]),
      el("td", {}, name), el("td", {}, kind), el("td", {}, thread), el("td", { class: "num" }, rank >= 0 ? String(rank) : "")));
  }
  target.replaceChildren(
    el("h3", {}, `Step ${step.label}: ${segments.length} piece(s)${segments.length > 2000 ? " (first 2000 shown)" : ""}`),
    el("div", { class: "table-wrap", style: "max-height:400px" }, table));
}

export async function renderCriticalPath(root: HTMLElement): Promise<void> {
  const data = await getJson<CriticalPath>("/api/critical_path");
  root.append(el("h2", {}, "Critical path"));
  if (!data.steps.length) {
    root.append(el("div", { class: "missing", id: "critical-missing" }, "No critical path: the run has no steps and no host activity to follow."));
    return;
  }
  const totals = data.categories.map((_, c) => data.steps.reduce((sum, s) => sum + categoryTimes(data, s)[c], 0));
  const largest = totals.indexOf(Math.max(...totals));
  const ranks = new Set(data.steps.map((s) => s.critical_rank).filter((r) => r >= 0));
  root.append(
    el("div", { class: "cards", id: "critical-summary" },
      card(data.whole_run ? "process spans" : "steps", String(data.steps.length)),
      card("time on the path", formatNs(data.step_ns)),
      card("largest part", `${data.categories[largest]} ${pct(totals[largest], data.step_ns)}`),
      card("critical rank(s)", ranks.size ? [...ranks].join(", ") : "–")),
    legend(data.categories),
  );
  if (data.dropped_edges) {
    root.append(el("div", { class: "hint" }, `${data.dropped_edges} dependencies contradicted by the recorded times (clocks of two processes or hosts disagreeing) were left out.`));
  }
  const projections = el("table", { class: "data", id: "critical-what-ifs" });
  projections.append(el("tr", {}, ...["What if", "Projected", "Saving"].map((h) => el("th", {}, h))));
  for (const w of data.what_ifs) {
    const saved = data.step_ns - w.projected_ns;
    projections.append(el("tr", {}, el("td", {}, w.name),
      el("td", { class: "num" }, w.applicable ? formatNs(w.projected_ns) : "not applicable"),
      el("td", { class: "num" }, w.applicable ? pct(saved, data.step_ns) : "")));
  }
  root.append(el("h3", {}, "Standard projections"), projections, whatIfPanel(data));

  const steps = el("table", { class: "data", id: "critical-steps" });
  steps.append(el("tr", {}, ...["Step", "Time", "Path by category", "Critical rank", "Critical thread"].map((h) => el("th", {}, h))));
  const segments = el("div", { class: "panel", id: "critical-step-path" }, el("div", { class: "hint" }, "Click a step for its path piece by piece."));
  for (const step of data.steps.slice(0, 1000)) {
    const row = el("tr", { style: "cursor:pointer" },
      el("td", {}, step.label), el("td", { class: "num" }, formatNs(step.duration)),
      el("td", {}, attributionBar(categoryTimes(data, step), step.duration)),
      el("td", { class: "num" }, step.critical_rank >= 0 ? String(step.critical_rank) : ""), el("td", {}, step.critical_thread));
    row.addEventListener("click", () => void showSegments(segments, data, step));
    steps.append(row);
  }
  root.append(el("h3", {}, "Steps"), el("div", { class: "table-wrap", style: "max-height:400px" }, steps), segments);
  await showSegments(segments, data, data.steps[0]);
}
