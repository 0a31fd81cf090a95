// The timeline's drawing of everything but the slices (timeline_spans.ts): lane headers and
// labels, Overlap Analysis rows, the critical path's row, counters as steps (a value holds until the next sample;
// min..max where a pixel holds several), instant markers in their own row above the slices,
// and flows as curves with an arrowhead at their end.
import { CRITICAL_COLORS, formatCounterValue } from "../format";
import { DEPTH_H, INSTANT_H, Lane, PROCESS_H } from "./timeline_lanes";
import { LABEL_W } from "./timeline_ruler";
import { CounterPoints, FrameRects } from "./timeline_spans";

export const OVERLAP_COLORS = ["#7fb3e8", "#b38fe8", "#e88f8f", "#c9d1e0"];
export const PIN_W = 40;  // the pin button at the right end of a process header

// x of time t on a canvas whose plot starts at LABEL_W.
export interface Scale {
  v0: number;
  nsPerPx: number;
  width: number;
}
const xOf = (s: Scale, t: number) => LABEL_W + (t - s.v0) / s.nsPerPx;

export function drawProcessHeader(ctx: CanvasRenderingContext2D, lane: Lane, y: number, width: number): void {
  ctx.fillStyle = lane.pinned ? "#d6e4fb" : "#dde3ee";
  ctx.fillRect(0, y, width, lane.h);
  ctx.fillStyle = "#1d2330";
  ctx.font = "bold 11px system-ui";
  ctx.fillText(`${lane.collapsed ? "▸" : "▾"} ${lane.label}`, 6, y + 14, width - PIN_W - 16);
  // The pin button: at the header's right end, where its text does not reach.
  ctx.fillStyle = lane.pinned ? "#1d4ed8" : "#8a94a6";
  ctx.font = "11px system-ui";
  ctx.fillText(lane.pinned ? "unpin" : "pin", width - PIN_W + 4, y + 14);
}

export function drawLaneLabel(ctx: CanvasRenderingContext2D, lane: Lane, y: number): void {
  ctx.fillStyle = "#fafbfc";
  ctx.fillRect(0, y, LABEL_W - 2, lane.h - 1);
  ctx.fillStyle = "#344";
  ctx.font = "11px system-ui";
  const arrow = lane.kind === "track" && (lane.collapsed || lane.depths > 1) ? (lane.collapsed ? "▸ " : "▾ ") : "";
  ctx.fillText(arrow + lane.label, 6, y + 13, LABEL_W - 12);
}

export function drawLaneSeparator(ctx: CanvasRenderingContext2D, lane: Lane, y: number, width: number): void {
  ctx.strokeStyle = "#eceff4";
  ctx.beginPath();
  ctx.moveTo(0, y + lane.h - 0.5);
  ctx.lineTo(width, y + lane.h - 0.5);
  ctx.stroke();
}

// The top of a track lane's first slice row.
export function slicesTop(lane: Lane, y: number): number {
  return y + 2 + (lane.instantsRow ? INSTANT_H : 0);
}

export function drawOverlap(ctx: CanvasRenderingContext2D, s: Scale, rows: Float64Array[], names: string[], y: number): void {
  ctx.font = "10px system-ui";
  const scale = 1 / s.nsPerPx;
  for (let row = 0; row < rows.length; row++) {
    const intervals = rows[row];
    ctx.fillStyle = OVERLAP_COLORS[row];
    // Intervals that touch within a pixel are drawn as one rectangle.
    let runLeft = -1;
    let runRight = -1;
    for (let i = 0; i <= intervals.length; i += 2) {
      const last = i === intervals.length;
      const x0 = last ? 0 : Math.max(LABEL_W + (intervals[i] - s.v0) * scale, LABEL_W);
      const x1 = last ? 0 : Math.min(LABEL_W + (intervals[i + 1] - s.v0) * scale, s.width);
      if (!last && (x1 < LABEL_W || x0 > s.width)) continue;
      if (!last && runLeft >= 0 && x0 <= runRight + 1) {
        runRight = Math.max(runRight, x1);
        continue;
      }
      if (runLeft >= 0) ctx.fillRect(runLeft, y + 2 + row * DEPTH_H, Math.max(runRight - runLeft, 1), DEPTH_H - 1);
      runLeft = x0;
      runRight = x1;
    }
    ctx.fillStyle = "#445";
    ctx.fillText(names[row] ?? "", LABEL_W + 4, y + 2 + row * DEPTH_H + 11);
  }
}

// The job's critical path: one row, each piece in its category's colour.
export function drawCritical(ctx: CanvasRenderingContext2D, s: Scale, pieces: Float64Array | null, y: number): void {
  if (!pieces) return;
  const scale = 1 / s.nsPerPx;
  for (let i = 0; i < pieces.length; i += 3) {
    const x0 = Math.max(LABEL_W + (pieces[i] - s.v0) * scale, LABEL_W);
    const x1 = Math.min(LABEL_W + (pieces[i + 1] - s.v0) * scale, s.width);
    if (x1 < LABEL_W || x0 > s.width) continue;
    ctx.fillStyle = CRITICAL_COLORS[pieces[i + 2]] ?? "#999";
    ctx.fillRect(x0, y + 2, Math.max(x1 - x0, 1), DEPTH_H - 1);
  }
}

