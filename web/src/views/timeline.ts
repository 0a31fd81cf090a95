// Timeline: our own canvas renderer. The server answers by time range and pixel
// resolution (level of detail per track), so a frame draws from a cache covering three
// screen widths and a fetch happens only when the view leaves that cache or the zoom level
// changes by more than half: pan and zoom frames never wait for the network.
//   W/S zoom in/out, A/D pan, ctrl+wheel zoom, wheel scroll, drag pan,
//   shift+drag select a range (statistics), click a slice (details), search by name.
import { analysis, counters, getJson, run, tracks, AnalysisSummary, ProcessTracks } from "../api";
import { colorOf, el, formatNs } from "../format";

const LABEL_W = 210;
const RULER_H = 30;
const DEPTH_H = 16;
const COUNTER_H = 36;
const PROCESS_H = 20;

type Span = [depth: number, ts: number, dur: number, count: number, slice: number, name: number];
type Instant = [ts: number, row: number, name: number];
type Flow = [fromTrack: number, fromDepth: number, fromTs: number, toTrack: number, toDepth: number, toTs: number, category: string];

interface Lane {
  kind: "process" | "track" | "counter" | "overlap";
  label: string;
  id: number;
  y: number;
  h: number;
  depths: number;
}

interface Cache {
  t0: number;
  t1: number;
  nsPerPx: number;
  tracks: Map<number, { spans: Span[]; instants: Instant[] }>;
  names: string[];
  colors: string[];  // per name, computed once per answer rather than per span and frame
  counters: Map<number, [number, number, number][]>;
  flows: Flow[];
  overlap: Map<number, [number, number][][]>;  // per scope: Computing, Communication, ...
}

const OVERLAP_COLORS = ["#7fb3e8", "#b38fe8", "#e88f8f", "#c9d1e0"];
const MERGED_COLOR = "#9aa6b8";
const SELECTED_COLOR = "#1d4ed8";

// The spans of one track as drawn at `nsPerPx`: the server merged what shares a pixel of the
// cache's resolution (three times the screen's); zoomed out further, neighbours whose gap and
// widths are all under one screen pixel are merged here by the same rule (the longest one
// names the run, a run of several is grey), so a frame draws at most about one rectangle per
// pixel and row, however many spans the cache holds. Spans come grouped by depth, by time.
function forEachScreenSpan(
  spans: Span[],
  t0: number,
  t1: number,
  nsPerPx: number,
  visit: (depth: number, ts: number, end: number, count: number, slice: number, name: number) => void,
): void {
  let depth = -1;
  let ts = 0;
  let end = 0;
  let count = 0;
  let slice = 0;
  let name = 0;
  let longest = 0;
  let previousEnd = 0;
  let previousDur = 0;
  for (const span of spans) {
    const [d, s, dur, n, id, nameIndex] = span;
    if (s + dur < t0 || s > t1) continue;
    if (d === depth && Math.max(s - previousEnd, previousDur, dur) < nsPerPx) {
      end = Math.max(end, s + dur);
      count += n;
      if (dur > longest) {
        longest = dur;
        slice = id;
        name = nameIndex;
      }
    } else {
      if (depth >= 0) visit(depth, ts, end, count, slice, name);
      depth = d;
      ts = s;
      end = s + dur;
      count = n;
      slice = id;
      name = nameIndex;
      longest = dur;
    }
    previousEnd = s + dur;
    previousDur = dur;
  }
  if (depth >= 0) visit(depth, ts, end, count, slice, name);
}

interface TimelineHandle {
  window: () => [number, number];
  setWindow: (t0: number, t1: number) => void;
  frames: number[];
  fetches: number;
  firstDataFrameAt: number;
  drawnSpans: number;
  selected: number;
}

declare global {
  interface Window {
    __aiprofTimeline?: TimelineHandle;
  }
}

