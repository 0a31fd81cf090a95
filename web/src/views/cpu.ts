// CPU: the CPU sampling data (--sys-cpu-profiling=on) as flame graphs: on-CPU (samples) or
// off-CPU (µs blocked), the numbers of the exported cpu_stacks.folded / offcpu_stacks.folded.
// Drawn as an icicle (the root at the top, callees below it) so that the root stays in view
// however deep the stacks go; a frame's width is its share of the zoomed frame, its colour
// its function name's hash. Click a frame to zoom into it, the root (or Esc) to zoom out;
// hover for the function, its value and its share; search highlights matching frames. A
// thread selector narrows both graphs to one thread (/api/cpu_threads lists those with
// samples); the choice is kept when switching between on- and off-CPU.
import { getJson } from "../api";
import { card, colorOfHue, el, formatNs, formatValue } from "../format";
import { CpuProfileData, FlameLayout, layoutFlame, matchNames } from "./flame_layout";

const ROW_HEIGHT = 18;
const MATCH_COLOR = "#d946ef";
const PALETTE = Array.from({ length: 360 }, (_, hue) => colorOfHue(hue));

// A thread with samples (/api/cpu_threads): its weight in the on- and off-CPU graphs.
export interface CpuThread {
  thread: number;  // ThreadTable row: the `thread=` of /api/cpu_profile
  tid: number;
  name: string;
  process: number;
  pid: number;
  process_name: string;
  on_samples: number;
  off_us: number;
}

// What the end-to-end test reads (web/e2e/ui_e2e.mjs), as the timeline's handle.
export interface CpuHandle {
  kind: "on" | "off";
  thread: number;         // the selected thread's row, -1 for every thread
  threads: CpuThread[];   // the selector's threads, most on-CPU samples first
  total: number;
  nodes: number;
  zoomed: number;         // the node the graph is zoomed into (0: the root)
  zoomedName: string;
  zoomedValue: number;
  drawnFrames: number;    // frames drawn in the last frame
  frameCenter(node: number): { x: number; y: number } | null;  // CSS px in the canvas
  nodeNamed(name: string): number;  // the first node with that function name, or -1
}

declare global {
  interface Window {
    __aiprofCpu?: CpuHandle;
  }
}

function formatWeight(data: CpuProfileData, value: number): string {
  return data.unit === "us" ? formatNs(value * 1000) : `${formatValue(value)} samples`;
}

// The flame graph of one answer: its canvas, tooltip and zoom state.
class FlameGraph {
  readonly element: HTMLElement;
  private readonly canvas = el("canvas", { id: "cpu-flame" });
  private readonly tooltip = el("div", { class: "cpu-tooltip", id: "cpu-tooltip" });
  private readonly layout: FlameLayout;
  private readonly matches: Uint8Array;
  private readonly textWidth: Float64Array;  // per name, measured once (-1: not yet)
  private zoom = 0;
  private width = 0;

  constructor(readonly data: CpuProfileData, private readonly handle: CpuHandle) {
    this.layout = layoutFlame(data);
    this.matches = new Uint8Array(data.names.length);
    this.textWidth = new Float64Array(data.names.length).fill(-1);
    this.element = el("div", { class: "cpu-flame-wrap" }, this.canvas, this.tooltip);
    this.canvas.addEventListener("mousemove", (e) => this.hover(e.offsetX, e.offsetY));
    this.canvas.addEventListener("mouseleave", () => (this.tooltip.style.display = "none"));
    this.canvas.addEventListener("click", (e) => {
      const node = this.nodeAt(e.offsetX, e.offsetY);
      if (node >= 0) this.zoomTo(node);
    });
    handle.nodes = this.layout.length;
    handle.total = this.layout.length ? this.layout.value[0] : 0;
  }

  zoomTo(node: number): void {
    this.zoom = node;
    this.handle.zoomed = node;
    this.handle.zoomedName = this.layout.names[this.layout.name[node]];
    this.handle.zoomedValue = this.layout.value[node];
    this.draw();
  }

  // Highlights the frames whose name contains `text`; returns their share of the total.
  search(text: string): number {
    const share = matchNames(this.layout, text, this.matches);
    this.draw();
    return share;
  }

