// Timeline: our own canvas renderer. The server answers by time range and pixel resolution
// (level of detail per track), so a frame draws from a cache covering three screen widths and a
// fetch happens only when the view leaves that cache or the zoom changes by more than half:
// pan and zoom frames never wait for the network. Navigation as in Perfetto:
//   keys, wheel and drags (timeline_input.ts); click a slice or instant (details), shift+drag
//   an area (statistics), hover for a tooltip; process headers collapse (click) and pin;
//   thread labels collapse.
// The address keeps the window and the selection (router.ts), and links from the other views
// open it on a slice, a step, a name or a rank (navigate()).
import { analysis, AnalysisSummary, getJson, run, tracks } from "../api";
import { el } from "../format";
import type { ViewHandle } from "../main";
import { replaceParams } from "../router";
import {
  drawCounter, drawCritical, drawFlow, drawInstants, drawLaneLabel, drawLaneSeparator, drawOverlap, drawProcessHeader, drawSliceLabels, PIN_W, Scale, slicesTop,
} from "./timeline_draw";
import { Cache, fetchWindowData } from "./timeline_fetch";
import { Area, makeHandle, TimelineHandle } from "./timeline_handle";
import { Hit, hitLane, tooltipText } from "./timeline_hit";
import { buildLanes, DEPTH_H, Lane, LaneState, Layout } from "./timeline_lanes";
import { bindInput } from "./timeline_input";
import { followLink } from "./timeline_link";
import { areaStatistics, AreaStatistics, InstantDetail, instantDetails, Search, SliceDetail, sliceDetails } from "./timeline_panel";
import { drawRuler, LABEL_W, RULER_H, StepTable } from "./timeline_ruler";
import { buildSidePanel } from "./timeline_side";
import { FrameRects } from "./timeline_spans";

type Selection = { kind: "slice"; id: number; track: number } | { kind: "instant"; id: number; track: number; ts: number } | null;

const MIN_SPAN = 20;  // ns: deep enough to tell nanoseconds apart

