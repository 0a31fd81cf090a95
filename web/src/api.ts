// The server's JSON API (src/server/ui_api.h). The token travels as a cookie set by the
// first request (the page URL's ?token=); it is also sent as a header in case cookies are off.
// Read once, when the module loads: the shell then drops it from the address bar.
const token = new URLSearchParams(location.search).get("token") ?? "";

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: token ? { Authorization: `token ${token}` } : {} });
  if (!response.ok) {
    throw new Error(`${path}: ${response.status} ${(await response.text()).trim()}`);
  }
  return (await response.json()) as T;
}

export interface ProcessInfo {
  pid: number;
  host: string;
  name: string;
  label: string;
  device: number;
  rank: number;
  role: string;  // "main", "DataLoader worker", "child", "launcher", "device"
  role_label: string;  // "main", "DataLoader worker 1", "rank 2 · main", "GPU 0"
  ppid: number;
  metadata: Record<string, unknown> | null;
}

export interface StepTraceRow {
  id: number;  // the step id (src/model/steps.h): unique in the run
  label: string;  // "3", or "1:3" (loop 1, step 3) when a process has several loops
  step: number;
  begin: number;
  iteration: number;
  fp_to_bp: number;
  refresh: number;
  data_aug_bound: number | null;
}

export interface RunInfo {
  origin_ns: number;
  end: number;
  prof_dirs: string[];
  processes: ProcessInfo[];
  counts: Record<string, number>;
  drops: { total: number; rows: { tid: number; kind: number; count: number }[] };
  files: { path: string; error: string }[];
  steps: StepSpan[];
  step_source: string;
  step_loops: number;
}
// [id, begin, end, label, track]: the id is what ?step= takes; the label is "3" or "1:3"; the
// track (-1: none) is the first of the thread that ran the step.
export type StepSpan = [number, number, number, string, number];

export interface TrackInfo {
  id: number;
  lane: number;
  rows: number;
  instants: number;
}
export interface ThreadInfo {
  id: number;
  tid: number;
  name: string;
  tracks: TrackInfo[];
}
export interface CounterInfo {
  id: number;
  name: string;
  unit: string;
  scope: number;
  instance: number;
}
export interface ProcessTracks {
  id: number;
  pid: number;
  device: number;
  rank: number;
  name: string;
  label: string;
  role: string;
  role_label: string;
  threads: ThreadInfo[];
  counters: CounterInfo[];
}

export interface TableData {
  columns: string[];
  missing: string | null;
  rows: (string | number)[][];
  slices: number[];  // per row, its longest call
  processes: number[];  // per row, its process (ProcessTable row)
  wall?: number;  // ns: the wall time the shares are of
}

let runPromise: Promise<RunInfo> | null = null;
export function run(): Promise<RunInfo> {
  runPromise ??= getJson<RunInfo>("/api/run");
  return runPromise;
}

let tracksPromise: Promise<{ processes: ProcessTracks[] }> | null = null;
export function tracks(): Promise<{ processes: ProcessTracks[] }> {
  tracksPromise ??= getJson("/api/tracks");
  return tracksPromise;
}

export interface CounterSeriesData {
  id: number;
  points: [number, number, number][];
}
export function counters(ids: number[], t0: number, t1: number, px: number) {
  return getJson<{ series: CounterSeriesData[] }>(
    `/api/counters?series=${ids.join(",")}&t0=${Math.floor(t0)}&t1=${Math.ceil(t1)}&px=${px}`,
  );
}