// Processes with slices first (the job, then devices), counter-only ones (the launcher's
// host sampler) after them.
function buildLanes(processes: ProcessTracks[], summary: AnalysisSummary): Lane[] {
  const lanes: Lane[] = [];
  let y = 0;
  const hasSlices = (p: ProcessTracks) => p.threads.some((t) => t.tracks.some((k) => k.rows > 0));
  const ordered = [...processes.filter(hasSlices), ...processes.filter((p) => !hasSlices(p))];
  for (const p of ordered) {
    lanes.push({ kind: "process", label: `${p.name || "process"} (${p.label || p.pid})`, id: p.id, y, h: PROCESS_H, depths: 0 });
    y += PROCESS_H;
    for (const t of p.threads) {
      for (const track of t.tracks) {
        if (track.rows === 0) continue;
        const label = `${t.name || "thread"} ${t.tid}${track.lane ? ` · lane ${track.lane}` : ""}`;
        const h = track.rows * DEPTH_H + 4;
        lanes.push({ kind: "track", label, id: track.id, y, h, depths: track.rows });
        y += h;
      }
    }
    summary.scopes.forEach((scope, index) => {
      if (scope.process !== p.id) return;
      lanes.push({ kind: "overlap", label: "Overlap Analysis", id: index, y, h: 4 * DEPTH_H + 4, depths: 4 });
      y += 4 * DEPTH_H + 4;
    });
    for (const c of p.counters) {
      lanes.push({ kind: "counter", label: `${c.name} #${c.instance}${c.unit ? ` (${c.unit})` : ""}`, id: c.id, y, h: COUNTER_H, depths: 0 });
      y += COUNTER_H;
    }
  }
  return lanes;
}

