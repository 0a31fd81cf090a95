// HTA's kernel analyses over the activities of device_activity.h (kernels of each GPU; on
// CPU-only runs the framework operators of each host process):
//   - temporal breakdown per unit (get_temporal_breakdown): M = union of all activities,
//     span = end of the last − start of the first, idle = span − |M|,
//     compute = |union of COMPUTATION activities|, non-compute = span − compute − idle
//     (communication or memory hidden under compute counts as compute);
//   - time per type (_get_gpu_kernel_type_time): a sweep over the merged intervals of each
//     type gives every instant the set of active types, so overlapped time is counted once,
//     under a label such as "COMMUNICATION overlapping COMPUTATION";
//   - per-name statistics and the top kernels per type (_aggr_gpu_kernel_time): sorted by
//     total time; a name past `top_kernels` or once the names before it already cover
//     `duration_ratio` of the type's time goes to "others";
//   - CUDA launch statistics (get_cuda_kernel_launch_stats) from the launch → kernel flows
//     ("ac2g"): launch_delay = max(0, kernel start − launch call end); short kernels (call
//     ≤ runtime cutoff and kernel shorter than its call), runtime outliers (call > cutoff),
//     launch-delay outliers (delay > cutoff). Launch calls are the runtime/driver calls whose
//     name holds "Launch", "MemcpyAsync" or "MemsetAsync".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/device_activity.h"
#include "analysis/result_columns.h"
#include "model/model.h"

