// A table sorted by a clicked column (again: the other direction), shared by the Operators /
// Kernels tables and the Communication view: numbers sort as numbers, the rest as strings,
// the sorted column shows ▼ (descending) or ▲, and at most `limit` rows are drawn.
import { el } from "../format";

export const SHOWN_ROWS = 2000;

export interface Column<Row> {
  title: string;
  numeric: boolean;
  value: (row: Row) => number | string;  // what the column sorts by
  cell: (row: Row) => Node | string;
}

export function numberColumn<Row>(title: string, of: (row: Row) => number, text: (value: number) => string): Column<Row> {
  return { title, numeric: true, value: of, cell: (row) => text(of(row)) };
}

// Makes `table` sortable, starting descending by `sortColumn` (-1: in the order given, until a
// header is clicked). The returned draw() sorts and shows the rows it is given; a header click
// redraws the last ones in the new order.
export function sortable<Row>(
  table: HTMLTableElement,
  sortColumn: number,
  limit = SHOWN_ROWS,
): (columns: Column<Row>[], rows: Row[]) => void {
  let descending = true;
  let shownColumns: Column<Row>[] = [];
  let shownRows: Row[] = [];
  const draw = (columns: Column<Row>[], rows: Row[]): void => {
    shownColumns = columns;
    shownRows = rows;
    const value = columns[sortColumn]?.value;
    const sorted = !value ? rows : [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    const header = el("tr");
    columns.forEach((column, index) => {
      const arrow = index === sortColumn ? (descending ? " ▼" : " ▲") : "";
      const th = el("th", { class: column.numeric ? "num" : "" }, column.title + arrow);
      th.addEventListener("click", () => {
        descending = index === sortColumn ? !descending : column.numeric;
        sortColumn = index;
        draw(shownColumns, shownRows);
      });
      header.append(th);
    });
    const body = sorted.slice(0, limit).map((row) =>
      el("tr", {}, ...columns.map((column) => el("td", { class: column.numeric ? "num" : "" }, column.cell(row)))),
    );
    table.replaceChildren(header, ...body);
  };
  return draw;
}
