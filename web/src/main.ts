// The UI shell: a hash router over the views (router.ts: `#view?key=value`). Each view renders
// into <main> and marks it data-ready="1" when its data is shown (the end-to-end tests wait
// for that). The timeline is part of this module; the other views are separate chunks loaded
// when first opened, so that the timeline's first frame does not wait for the chart library
// (web/build.mjs says why). A link to the view already shown is handed to it (navigate) when
// it can take one, so the timeline keeps its cache and lanes when a search result or a flow
// moves it.
import { run, tracks } from "./api";
import { el } from "./format";
import { currentRoute, dropTokenFromAddress } from "./router";
import { renderTimeline } from "./views/timeline";

export interface ViewHandle {
  cleanup?: () => void;
  navigate?: (params: URLSearchParams) => void;
}
type View = (root: HTMLElement, params: URLSearchParams) => Promise<void | (() => void) | ViewHandle>;

const views: [string, string, View][] = [
  ["overview", "Overview", async (root) => (await import("./views/overview")).renderOverview(root)],
  ["timeline", "Timeline", renderTimeline],
  ["operators", "Operators", async (root, params) => (await import("./views/tables")).renderTable(root, "operators", params)],
  ["kernels", "Kernels", async (root, params) => (await import("./views/tables")).renderTable(root, "kernels", params)],
  ["memory", "Memory", async (root) => (await import("./views/memory")).renderMemory(root)],
  ["resources", "Resources", async (root) => (await import("./views/resources")).renderResources(root)],
  ["communication", "Communication", async (root) => (await import("./views/communication")).renderCommunication(root)],
  ["cpu", "CPU", async (root) => (await import("./views/cpu")).renderCpu(root)],
  ["critical", "Critical path", async (root) => (await import("./views/critical_path")).renderCriticalPath(root)],
  ["dataprep", "Data preparation", async (root) => (await import("./views/dataprep")).renderDataPreparation(root)],
  ["advice", "Advice", async (root) => (await import("./views/advice")).renderAdvice(root)],
  ["compare", "Compare", async (root) => (await import("./views/compare")).renderCompare(root)],
  ["query", "Query", async (root, params) => (await import("./views/query")).renderQuery(root, params)],
];

let shown: { view: string; handle: ViewHandle } | null = null;

async function show(): Promise<void> {
  const route = currentRoute();
  const entry = views.find(([id]) => id === route.view) ?? views[0];
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.getAttribute("href") === `#${entry[0]}`);
  }
  const root = document.getElementById("view")!;
  if (shown?.view === entry[0] && shown.handle.navigate && root.dataset.ready === "1") {
    shown.handle.navigate(route.params);
    return;
  }
  shown?.handle.cleanup?.();
  shown = null;
  root.replaceChildren();
  root.dataset.view = entry[0];
  root.dataset.ready = "0";
  try {
    const result = await entry[2](root, route.params);
    shown = { view: entry[0], handle: typeof result === "function" ? { cleanup: result } : (result ?? {}) };
    root.dataset.ready = "1";
  } catch (error) {
    root.append(el("div", { class: "missing" }, `Could not load this view: ${String(error)}`));
    root.dataset.ready = "error";
  }
}

// performance.mark()s name the steps of the first page (bench/ui/bench_ui.mjs reports them).
async function start(): Promise<void> {
  performance.mark("aiprof:script");
  const nav = document.getElementById("nav")!;
  for (const [id, title] of views) nav.append(el("a", { href: `#${id}` }, title));
  window.addEventListener("hashchange", () => void show());
  // Both are small and ready on the server: ask for them together, so that the timeline's
  // first frame waits for one round trip less.
  void tracks();
  const info = await run();
  performance.mark("aiprof:run");
  dropTokenFromAddress();  // the server has set its cookie by now
  const main = info.processes.find((p) => p.role === "main") ?? info.processes[0];
  document.getElementById("run-name")!.textContent = main
    ? `${main.name} · ${info.prof_dirs.length} PROF dir(s)`
    : "";
  await show();
}

void start();
