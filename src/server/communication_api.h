// /api/communication: the Communication view's data from the AnalysisSet's communication
// analysis (communication_api.cc).
#pragma once

#include <cstdint>
#include <string>

#include "server/analysis_api.h"

namespace aiprof::server {

class CommunicationApi {
 public:
  CommunicationApi(const AnalysisApi& analyses, int64_t origin_ns)
      : analyses_(analyses), origin_ns_(origin_ns) {}
  // Every operation's time split, the wait per rank × step, the p2p matrix, and what is
  // missing (no operations, one rank).
  std::string Answer() const;

 private:
  const AnalysisApi& analyses_;
  int64_t origin_ns_;
};

}  // namespace aiprof::server
