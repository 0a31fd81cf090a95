// Memory near capacity or fragmented, per memory pool of the memory analysis:
//   - near capacity: peak above 0.9 × the device's memory (TensorBoard's PyTorch profiler
//     plugin, rule 7, trace-analysis-and-ui.md §2.3): the capacity the memory analysis read
//     (a device's recorded memory, the host's MemTotal for the CPU pool), or for device
//     pools memory.capacity_bytes when given (it overrides the recorded one);
//   - fragmentation: the caching allocator reserves much more than is allocated at the
//     peak (reserved ≫ allocated, the two curves of the plugin's memory view, §2.7).
#include "analysis/advice/evidence.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double configured_capacity = thresholds.Get("memory.capacity_bytes");
  const double capacity_share = thresholds.Get("memory.capacity_share");
  const double reserved_ratio = thresholds.Get("memory.reserved_ratio");
  const double min_unused = thresholds.Get("memory.min_unused_bytes");
  EvidenceTable table{
      "Memory pools",
      {"pool", "peak allocated", "peak reserved", "reserved / allocated", "capacity", "finding"},
      {},
      {}};
  std::vector<std::string> problems, checked;
  bool any_pool = false, evaluable = false;
  double impact = 0;
  for (const ProfileInput& profile : input.profiles) {
    const std::string prefix = input.profiles.size() > 1 ? profile.label + " " : "";
    for (const MemoryPool& pool : profile.analyses->memory.pools) {
      any_pool = true;
      const bool device_pool = pool.device_index >= 0;
      // The configured capacity is a device's: it overrides the recorded one on device pools.
      const double pool_capacity = device_pool && configured_capacity > 0
                                       ? configured_capacity
                                       : static_cast<double>(pool.capacity);
      const std::string capacity_source =
          device_pool && configured_capacity > 0 ? "memory.capacity_bytes" : pool.capacity_source;
      const double allocated = static_cast<double>(pool.peak_allocated);
      const double reserved = static_cast<double>(pool.peak_reserved);
      std::string verdict;
      if (pool.peak_reserved > 0 && pool.peak_allocated > 0) {
        evaluable = true;
        const double ratio = reserved / allocated;
        if (ratio > reserved_ratio && reserved - allocated > min_unused) {
          verdict = "fragmented";
          problems.push_back(prefix + pool.name + " reserves " + Bytes(pool.peak_reserved) +
                             " for a peak of " + Bytes(pool.peak_allocated) + " allocated (" +
                             Fixed(ratio, 2) + "×, threshold " + Fixed(reserved_ratio, 2) + "×)");
          impact = std::max(impact, 1 - allocated / reserved);
        }
      }
      if (pool_capacity > 0) {
        evaluable = true;
        const double peak = std::max(allocated, reserved);
        if (peak > capacity_share * pool_capacity) {
          verdict += verdict.empty() ? "near capacity" : ", near capacity";
          problems.push_back(prefix + pool.name + " peaks at " + Bytes(static_cast<int64_t>(peak)) +
                             " of " + Bytes(static_cast<int64_t>(pool_capacity)) + " (" +
                             capacity_source + ", threshold " + Percent(capacity_share) + ")");
          impact = std::max(impact, peak / pool_capacity);
        }
      }
      checked.push_back(
          prefix + pool.name + " peak " + Bytes(pool.peak_allocated) +
          (pool_capacity > 0 ? " of " + Bytes(static_cast<int64_t>(pool_capacity)) : ""));
      table.rows.push_back(
          {prefix + pool.name, Bytes(pool.peak_allocated),
           pool.peak_reserved >= 0 ? Bytes(pool.peak_reserved) : "not recorded",
           pool.peak_reserved > 0 && pool.peak_allocated > 0 ? Fixed(reserved / allocated, 2) + "×"
                                                             : "",
           pool_capacity > 0
               ? Bytes(static_cast<int64_t>(pool_capacity)) + " (" + capacity_source + ")"
               : "not recorded",
           verdict.empty() ? "ok" : verdict});
    }
  }
  if (!any_pool) {
    finding->status = RuleStatus::kNotEvaluated;
    finding->detail =
        "not evaluated: no memory records (torch allocator events need profile_memory; CUDA "
        "allocations need the CUDA source)";
    return;
  }
  if (!evaluable) {
    finding->status = RuleStatus::kNotEvaluated;
    finding->detail =
        "not evaluated: no pool reports reserved memory and the capacity is unknown (the "
        "CUDA source records each device's memory; else give it as memory.capacity_bytes in "
        "--config)";
    return;
  }
  if (problems.empty()) {
    finding->status = RuleStatus::kPassed;
    std::string detail;
    for (const std::string& line : checked) detail += (detail.empty() ? "" : "; ") + line;
    finding->detail = detail;
    return;
  }
  finding->status = RuleStatus::kTriggered;
  finding->severity = impact >= capacity_share ? Severity::kHigh : Severity::kMedium;
  finding->impact = std::min(impact, 1.0);
  for (const std::string& line : problems) {
    finding->detail += (finding->detail.empty() ? "" : "; ") + line;
  }
  finding->evidence.push_back(std::move(table));
  finding->suggestion =
      "Near capacity: activation (gradient) checkpointing, mixed precision (AMP), a smaller "
      "micro-batch with gradient accumulation. Fragmented: set "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, allocate the largest buffers first, "
      "keep shapes stable.";
}

}  // namespace

const RuleDefinition& MemoryRule() {
  static const RuleDefinition rule{
      "memory",
      "Memory near capacity or fragmented",
      {"memory"},
      {{"memory.capacity_bytes", 0, "bytes",
        "device memory capacity overriding the recorded one (0: the recorded capacity, the "
        "CUDA device record's totalGlobalMem)",
        "the device's specification"},
       {"memory.capacity_share", 0.9, "share of capacity",
        "peak above which memory is near capacity",
        "TensorBoard PyTorch profiler plugin: peak > 0.9 × totalGlobalMem "
        "(trace-analysis-and-ui.md §2.3, 7)"},
       {"memory.reserved_ratio", 1.5, "reserved / allocated",
        "peak reserved over peak allocated above which the pool is fragmented", "aiprof's choice"},
       {"memory.min_unused_bytes", 268435456, "bytes",
        "reserved but unallocated bytes below which fragmentation is ignored",
        "aiprof's choice (256 MiB)"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
