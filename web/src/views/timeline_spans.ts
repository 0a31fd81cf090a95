// The timeline's data as typed arrays, and a frame's rectangles in scratch buffers kept
// between frames. Why: the server answers JSON arrays (one small heap object per span); kept
// as they are, a full zoom-out cache holds tens of thousands of them that the garbage
// collector walks, and a frame that grouped them by colour in growing number[] batches, with
// a closure per lane, allocated on every pan and zoom. Here an answer is decoded once, when it
// arrives, into a few typed arrays per track (their memory lies outside the JS heap), and a
// frame writes its rectangles into buffers that only grow, so drawing allocates nothing.
import { colorOfHue, hueOf } from "../format";

export type Span = [depth: number, ts: number, dur: number, count: number, slice: number, name: number];
export type Instant = [ts: number, row: number, name: number];

export interface TrackSpans {
  length: number;
  depth: Int32Array;
  ts: Float64Array;
  end: Float64Array;
  count: Float64Array;
  slice: Float64Array;
  name: Int32Array;
  instants: Float64Array;  // their times: a marker is drawn per instant
  instantRow: Float64Array;  // their InstantTable rows (/api/instant?id=)
  instantName: Int32Array;  // index into the answer's names
}

export function decodeTrack(spans: Span[], instants: Instant[]): TrackSpans {
  const n = spans.length;
  const track: TrackSpans = {
    length: n,
    depth: new Int32Array(n),
    ts: new Float64Array(n),
    end: new Float64Array(n),
    count: new Float64Array(n),
    slice: new Float64Array(n),
    name: new Int32Array(n),
    instants: new Float64Array(instants.length),
    instantRow: new Float64Array(instants.length),
    instantName: new Int32Array(instants.length),
  };
  for (let i = 0; i < n; i++) {
    const s = spans[i];
    track.depth[i] = s[0];
    track.ts[i] = s[1];
    track.end[i] = s[1] + s[2];
    track.count[i] = s[3];
    track.slice[i] = s[4];
    track.name[i] = s[5];
  }
  for (let i = 0; i < instants.length; i++) {
    track.instants[i] = instants[i][0];
    track.instantRow[i] = instants[i][1];
    track.instantName[i] = instants[i][2];
  }
  return track;
}

// A counter series as times and per-pixel minima and maxima (the server's [ts, min, max]
// points: one sample each when zoomed in), with the largest maximum, which scales the lane.
export interface CounterPoints {
  ts: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  max: number;
}

export function decodeCounter(points: [number, number, number][]): CounterPoints {
  const ts = new Float64Array(points.length);
  const lo = new Float64Array(points.length);
  const hi = new Float64Array(points.length);
  let max = 0;
  for (let i = 0; i < points.length; i++) {
    ts[i] = points[i][0];
    lo[i] = points[i][1];
    hi[i] = points[i][2];
    max = Math.max(max, hi[i]);
  }
  return { ts, lo, hi, max };
}

// The point holding time t (the last one at or before it), or -1 before the first.
export function pointAt(points: CounterPoints, t: number): number {
  let lo = 0;
  let hi = points.ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points.ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

// Per Overlap Analysis row, its intervals as [begin, end, begin, end, ...].
export function decodeIntervals(rows: [number, number][][]): Float64Array[] {
  return rows.map((intervals) => {
    const out = new Float64Array(intervals.length * 2);
    intervals.forEach(([ts, dur], i) => {
      out[2 * i] = ts;
      out[2 * i + 1] = ts + dur;
    });
    return out;
  });
}

// Fill colours by slot: one per hue of hueOf, then merged runs, then the selected slice.
export const MERGED_SLOT = 360;
export const SELECTED_SLOT = 361;
const PALETTE: string[] = [...Array.from({ length: 360 }, (_, hue) => colorOfHue(hue)), "#9aa6b8", "#1d4ed8"];

export function slotsOf(names: string[]): Uint16Array {
  return Uint16Array.from(names, hueOf);
}

function grown<T extends Float64Array | Int32Array | Uint16Array>(array: T, size: number): T {
  if (array.length >= size) return array;
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(size, array.length * 2));
  bigger.set(array);
  return bigger;
}

