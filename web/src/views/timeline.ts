// Timeline: our own canvas renderer. The server answers by time range and pixel
// resolution (level of detail per track), so a frame draws from a cache covering three
// screen widths and a fetch happens only when the view leaves that cache or the zoom level
// changes by more than half: pan and zoom frames never wait for the network.
//   W/S zoom in/out, A/D pan, ctrl+wheel zoom, wheel scroll, drag pan,
//   shift+drag select a range (statistics), click a slice (details), search by name.
import { analysis, counters, getJson, run, tracks, AnalysisSummary } from "../api";
import { CRITICAL_COLORS, el, formatNs, formatValue } from "../format";
import { buildLanes, DEPTH_H, Lane } from "./timeline_lanes";
import { drawRuler, LABEL_W, RULER_H, StepTable } from "./timeline_ruler";
import {
  CounterPoints, decodeCounter, decodeIntervals, decodeTrack, FrameRects, Instant, slotsOf, Span, TrackSpans,
} from "./timeline_spans";

type Flow = [fromTrack: number, fromDepth: number, fromTs: number, toTrack: number, toDepth: number, toTs: number, category: string];

// What the server answered for a window, decoded when it arrived (timeline_spans.ts).
interface Cache {
  t0: number;
  t1: number;
  nsPerPx: number;
  tracks: Map<number, TrackSpans>;
  names: string[];
  slots: Uint16Array;  // per name, its colour's slot
  counters: Map<number, CounterPoints>;
  flows: Flow[];
  overlap: Map<number, Float64Array[]>;  // per scope: Computing, Communication, ...
  critical: Float64Array | null;  // the critical path: [begin, end, category] per piece
}

const OVERLAP_COLORS = ["#7fb3e8", "#b38fe8", "#e88f8f", "#c9d1e0"];


interface TimelineHandle {
  window: () => [number, number];
  setWindow: (t0: number, t1: number) => void;
  frames: number[];
  fetches: number;
  firstDataFrameAt: number;
  drawnSpans: number;
  ticks: string[];  // the ruler's labels in the last frame
  selected: number;
}

declare global {
  interface Window {
    __aiprofTimeline?: TimelineHandle;
  }
}

