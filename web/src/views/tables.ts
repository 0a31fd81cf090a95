// Operators and Kernels: analysis::ComputeOperatorTable's rows (op_statistic's columns and
// numbers, plus the process and its role, self time beside total, and total and self as
// shares of the wall time the table covers), sortable by any column, filterable by name,
// process, core type and step. A name opens its longest call on the timeline. The address
// keeps the step and the filters.
import { getJson, run, TableData } from "../api";
import { el, micros } from "../format";
import { replaceParams, timelineLink } from "../router";
import { Column, SHOWN_ROWS, sortable } from "./sortable_table";

type Row = { cells: (string | number)[]; slice: number };

const timeColumns = new Set([5, 6, 7, 8, 9]);  // ns in the API, µs (3 decimals) as in the CSV
const NAME = 2;

function cellText(value: string | number, column: number): string {
  if (timeColumns.has(column)) return micros(value as number);
  if (column >= 10) return (value as number).toFixed(column === 12 ? 4 : 2);
  return String(value);
}

export async function renderTable(root: HTMLElement, name: "operators" | "kernels", params: URLSearchParams): Promise<void> {
  const info = await run();
  const initialStep = params.get("step") ?? "-1";
  let data = await getJson<TableData>(`/api/table/${name}${initialStep !== "-1" ? `?step=${initialStep}` : ""}`);
  root.append(el("h2", {}, name === "operators" ? "Operators (framework operators: op_statistic / api_statistic)" : "Kernels (device tasks, op_statistic)"));
  if (data.missing) {
    root.append(el("div", { class: "missing", id: `${name}-missing` }, data.missing));
    return;
  }
  root.append(
    el("div", { class: "hint" }, "Total includes the operators it calls; Self is the rest (the time in this operator itself). Total/Wall and Self/Wall are shares of the wall time the table covers (the run, or the chosen step), per row: they do not add nested time twice. Ratio(%) is op_statistic's: a share of the process's summed total. Click a name for its longest call on the timeline."),
  );
  const filter = el("input", { placeholder: "filter by name", id: "table-filter", value: params.get("filter") ?? "" });
  const process = el("select", { id: "table-process" });
  const coreType = el("select", { id: "table-core-type" });
  const step = el("select", { id: "table-step" });
  step.append(el("option", { value: "-1" }, "all steps"));
  for (const [id, , , label] of info.steps) step.append(el("option", { value: String(id) }, `step ${label}`));
  step.value = initialStep;
  const count = el("span", { class: "hint", id: "table-count" });
  const wall = el("span", { class: "hint", id: "table-wall" });
  root.append(el("div", { class: "toolbar" }, filter, process, coreType, step, count, wall));
  const table = el("table", { class: "data", id: `${name}-table` });
  root.append(el("div", { class: "table-wrap" }, table));
  const drawTable = sortable<Row>(table, 5);
  const columnsOf = (titles: string[]): Column<Row>[] =>
    titles.map((title, column) => ({
      title,
      numeric: column >= 4,
      value: (row) => row.cells[column],
      cell: (row) =>
        column === NAME && row.slice >= 0
          ? timelineLink(String(row.cells[column]), { slice: row.slice }, "its longest call on the timeline")
          : cellText(row.cells[column], column),
    }));

  function fillChoices(select: HTMLSelectElement, column: number, all: string, wanted: string | null): void {
    const values = [...new Set(data.rows.map((r) => String(r[column])))].sort();
    const current = wanted ?? select.value;
    select.replaceChildren(el("option", { value: "" }, all), ...values.map((t) => el("option", { value: t }, t)));
    select.value = values.includes(current) ? current : "";
  }

  function draw(): void {
    const text = filter.value.toLowerCase();
    const rows: Row[] = [];
    data.rows.forEach((cells, i) => {
      if (!String(cells[NAME]).toLowerCase().includes(text)) return;
      if (process.value && cells[0] !== process.value) return;
      if (coreType.value && cells[3] !== coreType.value) return;
      rows.push({ cells, slice: data.slices[i] ?? -1 });
    });
    drawTable(columnsOf(data.columns), rows);
    count.textContent = `${rows.length} of ${data.rows.length} rows${rows.length > SHOWN_ROWS ? ` (first ${SHOWN_ROWS} shown)` : ""}`;
    wall.textContent = data.wall ? `· wall time ${micros(data.wall)} µs` : "";
    replaceParams(name, {
      step: step.value !== "-1" ? step.value : undefined,
      filter: filter.value || undefined,
      process: process.value || undefined,
    });
  }

  filter.addEventListener("input", draw);
  process.addEventListener("change", draw);
  coreType.addEventListener("change", draw);
  step.addEventListener("change", async () => {
    data = await getJson<TableData>(`/api/table/${name}?step=${step.value}`);
    fillChoices(process, 0, "all processes", null);
    fillChoices(coreType, 3, "all core types", null);
    draw();
  });
  fillChoices(process, 0, "all processes", params.get("process"));
  fillChoices(coreType, 3, "all core types", null);
  draw();
}