// One frame's slice rectangles (whole pixels), with what a label needs.
export class FrameRects {
  length = 0;
  left = new Float64Array(4096);
  top = new Float64Array(4096);
  width = new Float64Array(4096);
  slot = new Uint16Array(4096);
  count = new Float64Array(4096);
  slice = new Float64Array(4096);
  name = new Int32Array(4096);
  private order = new Int32Array(4096);
  private readonly start = new Int32Array(PALETTE.length + 1);

  clear(): void {
    this.length = 0;
  }

  private add(left: number, top: number, width: number, slot: number, count: number, slice: number, name: number): void {
    const i = this.length++;
    if (i >= this.left.length) {
      const size = i + 1;
      this.left = grown(this.left, size);
      this.top = grown(this.top, size);
      this.width = grown(this.width, size);
      this.slot = grown(this.slot, size);
      this.count = grown(this.count, size);
      this.slice = grown(this.slice, size);
      this.name = grown(this.name, size);
      this.order = grown(this.order, size);
    }
    this.left[i] = left;
    this.top[i] = top;
    this.width[i] = width;
    this.slot[i] = slot;
    this.count[i] = count;
    this.slice[i] = slice;
    this.name[i] = name;
  }

  // The spans of one track inside [t0, t1] as drawn at `nsPerPx` (x = labelW + (t - t0) /
  // nsPerPx, clipped to [labelW, right]): the server merged what shares a pixel of the cache's
  // resolution (three times the screen's); zoomed out further, neighbours whose gap and widths
  // are all under one screen pixel are merged here by the same rule (the longest one names
  // the run, a run of several is grey), so a frame has at most about one rectangle per pixel
  // and row, however many spans the cache holds. Spans come grouped by depth, by time.
  addTrack(
    track: TrackSpans, t0: number, t1: number, nsPerPx: number, labelW: number, right: number,
    laneTop: number, rowHeight: number, slots: Uint16Array, selected: number, rows = Infinity,
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
    for (let i = 0; i <= track.length; i++) {
      const last = i === track.length;
      const s = last ? 0 : track.ts[i];
      const e = last ? 0 : track.end[i];
      if (!last && (e < t0 || s > t1 || track.depth[i] >= rows)) continue;
      const d = last ? -1 : track.depth[i];
      const dur = e - s;
      if (!last && d === depth && Math.max(s - previousEnd, previousDur, dur) < nsPerPx) {
        end = Math.max(end, e);
        count += track.count[i];
        if (dur > longest) {
          longest = dur;
          slice = track.slice[i];
          name = track.name[i];
        }
      } else {
        if (depth >= 0) {
          const left = Math.round(Math.max(labelW + (ts - t0) / nsPerPx, labelW));
          const width = Math.max(Math.round(Math.min(labelW + (end - t0) / nsPerPx, right)) - left, 1);
          const slot = slice === selected ? SELECTED_SLOT : count > 1 ? MERGED_SLOT : slots[name];
          this.add(left, laneTop + depth * rowHeight, width, slot, count, slice, name);
        }
        if (last) break;
        depth = d;
        ts = s;
        end = e;
        count = track.count[i];
        slice = track.slice[i];
        name = track.name[i];
        longest = dur;
      }
      previousEnd = e;
      previousDur = dur;
    }
  }

  // Fills the rectangles colour by colour (a counting sort by slot): setting fillStyle parses
  // the colour, and at full zoom-out neighbours rarely share one, so one change per colour.
  fill(ctx: CanvasRenderingContext2D, height: number): void {
    const start = this.start;
    start.fill(0);
    for (let i = 0; i < this.length; i++) start[this.slot[i] + 1]++;
    for (let s = 1; s < start.length; s++) start[s] += start[s - 1];
    for (let i = 0; i < this.length; i++) this.order[start[this.slot[i]]++] = i;
    // start[s] is now the end of slot s's run (the beginning of slot s + 1's).
    let from = 0;
    for (let s = 0; s < PALETTE.length; s++) {
      const to = start[s];
      if (to === from) continue;
      ctx.fillStyle = PALETTE[s];
      for (let k = from; k < to; k++) {
        const i = this.order[k];
        ctx.fillRect(this.left[i], this.top[i], this.width[i], height);
      }
      from = to;
    }
  }
}