// A counter as steps: each sample's value holds until the next one; where the server merged
// several samples into one pixel, a vertical stroke spans their min..max. Scaled to the
// largest value in the cache, which the lane prints.
export function drawCounter(ctx: CanvasRenderingContext2D, s: Scale, points: CounterPoints | undefined, lane: Lane, y: number, endX: number): void {
  const max = points?.max ?? 0;
  const yOf = (v: number) => y + lane.h - 3 - (max > 0 ? (v / max) * (lane.h - 8) : 0);
  if (points && points.ts.length) {
    ctx.beginPath();
    const first = Math.min(Math.max(xOf(s, points.ts[0]), LABEL_W), s.width);
    ctx.moveTo(first, yOf(0));
    for (let i = 0; i < points.ts.length; i++) {
      const x = Math.min(Math.max(xOf(s, points.ts[i]), LABEL_W), s.width);
      const next = i + 1 < points.ts.length ? Math.min(Math.max(xOf(s, points.ts[i + 1]), LABEL_W), s.width) : Math.min(Math.max(endX, x), s.width);
      ctx.lineTo(x, yOf(points.hi[i]));
      ctx.lineTo(next, yOf(points.hi[i]));
    }
    ctx.lineTo(Math.min(Math.max(endX, first), s.width), yOf(0));
    ctx.closePath();
    ctx.fillStyle = "rgba(47,125,91,0.15)";
    ctx.fill();
    ctx.strokeStyle = "#2f7d5b";
    ctx.beginPath();
    for (let i = 0; i < points.ts.length; i++) {
      const x = Math.min(Math.max(xOf(s, points.ts[i]), LABEL_W), s.width);
      const next = i + 1 < points.ts.length ? Math.min(Math.max(xOf(s, points.ts[i + 1]), LABEL_W), s.width) : Math.min(Math.max(endX, x), s.width);
      if (i === 0) ctx.moveTo(x, yOf(points.hi[i]));
      else ctx.lineTo(x, yOf(points.hi[i]));
      ctx.lineTo(next, yOf(points.hi[i]));
      if (points.lo[i] !== points.hi[i]) {
        ctx.moveTo(x, yOf(points.lo[i]));
        ctx.lineTo(x, yOf(points.hi[i]));
        ctx.moveTo(next, yOf(points.hi[i]));
      }
    }
    ctx.stroke();
  }
  ctx.fillStyle = "#667085";
  ctx.font = "9px system-ui";
  ctx.fillText(`max ${formatCounterValue(max, lane.unit ?? "")}`, LABEL_W + 2, y + 9);
}

// Instants as small downward triangles in the lane's instant row, above its slices (so they
// never cover a slice's label); the selected one dark blue. `xs` holds x, lane top, row.
export function drawInstants(ctx: CanvasRenderingContext2D, xs: number[], selectedAt: number): void {
  ctx.fillStyle = "#3d4a5c";
  ctx.beginPath();
  for (let i = 0; i < xs.length; i += 3) {
    ctx.moveTo(xs[i] - 4, xs[i + 1] + 2);
    ctx.lineTo(xs[i] + 4, xs[i + 1] + 2);
    ctx.lineTo(xs[i], xs[i + 1] + INSTANT_H - 2);
    ctx.closePath();
  }
  ctx.fill();
  if (selectedAt >= 0) {
    ctx.fillStyle = "#1d4ed8";
    ctx.beginPath();
    ctx.moveTo(xs[selectedAt] - 5, xs[selectedAt + 1] + 1);
    ctx.lineTo(xs[selectedAt] + 5, xs[selectedAt + 1] + 1);
    ctx.lineTo(xs[selectedAt], xs[selectedAt + 1] + INSTANT_H - 1);
    ctx.closePath();
    ctx.fill();
  }
}

// A flow from (xa, ya) to (xb, yb): a curve leaving and entering horizontally, with an
// arrowhead at its end. `strong` for the selected slice's flows.
export function drawFlow(ctx: CanvasRenderingContext2D, xa: number, ya: number, xb: number, yb: number, strong: boolean): void {
  const bend = Math.max(Math.min(Math.abs(xb - xa) / 2, 60), 12);
  ctx.strokeStyle = strong ? "rgba(29,78,216,0.95)" : "rgba(200,60,60,0.7)";
  ctx.lineWidth = strong ? 2 : 1;
  ctx.beginPath();
  ctx.moveTo(xa, ya);
  ctx.bezierCurveTo(xa + bend, ya, xb - bend, yb, xb, yb);
  ctx.stroke();
  ctx.lineWidth = 1;
  // The curve enters its end horizontally from the left: the arrowhead points right.
  ctx.fillStyle = ctx.strokeStyle;
  ctx.beginPath();
  ctx.moveTo(xb, yb);
  ctx.lineTo(xb - 7, yb - 4);
  ctx.lineTo(xb - 7, yb + 4);
  ctx.closePath();
  ctx.fill();
}

export const HEADER_H = PROCESS_H;

// Slice labels, where a rectangle is wide enough for a few characters.
export function drawSliceLabels(ctx: CanvasRenderingContext2D, rects: FrameRects, names: string[], selectedSlice: number): void {
  ctx.font = "10px system-ui";
  for (let i = 0; i < rects.length; i++) {
    const w = rects.width[i];
    if (w <= 36) continue;
    const name = names[rects.name[i]];
    const count = rects.count[i];
    ctx.fillStyle = rects.slice[i] === selectedSlice ? "#fff" : "#111";
    const label = count > 1 ? `${name} +${count - 1}` : name;
    ctx.fillText(label.length * 6 > w ? label.slice(0, Math.max(Math.floor(w / 6) - 1, 1)) + "…" : label, rects.left[i] + 3, rects.top[i] + 11, w - 4);
  }
}
