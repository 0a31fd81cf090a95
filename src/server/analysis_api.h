// The analysis part of the UI's API (/api/analysis, /api/memory, /api/dataprep,
// /api/overlap): answers built from the one AnalysisSet (analysis/analysis_set.h), computed
// once on first use, so the UI shows the numbers `aiprof analyze` and the exporters write.
// The other views that read the set (communication, advice, compare) get it from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis_set.h"
#include "model/model.h"
#include "server/api_types.h"
#include "server/computed_once.h"

namespace aiprof::server {

class AnalysisApi {
 public:
  // `role_labels`: per ProcessTable row, how the process is named (model/process_roles.h).
  AnalysisApi(const model::Model& model, int64_t origin_ns,
              const std::vector<std::string>& role_labels)
      : model_(model), origin_ns_(origin_ns), role_labels_(role_labels) {}

  const analysis::AnalysisSet& Analyses() const;
  // What the run had, the scopes, the step breakdown (analysis::kStepTraceTimeColumns'
  // UI columns) and msprof's step trace; `critical_path_steps`: how many steps the critical
  // path has (critical_path_api.h, which reads this set), so that the timeline shows its lane.
  std::string Summary(size_t critical_path_steps) const;
  // Memory curves (downsampled to `pixels`), peaks and top operators.
  std::string Memory(int64_t pixels) const;
  std::string DataPreparation() const;
  // The Overlap Analysis lanes over a window, merged to pixels.
  std::string Overlap(const TimeWindow& window) const;

 private:
  const model::Model& model_;
  int64_t origin_ns_;
  const std::vector<std::string>& role_labels_;
  ComputedOnce<analysis::AnalysisSet> analyses_;
};

}  // namespace aiprof::server
