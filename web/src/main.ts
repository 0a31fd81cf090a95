// The UI shell: a hash router over the views. Each view renders into <main> and marks it
// data-ready="1" when its data is shown (the end-to-end tests wait for that).
import { run, tracks } from "./api";
import { el } from "./format";
import { renderOverview } from "./views/overview";
import { renderTimeline } from "./views/timeline";
import { renderTable } from "./views/tables";
import { renderResources } from "./views/resources";
import { renderAbsent } from "./views/absent";
import { renderMemory } from "./views/memory";
import { renderDataPreparation } from "./views/dataprep";
import { renderAdvice } from "./views/advice";
import { renderCompare } from "./views/compare";

type View = (root: HTMLElement) => Promise<void | (() => void)>;

const views: [string, string, View][] = [
  ["overview", "Overview", renderOverview],
  ["timeline", "Timeline", renderTimeline],
  ["operators", "Operators", (root) => renderTable(root, "operators")],
  ["kernels", "Kernels", (root) => renderTable(root, "kernels")],
  ["memory", "Memory", renderMemory],
  ["resources", "Resources", renderResources],
  ["communication", "Communication", (root) => renderAbsent(root, "communication")],
  ["dataprep", "Data preparation", renderDataPreparation],
  ["advice", "Advice", renderAdvice],
  ["compare", "Compare", renderCompare],
];

let cleanup: (() => void) | void;

async function show(): Promise<void> {
  const name = location.hash.slice(1) || "overview";
  const entry = views.find(([id]) => id === name) ?? views[0];
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.getAttribute("href") === `#${entry[0]}`);
  }
  if (cleanup) cleanup();
  cleanup = undefined;
  const root = document.getElementById("view")!;
  root.replaceChildren();
  root.dataset.view = entry[0];
  root.dataset.ready = "0";
  try {
    cleanup = await entry[2](root);
    root.dataset.ready = "1";
  } catch (error) {
    root.append(el("div", { class: "missing" }, `Could not load this view: ${String(error)}`));
    root.dataset.ready = "error";
  }
}

async function start(): Promise<void> {
  const nav = document.getElementById("nav")!;
  for (const [id, title] of views) nav.append(el("a", { href: `#${id}` }, title));
  window.addEventListener("hashchange", () => void show());
  // Both are small and ready on the server: ask for them together, so that the timeline's
  // first frame waits for one round trip less.
  void tracks();
  const info = await run();
  const first = info.processes[0];
  document.getElementById("run-name")!.textContent = first
    ? `${first.name} · ${info.prof_dirs.length} PROF dir(s)`
    : "";
  await show();
}

void start();
