// What the timeline asks the server for one window and keeps until the view leaves it: the
// slices of the shown tracks (level of detail per pixel), counters, flows, the Overlap
// Analysis lanes and the critical path lane, decoded into typed arrays when they arrive
// (timeline_spans.ts), so that frames draw without allocating.
import { counters, getJson } from "../api";
import { CounterPoints, decodeCounter, decodeIntervals, decodeTrack, Instant, slotsOf, Span, TrackSpans } from "./timeline_spans";

// [fromTrack, fromDepth, fromTs, toTrack, toDepth, toTs, category, fromSlice, toSlice]
export type Flow = [number, number, number, number, number, number, string, number, number];

export interface Cache {
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

export interface WindowRequest {
  t0: number;
  t1: number;
  px: number;
  tracks: number[];
  counters: number[];
  flows: boolean;
  overlap: boolean;
  critical: boolean;
}

// One window's answers, and the Overlap Analysis lanes' names.
export async function fetchWindowData(r: WindowRequest): Promise<{ cache: Cache; overlapLaneNames: string[] }> {
  const { t0, t1, px } = r;
  const [slices, counterData, flows, overlap, critical] = await Promise.all([
    r.tracks.length
      ? getJson<{ tracks: { id: number; spans: Span[]; instants: Instant[] }[]; names: string[] }>(
          `/api/slices?t0=${t0}&t1=${t1}&px=${px}&tracks=${r.tracks.join(",")}`,
        )
      : Promise.resolve({ tracks: [], names: [] }),
    r.counters.length ? counters(r.counters, t0, t1, px) : Promise.resolve({ series: [] }),
    r.flows ? getJson<{ flows: Flow[] }>(`/api/flows?t0=${t0}&t1=${t1}&px=${px}`) : Promise.resolve({ flows: [] }),
    r.overlap
      ? getJson<{ scopes: { lanes: [number, number][][] }[]; lanes: string[] }>(`/api/overlap?t0=${t0}&t1=${t1}&px=${px}`)
      : Promise.resolve({ scopes: [], lanes: [] }),
    r.critical ? getJson<{ pieces: [number, number, number][] }>(`/api/critical_path/lane?t0=${t0}&t1=${t1}&px=${px}`) : Promise.resolve(null),
  ]);
  const cache: Cache = {
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
  return { cache, overlapLaneNames: overlap.lanes };
}
