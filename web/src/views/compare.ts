// Compare (`aiprof ui NEW --compare BASE`): analysis::CompareRuns' result, the numbers behind
// `aiprof compare`: operators and kernels ranked by the change of their total time (the top
// regressions first), and each side's step figures (mean over its steps).
import { getJson } from "../api";
import { el, micros } from "../format";

type Delta = [string, string, string, string, number, number, number, number, number, number | null];
interface ComparedRun {
  label: string;
  steps: number;
  step_source: string;
  device_run: boolean;
  dropped_records: number;
}
interface StepRow {
  device: number;
  rank: number;
  mean: boolean;
  base_step: number;
  comparison_step: number;
  base: number[];
  comparison: number[];
}
interface ComparisonData {
  missing: string | null;
  base: ComparedRun;
  comparison: ComparedRun;
  notes: string[];
  operator_names: number;
  kernel_names: number;
  operators: Delta[];
  kernels: Delta[];
  step_figures: string[];
  steps: StepRow[];
}

function deltaTable(id: string, rows: Delta[], total: number, limit = 50): HTMLElement {
  const headers = ["Name", "Type", "Change", "Base Calls", "Base Total(us)", "Comparison Calls", "Comparison Total(us)", "Diff Total(us)", "Diff Ratio"];
  const table = el("table", { class: "data", id }, el("tr", {}, ...headers.map((h, i) => el("th", { class: i >= 3 ? "num" : "" }, h))));
  for (const [name, type, shape, change, baseCalls, baseTotal, calls, totalNs, diff, ratio] of rows.slice(0, limit)) {
    table.append(
      el(
        "tr",
        { class: diff > 0 ? "regression" : "" },
        el("td", {}, shape ? `${name} [${shape}]` : name),
        el("td", {}, type),
        el("td", {}, change),
        el("td", { class: "num" }, String(baseCalls)),
        el("td", { class: "num" }, micros(baseTotal)),
        el("td", { class: "num" }, String(calls)),
        el("td", { class: "num" }, micros(totalNs)),
        el("td", { class: "num" }, micros(diff)),
        el("td", { class: "num" }, ratio === null ? "inf" : ratio.toFixed(4)),
      ),
    );
  }
  return el("div", {}, table, el("div", { class: "hint" }, `${Math.min(rows.length, limit)} of ${total} names, largest regression first`));
}

export async function renderCompare(root: HTMLElement): Promise<void> {
  const data = await getJson<ComparisonData>("/api/compare");
  root.append(el("h2", {}, "Compare"));
  if (data.missing) {
    root.append(el("div", { class: "missing", id: "compare-missing" }, data.missing));
    return;
  }
  const side = (title: string, run: ComparedRun) =>
    el("div", { class: "card" }, el("div", { class: "label" }, title), el("div", {}, run.label), el("div", { class: "hint" }, `${run.steps} steps (${run.step_source}) · ${run.device_run ? "CUDA" : "CPU-only"} · ${run.dropped_records} dropped`));
  root.append(el("div", { class: "cards", id: "compare-runs" }, side("Base", data.base), side("Comparison (this run)", data.comparison)));
  for (const note of data.notes) root.append(el("div", { class: "missing" }, note));
  const means = data.steps.filter((s) => s.mean);
  if (means.length) {
    root.append(el("h2", {}, "Step figures (mean per step)"));
    const table = el("table", { class: "data", id: "compare-steps" }, el("tr", {}, el("th", {}, "Scope"), el("th", {}, "Figure"), el("th", { class: "num" }, "Base(us)"), el("th", { class: "num" }, "Comparison(us)"), el("th", { class: "num" }, "Diff(us)")));
    for (const s of means) {
      const scope = s.device >= 0 ? `device ${s.device}` : "host";
      data.step_figures.forEach((figure, i) =>
        table.append(el("tr", {}, el("td", {}, scope), el("td", {}, figure), el("td", { class: "num" }, micros(s.base[i])), el("td", { class: "num" }, micros(s.comparison[i])), el("td", { class: "num" }, micros(s.comparison[i] - s.base[i])))),
      );
    }
    root.append(table);
  }
  root.append(el("h2", {}, "Top regressions: kernels"), deltaTable("compare-kernels", data.kernels, data.kernel_names));
  root.append(el("h2", {}, "Top regressions: operators"), deltaTable("compare-operators", data.operators, data.operator_names));
}