export interface BreakdownRow {
  id: number | null;  // step id; null: the run has no steps (one row for the whole run)
  label: string;
  step: number;
  scope: number;
  begin: number;
  duration: number;  // the step's window on the scope: computing + comm. not overlapped + free
  // The step_trace_time columns the server writes from analysis::kStepTraceTimeColumns
  // (tests/server/ui_api_types_test.cc checks these fields against them); ns.
  computing: number;
  communication_not_overlapped: number;
  overlapped: number;
  communication: number;
  free: number;
  stage: number;
  bubble: number;
  communication_not_overlapped_and_exclude_receive: number;
  preparing: number;  // a part of free: step begin to the first task
  input_wait: number;  // a part of free: waiting for input
  idle: number;  // free less input_wait
  wait_slice: number | null;  // the step's longest input-wait range (not a step_trace_time column)
}
// /api/dataprep: the data preparation analysis (server/analysis_api.cc), its described
// columns (analysis::kDataPreparationColumns, kDataPreparationSummaryColumns; checked by
// tests/server/ui_api_types_test.cc); ns.
export interface DataPreparationStep {
  id: number;  // the step id
  label: string;
  tid: number;  // the thread running the step
  duration: number;
  wait: number;
  waits: number;
  loader_busy: number;
  queue_empty: boolean | null;  // null: no loader ranges, so no queue view
  wait_slice: number | null;  // the step's longest input-wait range
}
export interface DataPreparation {
  inputs: string[];
  has_queue_view: boolean;
  total_step: number;
  total_wait: number;
  empty_queue_steps: number | null;
  steps: DataPreparationStep[];
}
// A pool of /api/memory (analysis::kMemoryPoolColumns; checked likewise).
export interface MemoryPoolInfo {
  name: string;
  source: string;
  process: number;
  pid: number;
  role: string;
  peak_allocated: number;
  peak_allocated_ts: number;  // ns from the run's origin
  peak_reserved: number | null;  // null: the source has no reserved figure
  capacity: number;  // bytes the pool can reach (device memory, host MemTotal); 0: not recorded
  allocated: [number, number][];
  reserved: [number, number][] | null;
}
// /api/critical_path and /api/critical_path/segments (server/critical_path_api.cc): rows
// written from their descriptions (analysis::kWhatIfColumns, kCriticalPathStepColumns,
// kCriticalPathSegmentColumns; checked by tests/server/ui_api_types_test.cc); ns.
export interface WhatIfSummary {
  name: string;  // "data loading free", "aten::mm 50% faster", ...
  kind: string;  // "data_loading_free", "operator_faster", ...
  target: string;  // the operator or kernel of an operator projection
  applicable: boolean;
  projected_ns: number;  // Σ projected step time
}
export interface CriticalPathStep {
  id: number;  // the step's index, what /api/critical_path/segments?step= takes
  label: string;  // "3", "1:3", or "all" for a whole-run span
  projected: number[];  // projected time per what-if (CriticalPath.what_ifs)
  ranks: number;
  begin: number;  // ns from the run's origin
  duration: number;
  critical_rank: number;
  critical_thread: string;
  // The path's time per category (CriticalPath.category_keys): sums to duration.
  compute: number;
  comm_transit: number;
  comm_wait: number;
  host_overhead: number;
  sync: number;
  data_loading: number;
  idle: number;
}
export interface CriticalPath {
  whole_run: boolean;
  categories: string[];  // names, by category number
  category_keys: string[];  // the steps' fields of the categories, by category number
  step_ns: number;
  dropped_edges: number;
  what_ifs: WhatIfSummary[];
  steps: CriticalPathStep[];
}
export interface CriticalPathSegment {
  begin: number;  // ns from the run's origin
  duration: number;
  category: number;  // CriticalPath.categories index
  name: string;  // whose self time; "" for a gap or a latency
  kind: string;  // "self", "gap", "latency"
  thread: string;
  rank: number;
  slice: number | null;  // the slice whose self time it is
}
export interface AnalysisSummary {
  inputs: string;
  step_source: string;
  critical_path_steps?: number;  // steps with a critical path (its timeline lane when > 0)
  scopes: { process: number; device: number; rank: number; compute_input: string }[];
  step_breakdown: BreakdownRow[];
  step_trace: StepTraceRow[];  // the rows of step_trace_*.csv
}
let analysisPromise: Promise<AnalysisSummary> | null = null;
export function analysis(): Promise<AnalysisSummary> {
  analysisPromise ??= getJson<AnalysisSummary>("/api/analysis");
  return analysisPromise;
}
