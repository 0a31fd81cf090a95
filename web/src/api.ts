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
// A category track of /api/memory (analysis::kMemoryCategoryColumns' UI columns; checked
// likewise): live bytes of one category in one pool, points [ns from the origin, bytes].
export interface MemoryCategoryTrack {
  pool: number;  // index into the pools
  category: string;
  peak: number;
  points: [number, number][];
}
// A row of /api/memory's top operators (analysis::kOperatorMemoryColumns; checked likewise),
// operator_memory_top.csv's figures; bytes.
export interface OperatorMemory {
  name: string;
  pool: number;  // index into the pools
  allocations: number;
  allocated_bytes: number;
  max_allocation: number;
  freed_bytes: number;
}
export interface MemoryData {
  inputs: string[];
  pools: MemoryPoolInfo[];
  categories: MemoryCategoryTrack[];
  top_operators: OperatorMemory[];
}
// An operation of /api/communication (analysis::kCommOpColumns and kCommTimeColumns' UI
// columns; checked likewise): communication.json's figures, times in ns.
export interface CommOp {
  name: string;
  group: string;
  kind: string;  // "collective", "p2p"
  type: string;
  rank: number;
  step: number;  // -1: the run has no steps
  start: number;  // ns from the run's origin
  elapse: number;
  transit: number;
  wait: number;
  synchronization: number;
  idle: number;
  wait_ratio: number;
  synchronization_ratio: number;
  bytes: number | null;  // null: size not known
  bandwidth: number;  // GB/s
  transport: string;
  wait_source: string;
  slice: number | null;  // the operation's slice; null: none (merged)
}
// A link of /api/communication's matrix (analysis::kCommMatrixColumns; checked likewise).
export interface CommMatrixLink {
  name: string;
  group: string;
  step: number;
  src_rank: number;
  dst_rank: number;
  transport_type: string;
  transit_size: number;  // MB
  transit_time: number;  // ns
  bandwidth: number;  // GB/s
}
export interface CommunicationData {
  missing: string | null;
  wait_note: string;
  ops: CommOp[];
  ranks: number[];
  steps: number[];
  heatmap: [number, number, number, number][];  // rank, step, wait ns, elapse ns
  matrix: CommMatrixLink[];
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

// /api/compare (`aiprof ui NEW --compare BASE`): the comparison behind `aiprof compare`. The
// rows' fields are the columns the server writes from analysis::kNameDeltaColumns and
// kStepDeltaColumns (tests/server/ui_api_types_test.cc checks them); times in ns.
export interface CompareDelta {
  name: string;
  type: string;
  input_shape: string;  // with --group-by=shape, else ""
  change: string;  // added, removed, slower, faster, unchanged
  base_calls: number;
  base_total: number;
  base_mean: number;
  base_self: number;
  base_max: number;
  base_min: number;
  comparison_calls: number;
  comparison_total: number;
  comparison_mean: number;
  comparison_self: number;
  comparison_max: number;
  comparison_min: number;
  diff_calls: number;
  diff_total: number;
  diff_mean: number;
  diff_self: number;
  total_ratio: number | null;  // comparison / base; null: only the comparison has time
  mean_ratio: number | null;
}
export interface CompareStep {
  device: number;  // the scope's device, -1: a host process
  rank: number;
  mean: boolean;  // the mean over each side's steps
  base_step: number;
  comparison_step: number;
  base_steps: number;  // steps behind the figures (1, or each side's count for a mean)
  comparison_steps: number;
  base_step_time: number;
  base_computing: number;
  base_communication_not_overlapped: number;
  base_communication: number;
  base_free: number;
  base_preparing: number;
  comparison_step_time: number;
  comparison_computing: number;
  comparison_communication_not_overlapped: number;
  comparison_communication: number;
  comparison_free: number;
  comparison_preparing: number;
  diff_step_time: number;
  diff_computing: number;
  diff_communication_not_overlapped: number;
  diff_communication: number;
  diff_free: number;
  diff_preparing: number;
}
// A step figure's name and the fields of a CompareStep that hold it.
export type CompareStepFigureKey = Exclude<keyof CompareStep, "mean">;
export interface CompareStepFigure {
  name: string;
  base: CompareStepFigureKey;
  comparison: CompareStepFigureKey;
  diff: CompareStepFigureKey;
}
export interface ComparedRun {
  label: string;
  steps: number;
  step_source: string;
  device_run: boolean;
  dropped_records: number;
}
export interface ComparisonData {
  missing: string | null;
  base: ComparedRun;
  comparison: ComparedRun;
  notes: string[];
  operator_names: number;
  kernel_names: number;
  operators: CompareDelta[];
  kernels: CompareDelta[];
  step_figures: CompareStepFigure[];
  steps: CompareStep[];
}
