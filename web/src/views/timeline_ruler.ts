// The timeline's ruler: the steps as bands (every other one tinted) and time ticks.
import type { StepSpan } from "../api";
import { formatTickNs } from "../format";

export const LABEL_W = 210;
export const RULER_H = 30;

// The run's steps by start, as typed arrays, with the running maximum of their ends: a frame
// finds the first step that can be on screen by a binary search instead of walking the
// thousands before it (the steps of several threads may overlap, so the ends alone are not
// sorted).
export class StepTable {
  readonly id: number[];
  readonly track: number[];
  readonly label: string[];
  readonly begin: Float64Array;
  readonly end: Float64Array;
  private readonly endsBefore: Float64Array;

  constructor(steps: StepSpan[]) {
    const sorted = [...steps].sort((a, b) => a[1] - b[1]);
    this.id = sorted.map((s) => s[0]);
    this.track = sorted.map((s) => s[4] ?? -1);
    this.label = sorted.map((s) => s[3]);
    this.begin = Float64Array.from(sorted, (s) => s[1]);
    this.end = Float64Array.from(sorted, (s) => s[2]);
    this.endsBefore = new Float64Array(sorted.length);
    let max = -Infinity;
    this.end.forEach((end, i) => (this.endsBefore[i] = max = Math.max(max, end)));
  }

  // The index of a step holding time t (the latest begun), or -1.
  stepAt(t: number): number {
    for (let i = this.firstEndingAfter(t); i < this.begin.length && this.begin[i] <= t; i++) {
      if (this.end[i] >= t) {
        let found = i;
        for (let k = i + 1; k < this.begin.length && this.begin[k] <= t; k++) if (this.end[k] >= t) found = k;
        return found;
      }
    }
    return -1;
  }

  // The first step whose end, or the end of one before it, reaches t.
  firstEndingAfter(t: number): number {
    let lo = 0;
    let hi = this.endsBefore.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.endsBefore[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// Draws the ruler and returns the tick labels it printed (the e2e test reads them).
export function drawRuler(ctx: CanvasRenderingContext2D, steps: StepTable, v0: number, v1: number, width: number): string[] {
  const plotWidth = Math.max(width - LABEL_W, 1);
  const pxPerNs = plotWidth / (v1 - v0);
  ctx.fillStyle = "#eef1f6";
  ctx.fillRect(0, 0, width, RULER_H);
  ctx.font = "10px system-ui";
  // Every other step is a band; steps narrower than 2 px could not be told apart, so a run
  // of them is one band at half the tint (thousands of steps at full zoom-out).
  let denseLeft = -1;
  let denseRight = -1;
  for (let i = steps.firstEndingAfter(v0); i <= steps.begin.length; i++) {
    const last = i === steps.begin.length;
    const x0 = last ? width + 1 : Math.max(LABEL_W + (steps.begin[i] - v0) * pxPerNs, LABEL_W);
    const x1 = last ? width + 1 : Math.min(LABEL_W + (steps.end[i] - v0) * pxPerNs, width);
    if (!last && x1 < LABEL_W) continue;
    if (x0 <= width && x1 - x0 < 2) {
      denseRight = denseLeft < 0 ? x1 : Math.max(denseRight, x1);
      if (denseLeft < 0) denseLeft = x0;
      continue;
    }
    if (denseLeft >= 0) {
      ctx.fillStyle = "rgba(91,156,246,0.09)";
      ctx.fillRect(denseLeft, 16, Math.max(denseRight - denseLeft, 1), RULER_H - 16);
      denseLeft = -1;
    }
    if (x0 > width) break;
    if (i % 2 === 0) {
      ctx.fillStyle = "rgba(91,156,246,0.18)";
      ctx.fillRect(x0, 16, x1 - x0, RULER_H - 16);
    }
    if (x1 - x0 > 40) {
      ctx.fillStyle = "#3d5a80";
      ctx.fillText(`step ${steps.label[i]}`, x0 + 2, RULER_H - 3);
    }
  }
  // About one tick per 100 px, at 1, 2 or 5 times a power of ten.
  const target = (v1 - v0) / (plotWidth / 100);
  const decade = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
  const tick = target <= decade ? decade : target <= 2 * decade ? 2 * decade : target <= 5 * decade ? 5 * decade : 10 * decade;
  ctx.fillStyle = "#445";
  ctx.strokeStyle = "#c5ccd8";
  ctx.beginPath();
  const labels: string[] = [];
  for (let t = Math.ceil(v0 / tick) * tick; t < v1; t += tick) {
    const x = LABEL_W + (t - v0) * pxPerNs;
    ctx.moveTo(x, 0);
    ctx.lineTo(x, 14);
    labels.push(formatTickNs(t, tick, v1));
    ctx.fillText(labels[labels.length - 1], x + 2, 11);
  }
  ctx.stroke();
  return labels;
}
