// Compare (`aiprof ui NEW --compare BASE`): analysis::CompareRuns' result, the numbers behind
// `aiprof compare`: operators and kernels ranked by the change of their total time (the top
// regressions first), and each side's step figures (mean over its steps).
import { type ComparedRun, type CompareDelta, type ComparisonData, getJson } from "../api";
import { el, micros } from "../format";

function deltaTable(id: string, rows: CompareDelta[], total: number, limit = 50): HTMLElement {
  const headers = ["Name", "Type", "Change", "Base Calls", "Base Total(us)", "Comparison Calls", "Comparison Total(us)", "Diff Total(us)", "Diff Ratio"];
  const table = el("table", { class: "data", id }, el("tr", {}, ...headers.map((h, i) => el("th", { class: i >= 3 ? "num" : "" }, h))));
  for (const d of rows.slice(0, limit)) {
    table.append(
      el(
        "tr",
        { class: d.diff_total > 0 ? "regression" : "" },
        el("td", {}, d.input_shape ? `${d.name} [${d.input_shape}]` : d.name),
        el("td", {}, d.type),
        el("td", {}, d.change),
        el("td", { class: "num" }, String(d.base_calls)),
        el("td", { class: "num" }, micros(d.base_total)),
        el("td", { class: "num" }, String(d.comparison_calls)),
        el("td", { class: "num" }, micros(d.comparison_total)),
        el("td", { class: "num" }, micros(d.diff_total)),
        el("td", { class: "num" }, d.total_ratio === null ? "inf" : d.total_ratio.toFixed(4)),
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
      for (const figure of data.step_figures) {
        table.append(el("tr", {}, el("td", {}, scope), el("td", {}, figure.name), el("td", { class: "num" }, micros(s[figure.base])), el("td", { class: "num" }, micros(s[figure.comparison])), el("td", { class: "num" }, micros(s[figure.diff]))));
      }
    }
    root.append(table);
  }
  root.append(el("h2", {}, "Top regressions: kernels"), deltaTable("compare-kernels", data.kernels, data.kernel_names));
  root.append(el("h2", {}, "Top regressions: operators"), deltaTable("compare-operators", data.operators, data.operator_names));
}
