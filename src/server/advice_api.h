// /api/advice: the advice rules (analysis/advice) over the run's AnalysisSet, answered with
// advice.json's text, the same as `aiprof export` writes (advice_api.cc). Computed once.
#pragma once

#include <string>
#include <vector>

#include "server/analysis_api.h"

namespace aiprof::server {

class AdviceApi {
 public:
  AdviceApi(const model::Model& model, const AnalysisApi& analyses,
            const std::vector<std::string>& prof_dirs)
      : model_(model), analyses_(analyses), prof_dirs_(prof_dirs) {}
  const std::string& Answer() const;

 private:
  const model::Model& model_;
  const AnalysisApi& analyses_;
  const std::vector<std::string>& prof_dirs_;
  ComputedOnce<std::string> json_;
};

}  // namespace aiprof::server