namespace aiprof::analysis {

struct KernelBreakdownOptions {
  uint32_t top_kernels = 10;                // HTA num_kernels
  double duration_ratio = 0.8;              // HTA duration_ratio
  int64_t runtime_cutoff_ns = 50000;        // HTA runtime_cutoff, 50 µs
  int64_t launch_delay_cutoff_ns = 100000;  // HTA launch_delay_cutoff, 100 µs
  uint32_t max_outliers = 20;               // launch-delay outliers listed (all are counted)
};

struct TemporalBreakdownRow {
  uint32_t process = 0;  // ProcessTable row (GPU, or host process)
  int64_t span_ns = 0;   // HTA kernel_time
  int64_t idle_ns = 0;
  int64_t compute_ns = 0;
  int64_t non_compute_ns = 0;
};

// The columns of temporal_breakdown.csv and TEMPORAL_BREAKDOWN after the device and the
// input (the result's activity source) the writers put first.
inline constexpr Column<TemporalBreakdownRow> kTemporalBreakdownColumns[] = {
    {"idle_time(us)", "idle", "idleNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const TemporalBreakdownRow& t) { return t.idle_ns; }},
    {"compute_time(us)", "compute", "computeNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const TemporalBreakdownRow& t) { return t.compute_ns; }},
    {"non_compute_time(us)", "non_compute", "nonComputeNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const TemporalBreakdownRow& t) { return t.non_compute_ns; }},
    {"kernel_time(us)", "kernel", "kernelNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const TemporalBreakdownRow& t) { return t.span_ns; }},
    RealColumn<TemporalBreakdownRow>(
        "idle_time_pctg", "idle_share", "", ColumnUnit::kPercent, kFiles,
        [](const TemporalBreakdownRow& t) { return Share(t.idle_ns, t.span_ns); }),
    RealColumn<TemporalBreakdownRow>(
        "compute_time_pctg", "compute_share", "", ColumnUnit::kPercent, kFiles,
        [](const TemporalBreakdownRow& t) { return Share(t.compute_ns, t.span_ns); }),
    RealColumn<TemporalBreakdownRow>(
        "non_compute_time_pctg", "non_compute_share", "", ColumnUnit::kPercent, kFiles,
        [](const TemporalBreakdownRow& t) { return Share(t.non_compute_ns, t.span_ns); }),
};

struct TypeTimeRow {
  uint32_t process = 0;
  std::string label;  // "COMPUTATION", "COMMUNICATION overlapping COMPUTATION", ...
  int64_t time_ns = 0;
  unsigned types = 0;           // the set: bit 1 << ActivityType of each type active
  int64_t process_time_ns = 0;  // the process's time over all its type sets: the share's whole
};

// The columns of kernel_type_breakdown.csv and KERNEL_TYPE_BREAKDOWN after the device.
inline constexpr Column<TypeTimeRow> kKernelTypeBreakdownColumns[] = {
    TextColumn<TypeTimeRow>("kernel_type", "kernel_type", "kernelType", kFiles | kDatabase,
                            [](const TypeTimeRow& t) { return t.label; }),
    {"sum(us)", "duration", "durationNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const TypeTimeRow& t) { return t.time_ns; }},
    RealColumn<TypeTimeRow>(
        "percentage", "percentage", "", ColumnUnit::kPercent, kFiles,
        [](const TypeTimeRow& t) { return Share(t.time_ns, t.process_time_ns); }),
};

struct KernelStatsRow {
  uint32_t process = 0;
  ActivityType type = ActivityType::kComputation;
  std::string name;  // "others" for the aggregated tail
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
  double stddev_ns = 0;  // population standard deviation
};

// The columns of kernel_breakdown.csv and KERNEL_BREAKDOWN after the device.
inline constexpr Column<KernelStatsRow> kKernelBreakdownColumns[] = {
    TextColumn<KernelStatsRow>(
        "kernel_type", "kernel_type", "kernelType", kFiles | kDatabase,
        [](const KernelStatsRow& k) { return std::string(ActivityTypeName(k.type)); }),
    TextColumn<KernelStatsRow>("name", "name", "", kFiles | kDatabase,
                               [](const KernelStatsRow& k) { return k.name; }),
    {"count", "count", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const KernelStatsRow& k) { return static_cast<int64_t>(k.count); }},
    {"sum(us)", "sum", "sumNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const KernelStatsRow& k) { return k.total_ns; }},
    {"max(us)", "max", "maxNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const KernelStatsRow& k) { return k.max_ns; }},
    {"min(us)", "min", "minNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const KernelStatsRow& k) { return k.min_ns; }},
    RealColumn<KernelStatsRow>("mean(us)", "mean", "meanNs", ColumnUnit::kNanosecondsInteger,
                               kFiles | kDatabase,
                               [](const KernelStatsRow& k) { return k.mean_ns; }),
    RealColumn<KernelStatsRow>("std(us)", "std", "stdNs", ColumnUnit::kNanosecondsInteger,
                               kFiles | kDatabase,
                               [](const KernelStatsRow& k) { return k.stddev_ns; }),
};

struct LaunchOutlier {
  uint32_t launch_slice = 0;
  uint32_t kernel_slice = 0;
  int64_t cpu_duration_ns = 0;
  int64_t gpu_duration_ns = 0;
  int64_t launch_delay_ns = 0;
  int64_t launch_start_ns = 0;  // the launch call's start
  int64_t kernel_start_ns = 0;
};

// The columns of launch_delay_outliers.csv and CUDA_LAUNCH_OUTLIER after the launch's and
// the kernel's names (and, in the files, the device) the writers put first.
inline constexpr Column<LaunchOutlier> kLaunchOutlierColumns[] = {
    {"Launch Start(us)", "launch_start", "launchStartNs", ColumnUnit::kTimestamp,
     kFiles | kDatabase, [](const LaunchOutlier& o) { return o.launch_start_ns; }},
    {"", "kernel_start", "kernelStartNs", ColumnUnit::kTimestamp, kDatabase,
     [](const LaunchOutlier& o) { return o.kernel_start_ns; }},
    {"cpu_duration(us)", "cpu_duration", "cpuDurationNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const LaunchOutlier& o) { return o.cpu_duration_ns; }},
    {"gpu_duration(us)", "gpu_duration", "gpuDurationNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const LaunchOutlier& o) { return o.gpu_duration_ns; }},
    {"launch_delay(us)", "launch_delay", "launchDelayNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const LaunchOutlier& o) { return o.launch_delay_ns; }},
};

struct LaunchStatistics {
  uint64_t launches = 0;  // launch calls joined to a device activity
  uint64_t short_kernels = 0;
  uint64_t runtime_outliers = 0;
  uint64_t launch_delay_outliers = 0;
  int64_t total_launch_delay_ns = 0;
  int64_t max_launch_delay_ns = 0;
  std::vector<LaunchOutlier> largest_delays;  // the delay outliers, largest first, capped

  // The mean over the launches (whole ns); 0 without launches.
  int64_t mean_launch_delay_ns() const {
    return launches > 0 ? total_launch_delay_ns / static_cast<int64_t>(launches) : 0;
  }
};

// The columns of cuda_launch_statistics.csv (one row); aiprof analyze's "launches:" line
// and the host-bound advice read the same figures.
inline constexpr Column<LaunchStatistics> kLaunchStatisticsColumns[] = {
    {"Launches", "launches", "", ColumnUnit::kCount, kFiles,
     [](const LaunchStatistics& l) { return static_cast<int64_t>(l.launches); }},
    {"Short Kernels", "short_kernels", "", ColumnUnit::kCount, kFiles,
     [](const LaunchStatistics& l) { return static_cast<int64_t>(l.short_kernels); }},
    {"Runtime Outliers", "runtime_outliers", "", ColumnUnit::kCount, kFiles,
     [](const LaunchStatistics& l) { return static_cast<int64_t>(l.runtime_outliers); }},
    {"Launch Delay Outliers", "launch_delay_outliers", "", ColumnUnit::kCount, kFiles,
     [](const LaunchStatistics& l) { return static_cast<int64_t>(l.launch_delay_outliers); }},
    {"Mean Launch Delay(us)", "mean_launch_delay", "", ColumnUnit::kNanosecondsInteger, kFiles,
     [](const LaunchStatistics& l) { return l.mean_launch_delay_ns(); }},
    {"Max Launch Delay(us)", "max_launch_delay", "", ColumnUnit::kNanosecondsInteger, kFiles,
     [](const LaunchStatistics& l) { return l.max_launch_delay_ns; }},
};

struct KernelBreakdownResult {
  ActivitySource source = ActivitySource::kNone;
  std::vector<TemporalBreakdownRow> temporal;  // one per unit
  std::vector<TypeTimeRow> type_time;          // per unit, largest first
  std::vector<KernelStatsRow> top_kernels;     // per unit and type, largest first, "others" last
  bool has_launch_flows = false;
  LaunchStatistics launches;
};

// HTA's communication-computation overlap (get_comm_comp_overlap) of one unit: its
// communication time |K| and the part of it during which computation ran |C ∩ K|, read from
// the type-set times (no second sweep).
struct CommunicationOverlap {
  int64_t communication_ns = 0;
  int64_t overlapped_ns = 0;
  // |C ∩ K| / |K|; 0 without communication.
  double ratio() const {
    return communication_ns > 0
               ? static_cast<double>(overlapped_ns) / static_cast<double>(communication_ns)
               : 0.0;
  }
};
CommunicationOverlap CommunicationOverlapOf(const KernelBreakdownResult& result, uint32_t process);

KernelBreakdownResult ComputeKernelBreakdown(const model::Model& model,
                                             const Activities& activities,
                                             const KernelBreakdownOptions& options = {});

}  // namespace aiprof::analysis
