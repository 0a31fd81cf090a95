// /api/compare: `aiprof ui NEW --compare BASE`, the base run compared with this one by
// analysis::CompareRuns (compare_api.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/analysis_api.h"

namespace aiprof::server {

class CompareApi {
 public:
  CompareApi(const model::Model& model, const AnalysisApi& analyses,
             const std::vector<std::string>& prof_dirs)
      : model_(model), analyses_(analyses), prof_dirs_(prof_dirs) {}
  // The base run's model. Call before serving.
  void SetBase(model::Model base, std::vector<std::string> base_dirs);
  // The comparison (base → this run, top regressions first), or what is missing. Computed
  // once; the base model is released afterwards.
  const std::string& Answer() const;

 private:
  const model::Model& model_;
  const AnalysisApi& analyses_;
  const std::vector<std::string>& prof_dirs_;
  mutable std::unique_ptr<model::Model> base_model_;
  std::vector<std::string> base_dirs_;
  ComputedOnce<std::string> json_;
};

}  // namespace aiprof::server
