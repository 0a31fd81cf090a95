// Operators and Kernels: op_statistic's columns (the same numbers as the CSV), sortable by
// any column, filterable by name, core type and step.
import { getJson, run, TableData } from "../api";
import { el, micros } from "../format";
import { Column, SHOWN_ROWS, sortable } from "./sortable_table";

type Row = TableData["rows"][number];

const timeColumns = new Set([4, 5, 6, 7]);  // ns in the API, µs (3 decimals) as in the CSV

function cellText(value: string | number, column: number): string {
  if (timeColumns.has(column)) return micros(value as number);
  if (column === 8) return (value as number).toFixed(4);
  return String(value);
}

export async function renderTable(root: HTMLElement, name: "operators" | "kernels"): Promise<void> {
  const info = await run();
  let data = await getJson<TableData>(`/api/table/${name}`);
  root.append(el("h2", {}, name === "operators" ? "Operators (op_statistic)" : "Kernels (device tasks, op_statistic)"));
  if (data.missing) {
    root.append(el("div", { class: "missing", id: `${name}-missing` }, data.missing));
    return;
  }
  const filter = el("input", { placeholder: "filter by name", id: "table-filter" });
  const coreType = el("select", { id: "table-core-type" });
  const step = el("select", { id: "table-step" });
  step.append(el("option", { value: "-1" }, "all steps"));
  for (const [id, , , label] of info.steps) step.append(el("option", { value: String(id) }, `step ${label}`));
  const count = el("span", { class: "hint" });
  root.append(el("div", { class: "toolbar" }, filter, coreType, step, count));
  const table = el("table", { class: "data", id: `${name}-table` });
  root.append(el("div", { class: "table-wrap" }, table));
  const drawTable = sortable<Row>(table, 4);
  const columnsOf = (titles: string[]): Column<Row>[] =>
    titles.map((title, column) => ({
      title,
      numeric: column >= 3,
      value: (row) => row[column],
      cell: (row) => cellText(row[column], column),
    }));

  function fillCoreTypes(): void {
    const types = [...new Set(data.rows.map((r) => String(r[2])))].sort();
    const current = coreType.value;
    coreType.replaceChildren(el("option", { value: "" }, "all core types"), ...types.map((t) => el("option", { value: t }, t)));
    coreType.value = types.includes(current) ? current : "";
  }

  function draw(): void {
    const text = filter.value.toLowerCase();
    const rows = data.rows.filter(
      (r) => String(r[1]).toLowerCase().includes(text) && (!coreType.value || r[2] === coreType.value),
    );
    drawTable(columnsOf(data.columns), rows);
    count.textContent = `${rows.length} of ${data.rows.length} rows${rows.length > SHOWN_ROWS ? ` (first ${SHOWN_ROWS} shown)` : ""}`;
  }

  filter.addEventListener("input", draw);
  coreType.addEventListener("change", draw);
  step.addEventListener("change", async () => {
    data = await getJson<TableData>(`/api/table/${name}?step=${step.value}`);
    fillCoreTypes();
    draw();
  });
  fillCoreTypes();
  draw();
}
