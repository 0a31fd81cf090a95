// /api/critical_path, /api/critical_path/segments, /api/critical_path/lane, /api/what_if: the
// Critical path view over the run's critical path (analysis/critical_path/critical_path.h),
// computed once on first use from the one AnalysisSet (critical_path_api.cc). It is not part
// of that set: `aiprof export` computes it only when asked (AnalysisOptions::critical_path).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "analysis/critical_path/critical_path.h"
#include "model/model.h"
#include "server/analysis_api.h"
#include "server/computed_once.h"

namespace aiprof::server {

class CriticalPathApi {
 public:
  CriticalPathApi(const model::Model& model, const AnalysisApi& analyses, int64_t origin_ns)
      : model_(model), analyses_(analyses), origin_ns_(origin_ns) {}

  struct WhatIfQuery {
    bool data_loading_free = false;
    bool communication_overlapped = false;
    bool rank_at_median = false;
    std::string operator_name;  // with operator_speedup > 0: that operator or kernel faster
    double operator_speedup = 0;
    std::array<double, analysis::kPathCategoryCount> category_speedup{};  // share removed
  };

  const analysis::CriticalPathResult& Result() const;
  // Per step the path's attribution, critical rank and thread and the standard projections.
  std::string Summary() const;
  // One step's path piece by piece (its index in Summary's list; 400 when there is none).
  std::string Segments(size_t step_index) const;
  // The path as a timeline lane over a window, pieces merged to pixels.
  std::string Lane(const TimeWindow& window) const;
  // A what-if combination re-solved on every step's graph.
  std::string WhatIf(const WhatIfQuery& query) const;

 private:
  const model::Model& model_;
  const AnalysisApi& analyses_;
  int64_t origin_ns_;
  ComputedOnce<analysis::CriticalPathResult> result_;
};

}  // namespace aiprof::server