  resize(): void {
    this.width = Math.max(200, this.element.clientWidth);
    const height = (this.layout.maxDepth + 1) * ROW_HEIGHT;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${height}px`;
    this.draw();
  }

  // The frame's left and right edges in CSS px under the current zoom.
  private left(node: number): number {
    const l = this.layout;
    return Math.max(0, (l.start[node] - l.start[this.zoom]) * (this.width / l.value[this.zoom]));
  }
  private right(node: number): number {
    const l = this.layout;
    const scale = this.width / l.value[this.zoom];
    return Math.min(this.width, (l.start[node] + l.value[node] - l.start[this.zoom]) * scale);
  }

  // Whether the frame shows (at least half a pixel wide, inside the zoomed frame): when it
  // does not, neither does anything under it.
  private shows(node: number): boolean {
    const l = this.layout;
    const from = l.start[this.zoom];
    const to = from + l.value[this.zoom];
    if (l.value[node] <= 0 || l.start[node] >= to || l.start[node] + l.value[node] <= from) return false;
    return this.right(node) - this.left(node) >= 0.5;
  }

  private draw(): void {
    const l = this.layout;
    const ctx = this.canvas.getContext("2d")!;
    const ratio = window.devicePixelRatio || 1;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, this.width, (l.maxDepth + 1) * ROW_HEIGHT);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    let drawn = 0;
    if (l.length === 0 || l.value[this.zoom] <= 0) return;
    for (let i = 0; i < l.length; ) {
      if (!this.shows(i)) {
        i = l.subtreeEnd[i];
        continue;
      }
      const x = this.left(i);
      const w = this.right(i) - x;
      const y = l.depth[i] * ROW_HEIGHT;
      const name = l.name[i];
      ctx.fillStyle = this.matches[name] ? MATCH_COLOR : PALETTE[l.nameHue[name]];
      ctx.fillRect(x, y, Math.max(0.5, w - 0.5), ROW_HEIGHT - 1);
      if (w > 24) this.label(ctx, name, x, y, w);
      drawn++;
      i++;
    }
    this.handle.drawnFrames = drawn;
  }

  private label(ctx: CanvasRenderingContext2D, name: number, x: number, y: number, w: number): void {
    const text = this.layout.names[name];
    if (this.textWidth[name] < 0) this.textWidth[name] = ctx.measureText(text).width;
    ctx.fillStyle = "#1d2330";
    if (this.textWidth[name] <= w - 6) {
      ctx.fillText(text, x + 3, y + ROW_HEIGHT / 2);
      return;
    }
    // Too long for the frame: cut at its edge rather than building a shortened string.
    ctx.save();
    ctx.beginPath();
    ctx.rect(x, y, w - 3, ROW_HEIGHT);
    ctx.clip();
    ctx.fillText(text, x + 3, y + ROW_HEIGHT / 2);
    ctx.restore();
  }

  // The frame under (x, y) in CSS px, or -1: only the subtrees under x are walked.
  nodeAt(x: number, y: number): number {
    const l = this.layout;
    const depth = Math.floor(y / ROW_HEIGHT);
    for (let i = 0; i < l.length; ) {
      if (!this.shows(i) || x < this.left(i) || x >= this.right(i)) {
        i = l.subtreeEnd[i];
        continue;
      }
      if (l.depth[i] === depth) return i;
      i++;
    }
    return -1;
  }

  frameCenter(node: number): { x: number; y: number } | null {
    if (node < 0 || node >= this.layout.length || !this.shows(node)) return null;
    return { x: (this.left(node) + this.right(node)) / 2, y: this.layout.depth[node] * ROW_HEIGHT + ROW_HEIGHT / 2 };
  }

  nodeNamed(name: string): number {
    for (let i = 0; i < this.layout.length; i++) if (this.layout.names[this.layout.name[i]] === name) return i;
    return -1;
  }

  private hover(x: number, y: number): void {
    const node = this.nodeAt(x, y);
    if (node < 0) {
      this.tooltip.style.display = "none";
      return;
    }
    const l = this.layout;
    const share = (100 * l.value[node]) / l.value[0];
    this.tooltip.replaceChildren(
      el("div", { class: "cpu-tooltip-name" }, l.names[l.name[node]]),
      el("div", {}, `${formatWeight(this.data, l.value[node])} · ${share.toFixed(2)}% of the total`),
    );
    this.tooltip.style.display = "block";
    this.tooltip.style.left = `${Math.min(x + 12, this.width - 320)}px`;
    this.tooltip.style.top = `${y + 14}px`;
  }
}

export async function renderCpu(root: HTMLElement): Promise<() => void> {
  const handle: CpuHandle = {
    kind: "on", thread: -1, threads: [], total: 0, nodes: 0, zoomed: 0, zoomedName: "", zoomedValue: 0, drawnFrames: 0,
    frameCenter: (node) => graph?.frameCenter(node) ?? null,
    nodeNamed: (name) => graph?.nodeNamed(name) ?? -1,
  };
  let graph: FlameGraph | null = null;
  const onButton = el("button", { id: "cpu-kind-on" }, "On-CPU");
  const offButton = el("button", { id: "cpu-kind-off" }, "Off-CPU (blocked)");
  const threadSelect = el("select", { id: "cpu-thread", title: "the thread whose samples the graphs show" });
  const searchBox = el("input", { id: "cpu-search", placeholder: "highlight functions containing…" });
  const searchShare = el("span", { class: "hint", id: "cpu-search-share" });
  const body = el("div", { id: "cpu-body" });
  root.append(
    el("h2", {}, "CPU"),
    el("div", { class: "toolbar" }, onButton, offButton, threadSelect, searchBox, searchShare,
      el("span", { class: "hint" }, "click a frame to zoom in, the root or Esc to zoom out")),
    body,
  );

  const search = () => {
    const share = graph?.search(searchBox.value) ?? 0;
    searchShare.textContent = searchBox.value && graph ? `matches: ${(100 * share).toFixed(2)}% of the total` : "";
  };
  let kind: "on" | "off" = "on";
  let thread = -1;
  let request = 0;  // answers to an older choice than the latest are dropped
  async function load(): Promise<void> {
    const mine = ++request;
    const filter = thread >= 0 ? `&thread=${thread}` : "";
    const data = await getJson<CpuProfileData>(`/api/cpu_profile?kind=${kind}${filter}`);
    if (mine !== request) return;
    onButton.classList.toggle("active", kind === "on");
    offButton.classList.toggle("active", kind === "off");
    graph = null;
    body.replaceChildren();
    handle.total = 0;
    handle.nodes = 0;
    if (data.missing) {
      body.append(el("div", { class: "missing", id: "cpu-missing" }, data.missing));
    } else {
      graph = new FlameGraph(data, handle);
      const what = (kind === "on" ? "on-CPU samples" : "time blocked") +
        (thread >= 0 ? " of the selected thread" : kind === "on" ? " (cpu_stacks.folded)" : " (offcpu_stacks.folded)");
      body.append(
        el("div", { class: "cards", id: "cpu-summary" },
          card(kind === "on" ? "samples" : "blocked", formatWeight(data, data.total)),
          card("frames shown", formatValue(data.nodes.length / 3)),
        ),
        el("div", { class: "hint", id: "cpu-pruned" },
          `${formatValue(data.pruned_nodes)} frames under ${100 * data.min_share}% of the total not shown ` +
          `(${formatWeight(data, data.pruned_value)}); widths are ${what}`),
        ...data.warnings.map((w) => el("div", { class: "hint" }, w)),
        graph.element,
      );
      graph.resize();
      graph.zoomTo(0);
      search();
    }
    handle.kind = kind;
    handle.thread = thread;
  }
  onButton.addEventListener("click", () => {
    kind = "on";
    void load();
  });
  offButton.addEventListener("click", () => {
    kind = "off";
    void load();
  });
  threadSelect.addEventListener("change", () => {
    thread = Number(threadSelect.value);
    void load();
  });
  searchBox.addEventListener("input", search);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape" && graph) graph.zoomTo(0);
  };
  const onResize = () => graph?.resize();
  window.addEventListener("keydown", onKey);
  window.addEventListener("resize", onResize);
  window.__aiprofCpu = handle;
  const { threads } = await getJson<{ threads: CpuThread[] }>("/api/cpu_threads");
  handle.threads = threads;
  threadSelect.append(el("option", { value: "-1" }, `all threads (${threads.length})`),
    ...threads.map((t) => el("option", { value: String(t.thread) },
      `${t.name || "thread"} · tid ${t.tid} · pid ${t.pid} — ${formatValue(t.on_samples)} samples, ` +
      `${formatNs(t.off_us * 1000)} blocked`)));
  threadSelect.disabled = threads.length === 0;
  await load();
  return () => {
    window.removeEventListener("keydown", onKey);
    window.removeEventListener("resize", onResize);
    delete window.__aiprofCpu;
  };
}
