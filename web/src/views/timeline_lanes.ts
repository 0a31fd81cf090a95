// The timeline's lanes: the job's critical path (when the run has one), then one per process
// header, track (a thread's slices, one row per nesting depth), Overlap Analysis scope and
// counter, stacked top to bottom.
import { AnalysisSummary, ProcessTracks } from "../api";

export const DEPTH_H = 16;
const COUNTER_H = 36;
const PROCESS_H = 20;

export interface Lane {
  kind: "process" | "track" | "counter" | "overlap" | "critical";
  label: string;
  id: number;
  y: number;
  h: number;
  depths: number;
}

// Processes with slices first (the job, then devices), counter-only ones (the launcher's
// host sampler) after them.
export function buildLanes(processes: ProcessTracks[], summary: AnalysisSummary): Lane[] {
  const lanes: Lane[] = [];
  let y = 0;
  const hasSlices = (p: ProcessTracks) => p.threads.some((t) => t.tracks.some((k) => k.rows > 0));
  const ordered = [...processes.filter(hasSlices), ...processes.filter((p) => !hasSlices(p))];
  if (summary.critical_path_steps) {
    lanes.push({ kind: "critical", label: "Critical path", id: 0, y, h: DEPTH_H + 4, depths: 1 });
    y += DEPTH_H + 4;
  }
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