export async function renderTimeline(root: HTMLElement): Promise<() => void> {
  const [info, layout] = await Promise.all([run(), tracks()]);
  const steps = new StepTable(info.steps);
  // The analyses may still be running on the server: draw the tracks now and add the
  // Overlap Analysis lanes when their results arrive.
  let lanes = buildLanes(layout.processes, { inputs: "", step_source: "", scopes: [], step_breakdown: [], step_trace: [] });
  const tracksOf = (all: Lane[]) => new Map(all.filter((l) => l.kind === "track").map((l) => [l.id, l]));
  let laneOfTrack = tracksOf(lanes);
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
    ticks: [],
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

  // Whether a lane is within the scrolled view (widened by `margin` px above and below).
  const onScreen = (l: Lane, margin = 0) => l.y + l.h >= scrollY - margin && l.y <= scrollY + height - RULER_H + margin;

  function visibleLanes(margin = 0): Lane[] {
    return lanes.filter((l) => onScreen(l, margin));
  }

  function needsFetch(): boolean {
    if (!cache) return true;
    const ratio = nsPerPx() / cache.nsPerPx;
    if (v0 < cache.t0 || v1 > cache.t1 || ratio < 0.5 || ratio > 1.5) return true;
    return visibleLanes().some(
      (l) =>
        (l.kind === "track" && !cache!.tracks.has(l.id)) ||
        (l.kind === "counter" && !cache!.counters.has(l.id)) ||
        (l.kind === "overlap" && !cache!.overlap.has(l.id)) ||
        (l.kind === "critical" && !cache!.critical),
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
      const wantCritical = shown.some((l) => l.kind === "critical");
      const [slices, counterData, flows, overlap, critical] = await Promise.all([
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
        wantCritical
          ? getJson<{ pieces: [number, number, number][] }>(`/api/critical_path/lane?t0=${t0}&t1=${t1}&px=${px}`)
          : Promise.resolve(null),
      ]);
      overlapLaneNames = overlap.lanes;
      if (!handle.fetches) performance.mark("aiprof:timeline-data");
      handle.fetches++;
      cache = {
        t0,
        t1,
        nsPerPx: (t1 - t0) / px,
        tracks: new Map(slices.tracks.map((t) => [t.id, decodeTrack(t.spans, t.instants)])),
        names: slices.names,
        slots: slotsOf(slices.names),
        counters: new Map(counterData.series.map((s) => [s.id, decodeCounter(s.points)])),
        flows: flows.flows,
        overlap: new Map(overlap.scopes.map((s, i) => [i, decodeIntervals(s.lanes)])),
        critical: critical ? Float64Array.from(critical.pieces.flatMap(([ts, dur, category]) => [ts, ts + dur, category])) : null,
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

  // Scratch of draw(), kept between frames: the slice rectangles and the markers' x/y.
  const rects = new FrameRects();
  const markers: number[] = [];

  function drawLaneFrame(lane: Lane, y: number): void {
    if (lane.kind === "process") {
      ctx.fillStyle = "#dde3ee";
      ctx.fillRect(0, y, width, lane.h);
      ctx.fillStyle = "#1d2330";
      ctx.font = "bold 11px system-ui";
      ctx.fillText(lane.label, 6, y + 14);
      return;
    }
    ctx.strokeStyle = "#eceff4";
    ctx.beginPath();
    ctx.moveTo(0, y + lane.h - 0.5);
    ctx.lineTo(width, y + lane.h - 0.5);
    ctx.stroke();
  }

  function drawOverlap(rows: Float64Array[], y: number): void {
    ctx.font = "10px system-ui";
    const scale = 1 / nsPerPx();
    for (let row = 0; row < rows.length; row++) {
      const intervals = rows[row];
      ctx.fillStyle = OVERLAP_COLORS[row];
      // Intervals that touch within a pixel are drawn as one rectangle.
      let runLeft = -1;
      let runRight = -1;
      for (let i = 0; i <= intervals.length; i += 2) {
        const last = i === intervals.length;
        const x0 = last ? 0 : Math.max(LABEL_W + (intervals[i] - v0) * scale, LABEL_W);
        const x1 = last ? 0 : Math.min(LABEL_W + (intervals[i + 1] - v0) * scale, width);
        if (!last && (x1 < LABEL_W || x0 > width)) continue;
        if (!last && runLeft >= 0 && x0 <= runRight + 1) {
          runRight = Math.max(runRight, x1);
          continue;
        }
        if (runLeft >= 0) ctx.fillRect(runLeft, y + 2 + row * DEPTH_H, Math.max(runRight - runLeft, 1), DEPTH_H - 1);
        runLeft = x0;
        runRight = x1;
      }
      ctx.fillStyle = "#445";
      ctx.fillText(overlapLaneNames[row] ?? "", LABEL_W + 4, y + 2 + row * DEPTH_H + 11);
    }
  }

  // The job's critical path: one row, each piece in its category's colour.
  function drawCritical(pieces: Float64Array | null, y: number): void {
    if (!pieces) return;
    const scale = 1 / nsPerPx();
    for (let i = 0; i < pieces.length; i += 3) {
      const x0 = Math.max(LABEL_W + (pieces[i] - v0) * scale, LABEL_W);
      const x1 = Math.min(LABEL_W + (pieces[i + 1] - v0) * scale, width);
      if (x1 < LABEL_W || x0 > width) continue;
      ctx.fillStyle = CRITICAL_COLORS[pieces[i + 2]] ?? "#999";
      ctx.fillRect(x0, y + 2, Math.max(x1 - x0, 1), DEPTH_H - 1);
    }
  }

  function drawCounter(points: CounterPoints | undefined, lane: Lane, y: number): void {
    const max = points?.max ?? 0;
    ctx.strokeStyle = "#2f7d5b";
    ctx.beginPath();
    for (let i = 0; points && i < points.ts.length; i++) {
      const x = Math.min(Math.max(xOf(points.ts[i]), LABEL_W), width);
      const py = y + lane.h - 3 - (max > 0 ? (points.hi[i] / max) * (lane.h - 8) : 0);
      if (i === 0) ctx.moveTo(x, py);
      else ctx.lineTo(x, py);
    }
    ctx.stroke();
    ctx.fillStyle = "#667085";
    ctx.font = "9px system-ui";
    ctx.fillText(`max ${formatValue(max)}`, LABEL_W + 2, y + 9);
  }

  // Span labels, where a rectangle is wide enough for a few characters.
  function drawLabels(): void {
    if (!cache) return;
    ctx.font = "10px system-ui";
    for (let i = 0; i < rects.length; i++) {
      const w = rects.width[i];
      if (w <= 36) continue;
      const name = cache.names[rects.name[i]];
      const count = rects.count[i];
      ctx.fillStyle = rects.slice[i] === selected ? "#fff" : "#111";
      const label = count > 1 ? `${name} +${count - 1}` : name;
      ctx.fillText(label.length * 6 > w ? label.slice(0, Math.max(Math.floor(w / 6) - 1, 1)) + "…" : label, rects.left[i] + 3, rects.top[i] + 11, w - 4);
    }
  }

  function draw(): void {
    const started = performance.now();
    ctx.clearRect(0, 0, width, height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, RULER_H, width, height - RULER_H);
    ctx.clip();
    rects.clear();
    markers.length = 0;
    for (const lane of lanes) {
      if (!onScreen(lane)) continue;
      const y = RULER_H + lane.y - scrollY;
      drawLaneFrame(lane, y);
      if (lane.kind === "process") continue;
      if (lane.kind === "track") {
        const data = cache?.tracks.get(lane.id);
        if (data) {
          rects.addTrack(data, v0, v1, nsPerPx(), LABEL_W, width, y + 2, DEPTH_H, cache!.slots, selected);
          for (let i = 0; i < data.instants.length; i++) {
            const x = xOf(data.instants[i]);
            if (x >= LABEL_W && x <= width) markers.push(x, y);
          }
        }
      } else if (lane.kind === "overlap") {
        drawOverlap(cache?.overlap.get(lane.id) ?? [], y);
      } else if (lane.kind === "critical") {
        drawCritical(cache?.critical ?? null, y);
      } else {
        drawCounter(cache?.counters.get(lane.id), lane, y);
      }
      ctx.fillStyle = "#fafbfc";
      ctx.fillRect(0, y, LABEL_W - 2, lane.h - 1);
      ctx.fillStyle = "#344";
      ctx.font = "11px system-ui";
      ctx.fillText(lane.label, 6, y + 13, LABEL_W - 12);
    }
    // The slices of every lane, colour by colour (lanes never overlap, and nothing drawn with
    // the lanes lies under a slice), then their labels.
    rects.fill(ctx, DEPTH_H - 1);
    drawLabels();
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
        const fromLane = laneOfTrack.get(fromTrack);
        const toLane = laneOfTrack.get(toTrack);
        if (!fromLane || !toLane || !onScreen(fromLane) || !onScreen(toLane)) continue;
        const ya = RULER_H + fromLane.y - scrollY;
        const yb = RULER_H + toLane.y - scrollY;
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
      const x0 = Math.max(xOf(Math.min(range[0], range[1])), LABEL_W);
      const x1 = Math.min(xOf(Math.max(range[0], range[1])), width);
      ctx.fillStyle = "rgba(29,78,216,0.12)";
      ctx.fillRect(x0, RULER_H, Math.max(x1 - x0, 1), height);
    }
    ctx.restore();
    handle.ticks = drawRuler(ctx, steps, v0, v1, width);
    if (mouseX >= LABEL_W) {
      ctx.strokeStyle = "rgba(0,0,0,0.25)";
      ctx.beginPath();
      ctx.moveTo(mouseX, 0);
      ctx.lineTo(mouseX, height);
      ctx.stroke();
    }
    handle.drawnSpans = rects.length;
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
    const data = cache.tracks.get(lane.id);
    for (let i = 0; data && i < data.length; i++) {
      if (data.depth[i] === depth && t >= data.ts[i] - slack && t <= data.end[i] + slack) {
        return { slice: data.slice[i], count: data.count[i], ts: data.ts[i], dur: data.end[i] - data.ts[i] };
      }
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
    if ((!summary.scopes.length && !summary.critical_path_steps) || window.__aiprofTimeline !== handle) return;
    lanes = buildLanes(layout.processes, summary);
    laneOfTrack = tracksOf(lanes);
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
