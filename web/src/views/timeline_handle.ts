// What the timeline exposes to the browser tests and the UI benchmark (window.__aiprofTimeline):
// its window, frame times, what it drew and selected, and screen positions to click.
import { slicesTop } from "./timeline_draw";
import { DEPTH_H, INSTANT_H, Lane } from "./timeline_lanes";
import type { FrameRects } from "./timeline_spans";
export interface Area {
  t0: number;
  t1: number;
  tracks: number[];
}

export interface TimelineHandle {
  window: () => [number, number];
  setWindow: (t0: number, t1: number) => void;
  frames: number[];
  fetches: number;
  firstDataFrameAt: number;
  drawnSpans: number;
  ticks: string[];  // the ruler's labels in the last frame
  selected: number;  // slice id, -1 none
  selectedInstant: number;
  area: Area | null;
  tooltip: () => string;
  // Screen positions for the tests: a drawn slice's centre, an instant's, a lane's top.
  sliceCenter: (slice: number) => { x: number; y: number } | null;
  instantCenter: (instant: number) => { x: number; y: number } | null;
  lane: (kind: string, id: number) => { y: number; h: number; collapsed: boolean; pinned: boolean; label: string; slicesTop: number } | null;
  flowEnds: () => { from: number; to: number; xb: number; yb: number }[];
}

declare global {
  interface Window {
    __aiprofTimeline?: TimelineHandle;
  }
}

// One region's scratch of the last frame (timeline.ts draw()): its slice rectangles and its
// instants as x, y, row.
export interface DrawnRegion {
  rects: FrameRects;
  markers: number[];
}

// What the handle reads from the timeline.
export interface HandleSources {
  window: () => [number, number];
  setWindow: (t0: number, t1: number) => void;
  tooltip: HTMLElement;
  regions: DrawnRegion[];
  lanes: () => Lane[];
  laneTop: (lane: Lane) => number;
  flowEnds: number[];  // the drawn flows as from, to, end x, end y
}

export function makeHandle(from: HandleSources): TimelineHandle {
  return {
    window: from.window,
    setWindow: from.setWindow,
    frames: [],
    fetches: 0,
    firstDataFrameAt: 0,
    drawnSpans: 0,
    ticks: [],
    selected: -1,
    selectedInstant: -1,
    area: null,
    tooltip: () => (from.tooltip.style.display === "none" ? "" : from.tooltip.textContent ?? ""),
    sliceCenter: (slice) => {
      for (const { rects: r } of from.regions) {
        for (let i = 0; i < r.length; i++) if (r.slice[i] === slice) return { x: r.left[i] + r.width[i] / 2, y: r.top[i] + DEPTH_H / 2 };
      }
      return null;
    },
    instantCenter: (instant) => {
      for (const { markers: m } of from.regions) {
        for (let i = 0; i < m.length; i += 3) if (m[i + 2] === instant) return { x: m[i], y: m[i + 1] + INSTANT_H / 2 };
      }
      return null;
    },
    lane: (kind, id) => {
      const l = from.lanes().find((x) => x.kind === kind && x.id === id);
      return l ? { y: from.laneTop(l), h: l.h, collapsed: l.collapsed, pinned: l.pinned, label: l.label, slicesTop: slicesTop(l, from.laneTop(l)) } : null;
    },
    flowEnds: () => {
      const ends = [];
      const e = from.flowEnds;
      for (let i = 0; i < e.length; i += 4) ends.push({ from: e[i], to: e[i + 1], xb: e[i + 2], yb: e[i + 3] });
      return ends;
    },
  };
}
