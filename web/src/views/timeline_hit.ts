// What is under the pointer on the timeline: a slice (or several merged at this zoom), an
// instant, a counter's value at that time (the sample in force: counters are steps), or an
// Overlap Analysis interval; and the tooltip that says it.
import { formatCounterValue, formatNs, formatNsExact } from "../format";
import type { Cache } from "./timeline_fetch";
import { slicesTop } from "./timeline_draw";
import { DEPTH_H, INSTANT_H, Lane } from "./timeline_lanes";
import { pointAt } from "./timeline_spans";

export type Hit =
  | { kind: "slice"; lane: Lane; slice: number; count: number; ts: number; dur: number; name: string }
  | { kind: "instant"; lane: Lane; row: number; ts: number; name: string }
  | { kind: "counter"; lane: Lane; text: string }
  | { kind: "overlap"; lane: Lane; text: string }
  | null;

// The frame's mapping between time and screen that the hit test needs.
export interface Geometry {
  xOf: (t: number) => number;
  laneTop: (lane: Lane) => number;
  nsPerPx: number;
}

function hitTrack(lane: Lane, cache: Cache, x: number, y: number, t: number, g: Geometry): Hit {
  const data = cache.tracks.get(lane.id);
  if (!data) return null;
  const top = g.laneTop(lane);
  if (lane.instantsRow && y < top + 2 + INSTANT_H) {
    let best = -1;
    let bestDx = 6;
    for (let i = 0; i < data.instants.length; i++) {
      const dx = Math.abs(g.xOf(data.instants[i]) - x);
      if (dx < bestDx) {
        bestDx = dx;
        best = i;
      }
    }
    return best < 0 ? null : { kind: "instant", lane, row: data.instantRow[best], ts: data.instants[best], name: cache.names[data.instantName[best]] };
  }
  const depth = Math.floor((y - slicesTop(lane, top)) / DEPTH_H);
  if (depth < 0 || depth >= lane.depths) return null;
  const slack = 2 * g.nsPerPx;
  for (let i = 0; i < data.length; i++) {
    if (data.depth[i] === depth && t >= data.ts[i] - slack && t <= data.end[i] + slack) {
      return { kind: "slice", lane, slice: data.slice[i], count: data.count[i], ts: data.ts[i], dur: data.end[i] - data.ts[i], name: cache.names[data.name[i]] };
    }
  }
  return null;
}

function hitCounter(lane: Lane, cache: Cache, t: number): Hit {
  const points = cache.counters.get(lane.id);
  if (!points) return null;
  const i = pointAt(points, t);
  if (i < 0) return { kind: "counter", lane, text: `${lane.label}\nno sample yet at ${formatNsExact(t)}` };
  const unit = lane.unit ?? "";
  const value = points.lo[i] === points.hi[i]
    ? formatCounterValue(points.hi[i], unit)
    : `${formatCounterValue(points.lo[i], unit)} … ${formatCounterValue(points.hi[i], unit)} (several samples in this pixel)`;
  return { kind: "counter", lane, text: `${lane.label}\n${value}\nsince ${formatNsExact(points.ts[i])}` };
}

// What lies at (x, y), time t, in `lane`.
export function hitLane(lane: Lane, cache: Cache, overlapLaneNames: string[], x: number, y: number, t: number, g: Geometry): Hit {
  if (lane.kind === "track") return hitTrack(lane, cache, x, y, t, g);
  if (lane.kind === "counter") return hitCounter(lane, cache, t);
  if (lane.kind === "overlap") {
    const row = Math.floor((y - g.laneTop(lane) - 2) / DEPTH_H);
    const intervals = cache.overlap.get(lane.id)?.[row];
    if (!intervals) return null;
    for (let i = 0; i < intervals.length; i += 2) {
      if (t >= intervals[i] && t <= intervals[i + 1]) {
        return { kind: "overlap", lane, text: `${overlapLaneNames[row]}\n${formatNsExact(intervals[i])} for ${formatNs(intervals[i + 1] - intervals[i])}` };
      }
    }
  }
  return null;
}

export function tooltipText(found: NonNullable<Hit>): string {
  if (found.kind === "slice") {
    let text = `${found.name}\nstart ${formatNsExact(found.ts)}\nduration ${formatNsExact(found.dur)}`;
    if (found.count > 1) text += `\n${found.count} slices merged at this zoom`;
    return text;
  }
  if (found.kind === "instant") return `${found.name}\ninstant at ${formatNsExact(found.ts)}`;
  return found.text;
}
