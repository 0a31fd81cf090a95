// The timeline's lanes: the job's critical path (when the run has one, at the top of the
// scrolled lanes), then one per process header, track (a thread's slices, one row per nesting
// depth, below a row of instant markers when it has instants), Overlap Analysis scope and
// counter, stacked top to bottom. Process groups collapse to their header and can be pinned:
// pinned groups stay at the top, above the scrolled ones. A thread's track collapses to its
// top row. Headers say who a process is: its role (main, DataLoader worker, launcher, GPU),
// pid and rank, then its command, instead of the same command line five times.
import { AnalysisSummary, ProcessTracks } from "../api";

export const DEPTH_H = 16;
export const INSTANT_H = 12;
export const PROCESS_H = 20;
const COUNTER_H = 36;

export interface Lane {
  kind: "process" | "track" | "counter" | "overlap" | "critical";
  label: string;
  id: number;  // process id, track id, counter series id, or overlap scope index
  process: number;  // the process (group) the lane belongs to; -1 for the critical path
  y: number;  // within its region: the pinned one (pinned) or the scrolled one
  h: number;
  depths: number;  // slice rows drawn
  instantsRow: boolean;  // a row of instant markers above the slices
  pinned: boolean;
  collapsed: boolean;  // a process header of a collapsed group, or a collapsed track
  unit?: string;  // counters
}

export interface LaneState {
  collapsed: Set<number>;  // process ids
  pinned: Set<number>;  // process ids
  collapsedTracks: Set<number>;  // track ids
}

export interface Layout {
  lanes: Lane[];
  pinnedHeight: number;
  scrolledHeight: number;
}

// "train.py --steps=8" from "/usr/bin/python3 examples/pytorch/train.py --steps=8": the script
// (or program) and its arguments, without the interpreter and directories.
export function shortCommand(name: string): string {
  const words = name.split(" ").filter(Boolean);
  if (!words.length) return "";
  let first = 0;
  if (/(^|\/)python[\d.]*$/.test(words[0]) && words.length > 1) first = 1;
  const program = words[first].split("/").pop() ?? words[first];
  return [program, ...words.slice(first + 1)].join(" ");
}

export function processTitle(p: ProcessTracks): string {
  const who = p.device >= 0 ? p.role_label || `GPU ${p.device}` : `${p.role_label || "process"} · pid ${p.pid}`;
  const command = p.device >= 0 ? "" : shortCommand(p.name);
  return command && !/^process \d+$/.test(p.name) ? `${who} · ${command}` : who;
}

// Processes with slices first (the main process, its workers, devices), counter-only ones
// (the launcher's host sampler) after them; pinned groups before all others.
export function buildLanes(processes: ProcessTracks[], summary: AnalysisSummary, state: LaneState): Layout {
  const hasSlices = (p: ProcessTracks) => p.threads.some((t) => t.tracks.some((k) => k.rows > 0 || k.instants > 0));
  const roleOrder = (p: ProcessTracks) => (p.role === "main" ? 0 : p.role === "device" ? 2 : p.role === "launcher" ? 4 : 1);
  const ordered = [...processes].sort((a, b) => {
    const pa = state.pinned.has(a.id) ? 0 : 1;
    const pb = state.pinned.has(b.id) ? 0 : 1;
    if (pa !== pb) return pa - pb;
    const sa = hasSlices(a) ? 0 : 1;
    const sb = hasSlices(b) ? 0 : 1;
    if (sa !== sb) return sa - sb;
    return roleOrder(a) - roleOrder(b);
  });
  const lanes: Lane[] = [];
  let y = 0;
  let pinnedHeight = 0;
  let inPinned = true;
  const startScrolled = () => {
    inPinned = false;
    pinnedHeight = y;
    y = 0;
    if (!summary.critical_path_steps) return;
    lanes.push({ kind: "critical", label: "Critical path", id: 0, process: -1, y, h: DEPTH_H + 4, depths: 1, instantsRow: false, pinned: false, collapsed: false });
    y += DEPTH_H + 4;
  };
  for (const p of ordered) {
    const pinned = state.pinned.has(p.id);
    if (inPinned && !pinned) startScrolled();
    const collapsed = state.collapsed.has(p.id);
    const base = { process: p.id, pinned, instantsRow: false };
    lanes.push({ ...base, kind: "process", label: processTitle(p), id: p.id, y, h: PROCESS_H, depths: 0, collapsed });
    y += PROCESS_H;
    if (collapsed) continue;
    for (const t of p.threads) {
      for (const track of t.tracks) {
        if (track.rows === 0 && track.instants === 0) continue;
        const trackCollapsed = state.collapsedTracks.has(track.id) && track.rows > 1;
        const depths = trackCollapsed ? 1 : track.rows;
        const instantsRow = track.instants > 0;
        const label = `${t.name || "thread"} ${t.tid}${track.lane ? ` · lane ${track.lane}` : ""}`;
        const h = depths * DEPTH_H + 4 + (instantsRow ? INSTANT_H : 0);
        lanes.push({ ...base, kind: "track", label, id: track.id, y, h, depths, instantsRow, collapsed: trackCollapsed });
        y += h;
      }
    }
    summary.scopes.forEach((scope, index) => {
      if (scope.process !== p.id) return;
      lanes.push({ ...base, kind: "overlap", label: "Overlap Analysis", id: index, y, h: 4 * DEPTH_H + 4, depths: 4, collapsed: false });
      y += 4 * DEPTH_H + 4;
    });
    for (const c of p.counters) {
      lanes.push({ ...base, kind: "counter", label: counterTitle(c.name, c.scope, c.instance, processes), id: c.id, y, h: COUNTER_H, depths: 0, collapsed: false, unit: c.unit });
      y += COUNTER_H;
    }
  }
  if (inPinned) startScrolled();
  return { lanes, pinnedHeight, scrolledHeight: y };
}

// A counter's subject from its scope (format::CounterScope: 0 machine, 1 cpu, 2 process, 3
// device, 4 thread): "host", "cpu 1", the process's role and pid, "GPU 0", "tid 12".
export function counterSubject(scope: number, instance: number, processes: ProcessTracks[]): string {
  if (scope === 0) return "host";
  if (scope === 1) return `cpu ${instance}`;
  if (scope === 2) {
    const p = processes.find((q) => q.pid === instance && q.device < 0);
    return p ? `${p.role_label} · pid ${instance}` : `pid ${instance}`;
  }
  if (scope === 3) return `GPU ${instance}`;
  return `tid ${instance}`;
}

function counterTitle(name: string, scope: number, instance: number, processes: ProcessTracks[]): string {
  return `${name} · ${counterSubject(scope, instance, processes)}`;
}
