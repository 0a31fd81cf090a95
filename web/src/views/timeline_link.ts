// A link into the timeline (router.ts, TimelineTarget) applied to it: a window (t0, t1), a
// step (its window and an area over its thread), an area, a selected slice or instant, the
// longest slice of a name (find), or the processes of a rank.
import { getJson, StepSpan } from "../api";
import type { Area } from "./timeline_handle";
import type { InstantDetail, SliceDetail } from "./timeline_panel";

// What following a link does to the timeline.
export interface LinkActions {
  window: () => [number, number];
  setWindow: (t0: number, t1: number) => void;
  fit: (t0: number, t1: number, pad: number) => void;
  revealLane: (track: number) => void;
  pickStep: (id: number) => void;
  selectArea: (area: Area) => Promise<void>;
  selectSlice: (slice: number) => Promise<SliceDetail>;
  selectInstant: (row: number) => Promise<InstantDetail>;
  missing: (text: string) => void;
  showRank: (rank: number) => void;
  refresh: () => void;  // draw, and fetch what the new view needs
}

async function followSelection(sel: string, hasWindow: boolean, a: LinkActions): Promise<void> {
  if (sel.startsWith("s")) {
    const d = await a.selectSlice(Number(sel.slice(1)));
    a.revealLane(d.track);
    if (!hasWindow) a.fit(d.ts, d.ts + d.dur, 0.5);
  } else if (sel.startsWith("i")) {
    const d = await a.selectInstant(Number(sel.slice(1)));
    a.revealLane(d.track);
    const [v0, v1] = a.window();
    if (!hasWindow) a.setWindow(d.ts - (v1 - v0) / 2, d.ts + (v1 - v0) / 2);
  }
}

async function followFind(find: string, hasWindow: boolean, a: LinkActions): Promise<void> {
  const found = await getJson<{ matches: [number, number, number, number, number, string][] }>(`/api/search?q=${encodeURIComponent(find)}&exact=1&order=duration&limit=1`);
  const m = found.matches[0];
  if (!m) {
    a.missing(`No slice named ${find} in this run.`);
    return;
  }
  a.revealLane(m[3]);
  if (!hasWindow) a.fit(m[1], m[1] + m[2], 0.5);
  await a.selectSlice(m[0]);
}

export async function followLink(p: URLSearchParams, steps: StepSpan[], a: LinkActions): Promise<void> {
  const t0 = p.get("t0");
  const t1 = p.get("t1");
  const hasWindow = t0 !== null && t1 !== null;
  if (hasWindow) a.setWindow(Number(t0), Number(t1));
  const step = p.get("step");
  const s = step !== null ? steps.find((x) => x[0] === Number(step)) : undefined;
  if (s) {
    if (s[4] >= 0) a.revealLane(s[4]);
    if (!hasWindow) a.fit(s[1], s[2], 0.03);
    a.pickStep(s[0]);
    await a.selectArea({ t0: s[1], t1: s[2], tracks: s[4] >= 0 ? [s[4]] : [] });
  }
  const areaText = p.get("area");
  if (areaText) {
    const [from, to] = areaText.split(",").map(Number);
    const tracksText = p.get("tracks");
    await a.selectArea({ t0: from, t1: to, tracks: tracksText ? tracksText.split(",").map(Number) : [] });
  }
  await followSelection(p.get("sel") ?? "", hasWindow, a);
  const find = p.get("find");
  if (find) await followFind(find, hasWindow, a);
  const rank = p.get("rank");
  if (rank !== null) a.showRank(Number(rank));
  a.refresh();
}