export async function renderTimeline(root: HTMLElement, params: URLSearchParams): Promise<ViewHandle> {
  const [info, layout] = await Promise.all([run(), tracks()]);
  const steps = new StepTable(info.steps);
  const runEnd = Math.max(info.end, 1);
  // The analyses may still be running on the server: draw the tracks now and add the
  // Overlap Analysis lanes when their results arrive.
  let summary: AnalysisSummary = { inputs: "", step_source: "", scopes: [], step_breakdown: [], step_trace: [] };
  const laneState: LaneState = { collapsed: new Set(), pinned: new Set(), collapsedTracks: new Set() };
  let lanes: Layout = buildLanes(layout.processes, summary, laneState);
  let laneOfTrack = new Map<number, Lane>();
  let overlapLaneNames: string[] = [];
  const relayout = () => {
    lanes = buildLanes(layout.processes, summary, laneState);
    laneOfTrack = new Map(lanes.lanes.filter((l) => l.kind === "track").map((l) => [l.id, l]));
  };
  relayout();

  const wrap = el("div", { id: "timeline-canvas-wrap", tabindex: "0" });
  const canvas = el("canvas", { id: "timeline-canvas" });
  const tooltip = el("div", { id: "timeline-tooltip", class: "timeline-tooltip" });
  wrap.append(canvas, tooltip);
  const search = new Search((m) => void jumpTo(m[0], { ts: m[1], dur: m[2], track: m[3] }));
  const { element: side, stepPicker, fillStepPicker, fitButton, resetButton, flowsToggle, details, selectionPanel } = buildSidePanel(info.steps, search);
  const timelineRoot = el("div", { id: "timeline-root" }, wrap, side);
  root.append(timelineRoot);

  const ctx = canvas.getContext("2d")!;
  let width = 0;
  let height = 0;
  let v0 = 0;
  let v1 = runEnd;
  let scrollY = 0;
  let cache: Cache | null = null;
  let pending = false;
  let wanted = false;
  let selection: Selection = null;
  let area: Area | null = null;
  let dragArea: { t0: number; t1: number } | null = null;  // being dragged (timeline_input.ts)
  // Scratch of draw(), kept between frames (drawing allocates nothing but text): per region
  // (pinned lanes, scrolled lanes) its slice rectangles and its instants as x, y, row; the
  // drawn flows as from, to, end x, end y.
  const regions = {
    scrolled: { rects: new FrameRects(), markers: [] as number[] },
    pinned: { rects: new FrameRects(), markers: [] as number[] },
  };
  const flowEnds: number[] = [];
  const handle: TimelineHandle = makeHandle({
    window: () => [v0, v1],
    setWindow: (a, b) => setWindow(a, b),
    tooltip,
    regions: [regions.scrolled, regions.pinned],
    lanes: () => lanes.lanes,
    laneTop: (l) => laneTop(l),
    flowEnds,
  });
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
  const scrolledTop = () => RULER_H + lanes.pinnedHeight;
  const laneTop = (l: Lane) => (l.pinned ? RULER_H + l.y : scrolledTop() + l.y - scrollY);
  const maxScroll = () => Math.max(0, lanes.scrolledHeight - (height - scrolledTop()));
  // Whether a lane is within the view (widened by `margin` px above and below).
  const onScreen = (l: Lane, margin = 0) => l.pinned || (l.y + l.h >= scrollY - margin && l.y <= scrollY + height - scrolledTop() + margin);

  function needsFetch(): boolean {
    if (!cache) return true;
    const ratio = nsPerPx() / cache.nsPerPx;
    if (v0 < cache.t0 || v1 > cache.t1 || ratio < 0.5 || ratio > 1.5) return true;
    return lanes.lanes.some(
      (l) =>
        onScreen(l) &&
        ((l.kind === "track" && !cache!.tracks.has(l.id)) ||
          (l.kind === "counter" && !cache!.counters.has(l.id)) ||
          (l.kind === "overlap" && !cache!.overlap.has(l.id)) ||
          (l.kind === "critical" && !cache!.critical)),
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
    const shown = lanes.lanes.filter((l) => onScreen(l, height));
    try {
      const answer = await fetchWindowData({
        t0,
        t1,
        px,
        tracks: shown.filter((l) => l.kind === "track").map((l) => l.id),
        counters: shown.filter((l) => l.kind === "counter").map((l) => l.id),
        flows: flowsToggle.checked,
        overlap: shown.some((l) => l.kind === "overlap"),
        critical: shown.some((l) => l.kind === "critical"),
      });
      overlapLaneNames = answer.overlapLaneNames;
      if (!handle.fetches) performance.mark("aiprof:timeline-data");
      handle.fetches++;
      cache = answer.cache;
    } finally {
      pending = false;
    }
    draw();
    if (wanted || needsFetch()) {
      wanted = false;
      if (needsFetch()) void fetchWindow();
    }
  }

  // The window stays within the run: no wider than it (plus 2%), never narrower than
  // MIN_SPAN, and never past its ends by more than 1%.
  function setWindow(a: number, b: number): void {
    const margin = runEnd * 0.01;
    let span = Math.min(Math.max(b - a, MIN_SPAN), runEnd + 2 * margin);
    if (!(span > 0)) span = runEnd;
    let start = (a + b) / 2 - span / 2;
    start = Math.min(Math.max(start, -margin), runEnd + margin - span);
    v0 = start;
    v1 = start + span;
    draw();
    if (needsFetch()) void fetchWindow();
    scheduleAddress();
  }

  function zoom(factor: number, atX: number): void {
    const anchor = tOf(atX >= LABEL_W ? atX : LABEL_W + plotWidth() / 2);
    const margin = runEnd * 0.01;
    const span = Math.min(Math.max((v1 - v0) * factor, MIN_SPAN), runEnd + 2 * margin);
    const left = (anchor - v0) / (v1 - v0);
    setWindow(anchor - span * left, anchor - span * left + span);
  }

  function pan(fraction: number): void {
    const d = (v1 - v0) * fraction;
    setWindow(v0 + d, v1 + d);
  }

  // Fits [t0, t1] with a margin of `pad` of its length on each side.
  function fit(t0: number, t1: number, pad = 0.1): void {
    const len = Math.max(t1 - t0, MIN_SPAN);
    setWindow(t0 - len * pad, t1 + len * pad);
  }

  function revealLane(track: number): void {
    let lane = laneOfTrack.get(track);
    if (lane && laneState.collapsed.has(lane.process)) {
      laneState.collapsed.delete(lane.process);
      relayout();
      lane = laneOfTrack.get(track);
    }
    if (!lane) return;
    if (!lane.pinned && (lane.y < scrollY || lane.y + lane.h > scrollY + height - scrolledTop())) {
      scrollY = Math.min(Math.max(0, lane.y - 40), maxScroll());
    }
  }

  function drawRegion(pinned: boolean, top: number, bottom: number): void {
    const { rects, markers } = pinned ? regions.pinned : regions.scrolled;
    const scale: Scale = { v0, nsPerPx: nsPerPx(), width };
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, top, width, bottom - top);
    ctx.clip();
    rects.clear();
    markers.length = 0;
    let selectedMarker = -1;
    const selectedSlice = selection?.kind === "slice" ? selection.id : -1;
    for (const lane of lanes.lanes) {
      if (lane.pinned !== pinned || !onScreen(lane)) continue;
      const y = laneTop(lane);
      if (lane.kind === "process") {
        drawProcessHeader(ctx, lane, y, width);
        continue;
      }
      drawLaneSeparator(ctx, lane, y, width);
      if (lane.kind === "track") {
        const data = cache?.tracks.get(lane.id);
        if (data) {
          rects.addTrack(data, v0, v1, nsPerPx(), LABEL_W, width, slicesTop(lane, y), DEPTH_H, cache!.slots, selectedSlice, lane.depths);
          for (let i = 0; i < data.instants.length; i++) {
            const x = xOf(data.instants[i]);
            if (x < LABEL_W || x > width) continue;
            if (selection?.kind === "instant" && selection.id === data.instantRow[i]) selectedMarker = markers.length;
            markers.push(x, y, data.instantRow[i]);
          }
        }
      } else if (lane.kind === "overlap") {
        drawOverlap(ctx, scale, cache?.overlap.get(lane.id) ?? [], overlapLaneNames, y);
      } else if (lane.kind === "critical") {
        drawCritical(ctx, scale, cache?.critical ?? null, y);
      } else {
        drawCounter(ctx, scale, cache?.counters.get(lane.id), lane, y, xOf(runEnd));
      }
      drawLaneLabel(ctx, lane, y);
    }
    // The slices of every lane, colour by colour, then their labels; instants in their own row.
    rects.fill(ctx, DEPTH_H - 1);
    if (cache) drawSliceLabels(ctx, rects, cache.names, selectedSlice);
    drawInstants(ctx, markers, selectedMarker);
    ctx.restore();
  }

  function drawFlows(): void {
    flowEnds.length = 0;
    if (!flowsToggle.checked || !cache) return;
    const selectedSlice = selection?.kind === "slice" ? selection.id : -1;
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, RULER_H, width - LABEL_W, height - RULER_H);
    ctx.clip();
    for (const [fromTrack, fromDepth, fromTs, toTrack, toDepth, toTs, , fromSlice, toSlice] of cache.flows) {
      const fromLane = laneOfTrack.get(fromTrack);
      const toLane = laneOfTrack.get(toTrack);
      if (!fromLane || !toLane || !onScreen(fromLane) || !onScreen(toLane)) continue;
      if (fromDepth >= fromLane.depths || toDepth >= toLane.depths) continue;
      const xa = xOf(fromTs);
      const xb = xOf(toTs);
      if (Math.max(xa, xb) < LABEL_W || Math.min(xa, xb) > width) continue;
      const ya = slicesTop(fromLane, laneTop(fromLane)) + fromDepth * DEPTH_H + 8;
      const yb = slicesTop(toLane, laneTop(toLane)) + toDepth * DEPTH_H + 8;
      drawFlow(ctx, xa, ya, xb, yb, fromSlice === selectedSlice || toSlice === selectedSlice);
      flowEnds.push(fromSlice, toSlice, xb, yb);
    }
    ctx.restore();
  }

  function draw(): void {
    const started = performance.now();
    ctx.clearRect(0, 0, width, height);
    drawRegion(false, scrolledTop(), height);
    regions.pinned.rects.clear();
    regions.pinned.markers.length = 0;
    if (lanes.pinnedHeight > 0) {
      drawRegion(true, RULER_H, scrolledTop());
      ctx.fillStyle = "#9aa6b8";
      ctx.fillRect(0, scrolledTop() - 1, width, 1);
    }
    drawFlows();
    const shownArea = dragArea ?? area;
    if (shownArea) {
      const x0 = Math.max(xOf(Math.min(shownArea.t0, shownArea.t1)), LABEL_W);
      const x1 = Math.min(xOf(Math.max(shownArea.t0, shownArea.t1)), width);
      ctx.fillStyle = "rgba(29,78,216,0.10)";
      ctx.fillRect(x0, RULER_H, Math.max(x1 - x0, 1), height);
      ctx.strokeStyle = "rgba(29,78,216,0.6)";
      ctx.strokeRect(x0 + 0.5, RULER_H + 0.5, Math.max(x1 - x0, 1) - 1, height - RULER_H - 1);
    }
    handle.ticks = drawRuler(ctx, steps, v0, v1, width);
    const mouseX = input.mouseX();
    if (mouseX >= LABEL_W) {
      ctx.strokeStyle = "rgba(0,0,0,0.25)";
      ctx.beginPath();
      ctx.moveTo(mouseX, 0);
      ctx.lineTo(mouseX, height);
      ctx.stroke();
    }
    handle.drawnSpans = regions.scrolled.rects.length + regions.pinned.rects.length;
    handle.frames.push(performance.now() - started);
    if (handle.frames.length > 1000) handle.frames.shift();
    if (cache && !handle.firstDataFrameAt) {
      handle.firstDataFrameAt = performance.now();
      performance.mark("aiprof:timeline-first-frame");
    }
  }

  // ---- hit testing -------------------------------------------------------------------
  function laneAt(y: number): Lane | null {
    if (y < RULER_H) return null;
    for (const l of lanes.lanes) {
      if (l.pinned !== y < scrolledTop()) continue;
      const top = laneTop(l);
      if (y >= top && y < top + l.h) return l;
    }
    return null;
  }

  function hit(x: number, y: number): Hit {
    const lane = laneAt(y);
    if (!lane || !cache || x < LABEL_W) return null;
    return hitLane(lane, cache, overlapLaneNames, x, y, tOf(x), { xOf, laneTop, nsPerPx: nsPerPx() });
  }

  function showTooltip(x: number, y: number): void {
    const found = x >= LABEL_W && !dragArea ? hit(x, y) : null;
    if (!found) {
      tooltip.style.display = "none";
      return;
    }
    const text = tooltipText(found);
    tooltip.textContent = text;
    tooltip.style.display = "block";
    tooltip.style.left = `${Math.min(x + 14, width - 260)}px`;
    tooltip.style.top = `${Math.min(y + 14, height - 70)}px`;
  }

  // ---- selection, details and the address ------------------------------------------
  async function selectSlice(slice: number, merged = 1): Promise<SliceDetail> {
    const d = await getJson<SliceDetail>(`/api/slice?id=${slice}`);
    area = null;  // one selection at a time, as in Perfetto; the area's statistics stay listed
    handle.area = null;
    selection = { kind: "slice", id: slice, track: d.track };
    handle.selected = slice;
    handle.selectedInstant = -1;
    details.replaceChildren(...sliceDetails(d, merged, (id, place) => void jumpTo(id, place)));
    draw();
    scheduleAddress();
    return d;
  }

  async function selectInstant(row: number): Promise<InstantDetail> {
    const d = await getJson<InstantDetail>(`/api/instant?id=${row}`);
    area = null;
    handle.area = null;
    selection = { kind: "instant", id: row, track: d.track, ts: d.ts };
    handle.selected = -1;
    handle.selectedInstant = row;
    details.replaceChildren(...instantDetails(d));
    draw();
    scheduleAddress();
    return d;
  }

  // Selects a slice elsewhere (a flow's other end, a search match): its lane is shown and the
  // window moves to it, kept at this zoom when it fits.
  async function jumpTo(slice: number, place?: { ts: number; dur: number; track: number }): Promise<void> {
    const where = place ?? (await getJson<SliceDetail>(`/api/slice?id=${slice}`));
    revealLane(where.track);
    const span = v1 - v0;
    if (where.dur < span * 0.8) setWindow(where.ts + where.dur / 2 - span / 2, where.ts + where.dur / 2 + span / 2);
    else fit(where.ts, where.ts + where.dur);
    await selectSlice(slice);
  }

  async function selectArea(next: Area): Promise<void> {
    area = next;
    handle.area = next;
    selection = null;
    handle.selected = -1;
    handle.selectedInstant = -1;
    draw();
    scheduleAddress();
    const t0 = Math.floor(Math.min(next.t0, next.t1));
    const t1 = Math.ceil(Math.max(next.t0, next.t1));
    const stats = await getJson<AreaStatistics>(`/api/range?t0=${t0}&t1=${Math.max(t1, t0 + 1)}${next.tracks.length ? `&tracks=${next.tracks.join(",")}` : ""}`);
    selectionPanel.replaceChildren(...areaStatistics(stats, t0, t1, (row) => void jumpTo(row[5])));
  }

  function clearSelection(): void {
    selection = null;
    area = null;
    handle.selected = -1;
    handle.selectedInstant = -1;
    handle.area = null;
    draw();
    scheduleAddress();
  }

  function selectionSpan(): [number, number] | null {
    if (area) return [Math.min(area.t0, area.t1), Math.max(area.t0, area.t1)];
    if (selection?.kind === "instant") return [selection.ts - (v1 - v0) / 20, selection.ts + (v1 - v0) / 20];
    return null;
  }

  let addressTimer = 0;
  function scheduleAddress(): void {
    clearTimeout(addressTimer);
    addressTimer = window.setTimeout(() => {
      if (window.__aiprofTimeline !== handle) return;
      replaceParams("timeline", {
        t0: Math.floor(v0),
        t1: Math.ceil(v1),
        sel: selection ? `${selection.kind === "slice" ? "s" : "i"}${selection.id}` : undefined,
        area: area ? `${Math.floor(area.t0)},${Math.ceil(area.t1)}` : undefined,
        tracks: area && area.tracks.length ? area.tracks.join(",") : undefined,
      });
    }, 200);
  }

  // Applies a link's target (router.ts, TimelineTarget; timeline_link.ts).
  function navigate(p: URLSearchParams): Promise<void> {
    return followLink(p, info.steps, {
      window: () => [v0, v1],
      setWindow,
      fit,
      revealLane,
      pickStep: (id) => {
        fillStepPicker();
        stepPicker.value = String(id);
      },
      selectArea,
      selectSlice: (slice) => selectSlice(slice),
      selectInstant,
      missing: (text) => details.replaceChildren(el("div", { class: "missing" }, text)),
      showRank: (rank) => {
        const process = layout.processes.find((x) => x.rank === rank);
        if (!process) return;
        laneState.collapsed.delete(process.id);
        relayout();
        const header = lanes.lanes.find((l) => l.kind === "process" && l.id === process.id);
        if (header && !header.pinned) scrollY = Math.min(header.y, maxScroll());
      },
      refresh: () => {
        draw();
        if (needsFetch()) void fetchWindow();
      },
    });
  }

  // ---- input (timeline_input.ts) ---------------------------------------------------------
  // The tracks an area covers: those of the lanes between the drag's two rows.
  function tracksBetween(y0: number, y1: number): number[] {
    const top = Math.min(y0, y1);
    const bottom = Math.max(y0, y1);
    return lanes.lanes.filter((l) => l.kind === "track" && onScreen(l) && laneTop(l) + l.h > top && laneTop(l) < bottom).map((l) => l.id);
  }
  function click(x: number, y: number): void {
    if (y < RULER_H) {
      const i = steps.stepAt(tOf(x));
      if (x >= LABEL_W && i >= 0) void navigate(new URLSearchParams({ step: String(steps.id[i]) }));
      return;
    }
    const lane = laneAt(y);
    if (lane?.kind === "process") {
      if (x >= width - PIN_W) {
        if (laneState.pinned.has(lane.id)) laneState.pinned.delete(lane.id);
        else laneState.pinned.add(lane.id);
      } else if (laneState.collapsed.has(lane.id)) {
        laneState.collapsed.delete(lane.id);
      } else {
        laneState.collapsed.add(lane.id);
      }
      relayout();
      scrollY = Math.min(scrollY, maxScroll());
      draw();
      if (needsFetch()) void fetchWindow();
      return;
    }
    if (lane?.kind === "track" && x < LABEL_W) {
      if (laneState.collapsedTracks.has(lane.id)) laneState.collapsedTracks.delete(lane.id);
      else laneState.collapsedTracks.add(lane.id);
      relayout();
      draw();
      return;
    }
    const found = hit(x, y);
    if (found?.kind === "slice") void selectSlice(found.slice, found.count);
    else if (found?.kind === "instant") void selectInstant(found.row);
  }
  function fitSelection(): void {
    const span = selectionSpan();
    if (span) return fit(span[0], span[1], 0.05);
    if (selection?.kind === "slice") {
      void getJson<SliceDetail>(`/api/slice?id=${selection.id}`).then((d) => fit(d.ts, d.ts + d.dur, 0.1));
      return;
    }
    setWindow(0, runEnd);
  }
  const onResize = () => {
    resize();
    draw();
  };
  const input = bindInput(canvas, wrap, {
    window: () => [v0, v1],
    setWindow,
    plotWidth,
    tOf,
    zoom,
    pan,
    scroll: (dy) => {
      scrollY = Math.min(Math.max(0, scrollY + dy), maxScroll());
      draw();
      if (needsFetch()) void fetchWindow();
    },
    fitSelection,
    reset: () => setWindow(0, runEnd),
    clearSelection,
    hover: (x, y) => {
      draw();
      showTooltip(x, y);
    },
    leave: () => {
      tooltip.style.display = "none";
      draw();
    },
    hideTooltip: () => {
      tooltip.style.display = "none";
    },
    dragArea: (next) => {
      dragArea = next;
      draw();
    },
    tracksBetween,
    selectArea: (next) => void selectArea(next),
    click,
  });
  window.addEventListener("resize", onResize);
  flowsToggle.addEventListener("change", () => {
    cache = null;
    void fetchWindow();
  });
  stepPicker.addEventListener("change", () => {
    if (stepPicker.value) void navigate(new URLSearchParams({ step: stepPicker.value }));
  });
  fitButton.addEventListener("click", () => fitSelection());
  resetButton.addEventListener("click", () => setWindow(0, runEnd));

  resize();
  performance.mark("aiprof:timeline-layout");
  // The first window: the link's, when it names one, so the first answer is for it.
  const t0 = params.get("t0");
  const t1 = params.get("t1");
  if (t0 !== null && t1 !== null) {
    const margin = runEnd * 0.01;
    const span = Math.min(Math.max(Number(t1) - Number(t0), MIN_SPAN), runEnd + 2 * margin);
    v0 = Math.min(Math.max(Number(t0), -margin), runEnd + margin - span);
    v1 = v0 + span;
  }
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
  setTimeout(fillStepPicker, 0);
  if ([...params.keys()].some((k) => k !== "t0" && k !== "t1")) await navigate(params);
  void analysis().then((result: AnalysisSummary) => {
    if ((!result.scopes.length && !result.critical_path_steps) || window.__aiprofTimeline !== handle) return;
    summary = result;
    relayout();
    draw();
    if (needsFetch()) void fetchWindow();
  });
  return {
    cleanup: () => {
      clearTimeout(addressTimer);
      input.unbind();
      window.removeEventListener("resize", onResize);
      delete window.__aiprofTimeline;
    },
    navigate: (p) => void navigate(p),
  };
}
