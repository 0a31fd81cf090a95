// How the overlap analysis appears in the timelines (msprof/torch_npu "Overlap Analysis"):
// one process per overlap scope named "Overlap Analysis", labelled with the device or host
// process it describes, holding four threads whose tids are msprof's lane enum
// (Computing 0, Communication 1, Communication(Not Overlapped) 2, Free 3).
#pragma once

#include <cstdint>
#include <string>

#include "analysis/overlap.h"
#include "model/model.h"

namespace aiprof::exporter {

inline constexpr const char* kOverlapProcessName = "Overlap Analysis";
inline constexpr const char* kOverlapCategory = "overlap_analysis";

// Above any OS pid (pid_max ≤ 2^22) and any device id, so it never collides with either.
inline uint32_t OverlapAnalysisPid(uint32_t scope) {
  return (1u << 30) + scope;
}

// After every real process in the timeline's process order.
inline int64_t OverlapAnalysisSortIndex(uint32_t scope) {
  return (int64_t{1} << 40) + scope;
}

// "GPU 0", "GPU 0 rank 1", "pid 4242", "pid 4242 rank 1".
inline std::string OverlapAnalysisLabel(const model::Model& m,
                                        const analysis::OverlapScope& scope) {
  std::string label = scope.device_id >= 0
                          ? "GPU " + std::to_string(scope.device_id)
                          : "pid " + std::to_string(m.processes.pid[scope.process]);
  if (scope.rank >= 0) label += " rank " + std::to_string(scope.rank);
  return label;
}

}  // namespace aiprof::exporter