export async function renderTimeline(root: HTMLElement): Promise<() => void> {
  const [info, layout] = await Promise.all([run(), tracks()]);
  // The ruler walks the steps left to right (the model's come per file and thread).
  const stepsByStart = [...info.steps].sort((a, b) => a[1] - b[1]);
  // The analyses may still be running on the server: draw the tracks now and add the
  // Overlap Analysis lanes when their results arrive.
  let lanes = buildLanes(layout.processes, { inputs: "", step_source: "", scopes: [], step_breakdown: [], step_trace: [] });
  let overlapLaneNames: string[] = [];
  const heightOf = (all: Lane[]) => (all.length ? all[all.length - 1].y + all[all.length - 1].h : 0);
  let contentHeight = heightOf(lanes);

  const wrap = el("div", { id: "timeline-canvas-wrap", tabindex: "0" });
  const canvas = el("canvas", { id: "timeline-canvas" });
  wrap.append(canvas);
  const searchBox = el("input", { id: "timeline-search", placeholder: "search slices by name (Enter)" });
  const flowsToggle = el("input", { type: "checkbox", id: "timeline-flows" });
  flowsToggle.checked = true;
  const results = el("div", { class: "search-results", id: "timeline-search-results" });
  const details = el("div", { class: "panel", id: "timeline-details" }, el("div", { class: "hint" }, "Click a slice for its details."));
  const selection = el("div", { class: "panel", id: "timeline-selection" }, el("div", { class: "hint" }, "Shift+drag to select a range and see its statistics."));
  const side = el(
    "div",
    { id: "timeline-side" },
    el("div", { class: "panel" }, searchBox, results),
    el("label", { class: "hint" }, flowsToggle, " show flows (launch → kernel, forward → backward)"),
    el("div", { class: "hint" }, "W/S zoom · A/D pan · ctrl+wheel zoom · wheel scroll · drag pan · shift+drag select"),
    details,
    selection,
  );
  const timelineRoot = el("div", { id: "timeline-root" }, wrap, side);
  root.append(timelineRoot);

  const ctx = canvas.getContext("2d")!;
  let width = 0;
  let height = 0;
  let v0 = 0;
  let v1 = Math.max(info.end, 1);
  let scrollY = 0;
  let cache: Cache | null = null;
  let pending = false;
  let wanted = false;
  let selected = -1;
  let range: [number, number] | null = null;
  let mouseX = -1;
  const handle: TimelineHandle = {
    window: () => [v0, v1],
    setWindow: (a, b) => setWindow(a, b),
    frames: [],
    fetches: 0,
    firstDataFrameAt: 0,
    drawnSpans: 0,
    selected: -1,
  };
  window.__aiprofTimeline = handle;

  function resize(): void {
    const dpr = window.devicePixelRatio || 1;
    width = wrap.clientWidth;
    height = wrap.clientHeight;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  const plotWidth = () => Math.max(width - LABEL_W, 1);
  const nsPerPx = () => (v1 - v0) / plotWidth();
  const xOf = (t: number) => LABEL_W + (t - v0) / nsPerPx();
  const tOf = (x: number) => v0 + (x - LABEL_W) * nsPerPx();

  function visibleLanes(margin = 0): Lane[] {
    return lanes.filter((l) => l.y + l.h >= scrollY - margin && l.y <= scrollY + height - RULER_H + margin);
  }

  function needsFetch(): boolean {
    if (!cache) return true;
    const ratio = nsPerPx() / cache.nsPerPx;
    if (v0 < cache.t0 || v1 > cache.t1 || ratio < 0.5 || ratio > 1.5) return true;
    return visibleLanes().some(
      (l) =>
        (l.kind === "track" && !cache!.tracks.has(l.id)) ||
        (l.kind === "counter" && !cache!.counters.has(l.id)) ||
        (l.kind === "overlap" && !cache!.overlap.has(l.id)),
    );
  }

  async function fetchWindow(): Promise<void> {
    if (pending) {
      wanted = true;
      return;
    }
    pending = true;
    const span = v1 - v0;
    const t0 = Math.max(Math.floor(v0 - span), Math.min(0, Math.floor(v0)));
    const t1 = Math.ceil(v1 + span);
    const px = Math.min(plotWidth() * 3, 20000);
    const shown = visibleLanes(height);
    const trackIds = shown.filter((l) => l.kind === "track").map((l) => l.id);
    const counterIds = shown.filter((l) => l.kind === "counter").map((l) => l.id);
    try {
      const wantOverlap = shown.some((l) => l.kind === "overlap");
      const [slices, counterData, flows, overlap] = await Promise.all([
        trackIds.length
          ? getJson<{ tracks: { id: number; spans: Span[]; instants: Instant[] }[]; names: string[] }>(
              `/api/slices?t0=${t0}&t1=${t1}&px=${px}&tracks=${trackIds.join(",")}`,
            )
          : Promise.resolve({ tracks: [], names: [] }),
        counterIds.length ? counters(counterIds, t0, t1, px) : Promise.resolve({ series: [] }),
        flowsToggle.checked ? getJson<{ flows: Flow[] }>(`/api/flows?t0=${t0}&t1=${t1}&px=${px}`) : Promise.resolve({ flows: [] }),
        wantOverlap
          ? getJson<{ scopes: { lanes: [number, number][][] }[]; lanes: string[] }>(`/api/overlap?t0=${t0}&t1=${t1}&px=${px}`)
          : Promise.resolve({ scopes: [], lanes: [] }),
      ]);
      overlapLaneNames = overlap.lanes;
      if (!handle.fetches) performance.mark("aiprof:timeline-data");
      handle.fetches++;
      cache = {
        t0,
        t1,
        nsPerPx: (t1 - t0) / px,
        tracks: new Map(slices.tracks.map((t) => [t.id, { spans: t.spans, instants: t.instants }])),
        names: slices.names,
        colors: slices.names.map(colorOf),
        counters: new Map(counterData.series.map((s) => [s.id, s.points])),
        flows: flows.flows,
        overlap: new Map(overlap.scopes.map((s, i) => [i, s.lanes])),
      };
    } finally {
      pending = false;
    }
    draw();
    if (wanted || needsFetch()) {
      wanted = false;
      if (needsFetch()) void fetchWindow();
    }
  }

  function setWindow(a: number, b: number): void {
    const minSpan = 1000;
    if (b - a < minSpan) {
      const mid = (a + b) / 2;
      a = mid - minSpan / 2;
      b = mid + minSpan / 2;
    }
    v0 = a;
    v1 = b;
    draw();
    if (needsFetch()) void fetchWindow();
  }

  function zoom(factor: number, atX: number): void {
    const anchor = tOf(atX >= LABEL_W ? atX : LABEL_W + plotWidth() / 2);
    setWindow(anchor - (anchor - v0) * factor, anchor + (v1 - anchor) * factor);
  }

  function pan(fraction: number): void {
    const d = (v1 - v0) * fraction;
    setWindow(v0 + d, v1 + d);
  }

  function drawRuler(): void {
    ctx.fillStyle = "#eef1f6";
    ctx.fillRect(0, 0, width, RULER_H);
    ctx.font = "10px system-ui";
    // Every other step is a band; steps narrower than 2 px could not be told apart, so a run
    // of them is one band at half the tint (thousands of steps at full zoom-out).
    let denseLeft = -1;
    let denseRight = -1;
    const flushDense = () => {
      if (denseLeft < 0) return;
      ctx.fillStyle = "rgba(91,156,246,0.09)";
      ctx.fillRect(denseLeft, 16, Math.max(denseRight - denseLeft, 1), RULER_H - 16);
      denseLeft = -1;
    };
    for (const [step, begin, end] of stepsByStart) {
      const x0 = Math.max(xOf(begin), LABEL_W);
      const x1 = Math.min(xOf(end), width);
      if (x0 > width) break;
      if (x1 < LABEL_W) continue;
      if (x1 - x0 < 2) {
        if (denseLeft < 0) {
          denseLeft = x0;
          denseRight = x1;
        } else {
          denseRight = Math.max(denseRight, x1);
        }
        continue;
      }
      flushDense();
      if (step % 2 === 0) {
        ctx.fillStyle = "rgba(91,156,246,0.18)";
        ctx.fillRect(x0, 16, x1 - x0, RULER_H - 16);
      }
      if (x1 - x0 > 40) {
        ctx.fillStyle = "#3d5a80";
        ctx.fillText(`step ${step}`, x0 + 2, RULER_H - 3);
      }
    }
    flushDense();
    const spanNs = v1 - v0;
    const target = spanNs / (plotWidth() / 100);
    const decade = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
    const tick = [1, 2, 5, 10].map((m) => m * decade).find((t) => t >= target) ?? 10 * decade;
    ctx.fillStyle = "#445";
    ctx.strokeStyle = "#c5ccd8";
    for (let t = Math.ceil(v0 / tick) * tick; t < v1; t += tick) {
      const x = xOf(t);
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, 14);
      ctx.stroke();
      ctx.fillText(formatNs(t), x + 2, 11);
    }
  }

  // Scratch of draw(), kept between frames: per colour, x/y/width of the rectangles to fill;
  // the span labels to write over them; the markers' x/y.
  const batches = new Map<string, number[]>();
  const labels: number[] = [];
  const markers: number[] = [];

  function draw(): void {
    const started = performance.now();
    ctx.clearRect(0, 0, width, height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, RULER_H, width, height - RULER_H);
    ctx.clip();
    let drawn = 0;
    const laneY = new Map<number, number>();
    batches.forEach((rects) => (rects.length = 0));
    labels.length = 0;
    markers.length = 0;
    for (const lane of visibleLanes()) {
      const y = RULER_H + lane.y - scrollY;
      if (lane.kind === "track") laneY.set(lane.id, y);
      if (lane.kind === "process") {
        ctx.fillStyle = "#dde3ee";
        ctx.fillRect(0, y, width, lane.h);
        ctx.fillStyle = "#1d2330";
        ctx.font = "bold 11px system-ui";
        ctx.fillText(lane.label, 6, y + 14);
        continue;
      }
      ctx.strokeStyle = "#eceff4";
      ctx.beginPath();
      ctx.moveTo(0, y + lane.h - 0.5);
      ctx.lineTo(width, y + lane.h - 0.5);
      ctx.stroke();
      if (lane.kind === "track") {
        const data = cache?.tracks.get(lane.id);
        forEachScreenSpan(data?.spans ?? [], v0, v1, nsPerPx(), (depth, ts, end, count, slice, nameIndex) => {
          // Whole pixels: no anti-aliased edges to blend (faster, and sharp).
          const left = Math.round(Math.max(xOf(ts), LABEL_W));
          const w = Math.max(Math.round(Math.min(xOf(end), width)) - left, 1);
          const fill = slice === selected ? SELECTED_COLOR : count > 1 ? MERGED_COLOR : cache!.colors[nameIndex];
          let rects = batches.get(fill);
          if (!rects) batches.set(fill, (rects = []));
          rects.push(left, y + 2 + depth * DEPTH_H, w);
          drawn++;
          if (w > 36) labels.push(left, y + 2 + depth * DEPTH_H, w, count, slice, nameIndex);
        });
        for (const [ts] of data?.instants ?? []) {
          const x = xOf(ts);
          if (x >= LABEL_W && x <= width) markers.push(x, y);
        }
      } else if (lane.kind === "overlap") {
        const lanesData = cache?.overlap.get(lane.id) ?? [];
        ctx.font = "10px system-ui";
        lanesData.forEach((intervals, row) => {
          ctx.fillStyle = OVERLAP_COLORS[row];
          // Intervals that touch within a pixel are drawn as one rectangle.
          let runLeft = -1;
          let runRight = -1;
          const flush = () => {
            if (runLeft >= 0) ctx.fillRect(runLeft, y + 2 + row * DEPTH_H, Math.max(runRight - runLeft, 1), DEPTH_H - 1);
          };
          for (const [ts, dur] of intervals) {
            const x0 = Math.max(xOf(ts), LABEL_W);
            const x1 = Math.min(xOf(ts + dur), width);
            if (x1 < LABEL_W || x0 > width) continue;
            if (runLeft >= 0 && x0 <= runRight + 1) {
              runRight = Math.max(runRight, x1);
              continue;
            }
            flush();
            runLeft = x0;
            runRight = x1;
          }
          flush();
          ctx.fillStyle = "#445";
          ctx.fillText(overlapLaneNames[row] ?? "", LABEL_W + 4, y + 2 + row * DEPTH_H + 11);
        });
      } else {
        const points = cache?.counters.get(lane.id) ?? [];
        let max = 0;
        for (const p of points) max = Math.max(max, p[2]);
        ctx.strokeStyle = "#2f7d5b";
        ctx.fillStyle = "rgba(47,125,91,0.15)";
        ctx.beginPath();
        let started2 = false;
        for (const [ts, , hi] of points) {
          const x = Math.min(Math.max(xOf(ts), LABEL_W), width);
          const py = y + lane.h - 3 - (max > 0 ? (hi / max) * (lane.h - 8) : 0);
          if (!started2) ctx.moveTo(x, py);
          else ctx.lineTo(x, py);
          started2 = true;
        }
        ctx.stroke();
        ctx.fillStyle = "#667085";
        ctx.font = "9px system-ui";
        ctx.fillText(`max ${max.toPrecision(4)}`, LABEL_W + 2, y + 9);
      }
      ctx.fillStyle = "#fafbfc";
      ctx.fillRect(0, y, LABEL_W - 2, lane.h - 1);
      ctx.fillStyle = "#344";
      ctx.font = "11px system-ui";
      ctx.fillText(lane.label, 6, y + 13, LABEL_W - 12);
    }
    // The slices of every lane, colour by colour (lanes never overlap, and nothing drawn with
    // the lanes lies under a slice): setting fillStyle parses the colour, and at full zoom-out
    // neighbours rarely share one, so one change per colour, not per slice.
    batches.forEach((rects, fill) => {
      if (!rects.length) return;
      ctx.fillStyle = fill;
      for (let i = 0; i < rects.length; i += 3) ctx.fillRect(rects[i], rects[i + 1], rects[i + 2], DEPTH_H - 1);
    });
    ctx.font = "10px system-ui";
    for (let i = 0; i < labels.length; i += 6) {
      const left = labels[i];
      const top = labels[i + 1];
      const w = labels[i + 2];
      const count = labels[i + 3];
      const name = cache!.names[labels[i + 5]];
      ctx.fillStyle = labels[i + 4] === selected ? "#fff" : "#111";
      const label = count > 1 ? `${name} +${count - 1}` : name;
      ctx.fillText(label.length * 6 > w ? label.slice(0, Math.max(Math.floor(w / 6) - 1, 1)) + "…" : label, left + 3, top + 11, w - 4);
    }
    // Markers over the slices, in one path: one fill instead of one per marker.
    ctx.fillStyle = "#111";
    ctx.beginPath();
    for (let i = 0; i < markers.length; i += 2) {
      ctx.moveTo(markers[i], markers[i + 1] + 1);
      ctx.lineTo(markers[i] - 4, markers[i + 1] + 8);
      ctx.lineTo(markers[i] + 4, markers[i + 1] + 8);
      ctx.closePath();
    }
    ctx.fill();
    if (flowsToggle.checked && cache) {
      ctx.strokeStyle = "rgba(200,60,60,0.7)";
      for (const [fromTrack, fromDepth, fromTs, toTrack, toDepth, toTs] of cache.flows) {
        const ya = laneY.get(fromTrack);
        const yb = laneY.get(toTrack);
        if (ya === undefined || yb === undefined) continue;
        const xa = xOf(fromTs);
        const xb = xOf(toTs);
        if (Math.max(xa, xb) < LABEL_W || Math.min(xa, xb) > width) continue;
        ctx.beginPath();
        ctx.moveTo(xa, ya + 2 + fromDepth * DEPTH_H + 8);
        ctx.lineTo(xb, yb + 2 + toDepth * DEPTH_H + 8);
        ctx.stroke();
      }
    }
    if (range) {
      const x0 = Math.max(xOf(Math.min(...range)), LABEL_W);
      const x1 = Math.min(xOf(Math.max(...range)), width);
      ctx.fillStyle = "rgba(29,78,216,0.12)";
      ctx.fillRect(x0, RULER_H, Math.max(x1 - x0, 1), height);
    }
    ctx.restore();
    drawRuler();
    if (mouseX >= LABEL_W) {
      ctx.strokeStyle = "rgba(0,0,0,0.25)";
      ctx.beginPath();
      ctx.moveTo(mouseX, 0);
      ctx.lineTo(mouseX, height);
      ctx.stroke();
    }
    handle.drawnSpans = drawn;
    handle.frames.push(performance.now() - started);
    if (handle.frames.length > 1000) handle.frames.shift();
    if (cache && !handle.firstDataFrameAt) {
      handle.firstDataFrameAt = performance.now();
      performance.mark("aiprof:timeline-first-frame");
    }
  }

  function hit(x: number, y: number): { slice: number; count: number; ts: number; dur: number } | null {
    if (!cache || x < LABEL_W || y < RULER_H) return null;
    const contentY = y - RULER_H + scrollY;
    const lane = lanes.find((l) => l.kind === "track" && contentY >= l.y && contentY < l.y + l.h);
    if (!lane) return null;
    const depth = Math.floor((contentY - lane.y - 2) / DEPTH_H);
    const t = tOf(x);
    const slack = 2 * nsPerPx();
    for (const [d, ts, dur, count, slice] of cache.tracks.get(lane.id)?.spans ?? []) {
      if (d === depth && t >= ts - slack && t <= ts + dur + slack) return { slice, count, ts, dur };
    }
    return null;
  }

  function kvTable(rows: [string, string][]): HTMLElement {
    return el("table", { class: "kv" }, ...rows.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))));
  }

  async function showDetails(slice: number, merged = 1): Promise<void> {
    selected = slice;
    handle.selected = slice;
    draw();
    const d = await getJson<{
      name: string; category: string; ts: number; dur: number; tid: number; thread: string; pid: number; process: string;
      depth: number; unclosed: boolean; parent?: { id: number; name: string }; args: Record<string, unknown>;
      flows: { direction: string; category: string; slice: number; name: string; ts: number }[];
    }>(`/api/slice?id=${slice}`);
    const rows: [string, string][] = [
      ["name", d.name],
      ["category", d.category],
      ["start", formatNs(d.ts)],
      ["duration", formatNs(d.dur)],
      ["thread", `${d.thread} (${d.tid})`],
      ["process", `${d.process} (${d.pid})`],
      ["depth", String(d.depth)],
    ];
    if (d.parent) rows.push(["parent", d.parent.name]);
    if (d.unclosed) rows.push(["note", "its end was missing; closed at the end of the data"]);
    for (const [k, v] of Object.entries(d.args)) rows.push([k, String(v)]);
    for (const f of d.flows) rows.push([`flow ${f.direction} (${f.category})`, `${f.name} @ ${formatNs(f.ts)}`]);
    details.replaceChildren(
      el("div", { id: "timeline-details-name" }, el("b", {}, d.name)),
      merged > 1 ? el("div", { class: "hint" }, `${merged} slices merged at this zoom; zoom in to separate them.`) : "",
      kvTable(rows),
    );
  }

  async function showRange(a: number, b: number): Promise<void> {
    const t0 = Math.floor(Math.min(a, b));
    const t1 = Math.ceil(Math.max(a, b));
    const stats = await getJson<{ slices: number; names: number; rows: [string, number, number, number][] }>(
      `/api/range?t0=${t0}&t1=${t1}`,
    );
    const table = el("table", { class: "data", id: "timeline-range-table" });
    table.append(el("tr", {}, ...["Name", "Count", "Total", "Max"].map((h) => el("th", {}, h))));
    for (const [name, count, total, max] of stats.rows.slice(0, 50)) {
      table.append(el("tr", {}, el("td", {}, name), el("td", { class: "num" }, String(count)), el("td", { class: "num" }, formatNs(total)), el("td", { class: "num" }, formatNs(max))));
    }
    selection.replaceChildren(
      el("div", {}, el("b", {}, `Range ${formatNs(t1 - t0)}`), ` · ${stats.slices} slices starting inside, ${stats.names} names`),
      table,
    );
  }

  async function search(): Promise<void> {
    const text = searchBox.value.trim();
    if (!text) return;
    const found = await getJson<{ total: number; matches: [number, number, number, number, number, string][] }>(
      `/api/search?q=${encodeURIComponent(text)}&limit=200`,
    );
    results.replaceChildren(el("div", { class: "hint" }, `${found.total} slices match${found.total > 200 ? " (first 200)" : ""}`));
    for (const [slice, ts, dur, track, , name] of found.matches) {
      const item = el("div", { "data-slice": String(slice) }, `${name} @ ${formatNs(ts)} (${formatNs(dur)})`);
      item.addEventListener("click", () => {
        const lane = lanes.find((l) => l.kind === "track" && l.id === track);
        if (lane) scrollY = Math.max(0, lane.y - 40);
        const pad = Math.max(dur, 1000);
        setWindow(ts - pad, ts + dur + pad);
        void showDetails(slice);
      });
      results.append(item);
    }
  }

  let drag: { x: number; v0: number; v1: number; select: boolean; moved: boolean } | null = null;
  const onMouseDown = (e: MouseEvent) => {
    wrap.focus();
    drag = { x: e.offsetX, v0, v1, select: e.shiftKey, moved: false };
    if (e.shiftKey) range = [tOf(e.offsetX), tOf(e.offsetX)];
  };
  const onMouseMove = (e: MouseEvent) => {
    mouseX = e.offsetX;
    if (!drag) {
      draw();
      return;
    }
    if (Math.abs(e.offsetX - drag.x) > 3) drag.moved = true;
    if (drag.select) {
      range = [range![0], tOf(e.offsetX)];
      draw();
    } else if (drag.moved) {
      const d = (e.offsetX - drag.x) * ((drag.v1 - drag.v0) / plotWidth());
      setWindow(drag.v0 - d, drag.v1 - d);
    }
  };
  const onMouseUp = (e: MouseEvent) => {
    if (!drag) return;
    const wasDrag = drag;
    drag = null;
    if (wasDrag.select && range && wasDrag.moved) {
      void showRange(range[0], range[1]);
      return;
    }
    if (!wasDrag.moved) {
      const found = hit(e.offsetX, e.offsetY);
      if (found) void showDetails(found.slice, found.count);
    }
  };
  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) {
      zoom(Math.exp(e.deltaY * 0.002), e.offsetX);
    } else if (e.shiftKey) {
      pan(e.deltaY / 1000);
    } else {
      scrollY = Math.min(Math.max(0, scrollY + e.deltaY), Math.max(0, contentHeight - (height - RULER_H)));
      draw();
      if (needsFetch()) void fetchWindow();
    }
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.target === searchBox) return;
    const key = e.key.toLowerCase();
    if (key === "w") zoom(0.8, mouseX);
    else if (key === "s") zoom(1.25, mouseX);
    else if (key === "a") pan(-0.1);
    else if (key === "d") pan(0.1);
    else return;
    e.preventDefault();
  };
  const onResize = () => {
    resize();
    draw();
  };
  canvas.addEventListener("mousedown", onMouseDown);
  canvas.addEventListener("mousemove", onMouseMove);
  window.addEventListener("mouseup", onMouseUp);
  canvas.addEventListener("wheel", onWheel, { passive: false });
  window.addEventListener("keydown", onKey);
  window.addEventListener("resize", onResize);
  searchBox.addEventListener("keydown", (e) => {
    if (e.key === "Enter") void search();
  });
  flowsToggle.addEventListener("change", () => {
    cache = null;
    void fetchWindow();
  });

  resize();
  performance.mark("aiprof:timeline-layout");
  // The view stays hidden until its first data is drawn, so that the browser paints and
  // commits one frame with the lanes, the data and the side panel, rather than one of empty
  // lanes first: on a small machine that frame's paint and commit held the drawing of the
  // data back by hundreds of ms.
  timelineRoot.style.visibility = "hidden";
  try {
    await fetchWindow();
  } finally {
    timelineRoot.style.visibility = "";
  }
  wrap.focus();
  void analysis().then((summary: AnalysisSummary) => {
    if (!summary.scopes.length || window.__aiprofTimeline !== handle) return;
    lanes = buildLanes(layout.processes, summary);
    contentHeight = heightOf(lanes);
    draw();
    if (needsFetch()) void fetchWindow();
  });
  return () => {
    window.removeEventListener("mouseup", onMouseUp);
    window.removeEventListener("keydown", onKey);
    window.removeEventListener("resize", onResize);
    delete window.__aiprofTimeline;
  };
}
