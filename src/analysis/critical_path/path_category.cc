#include "analysis/critical_path/path_category.h"

namespace aiprof::analysis {

std::string_view PathCategoryName(PathCategory category) {
  switch (category) {
    case PathCategory::kCompute:
      return "compute";
    case PathCategory::kCommTransit:
      return "communication transit";
    case PathCategory::kCommWait:
      return "communication wait";
    case PathCategory::kHostOverhead:
      return "host overhead";
    case PathCategory::kSync:
      return "synchronisation";
    case PathCategory::kDataLoading:
      return "data loading";
    case PathCategory::kIdle:
      break;
  }
  return "idle";
}

std::string_view PathCategoryKey(PathCategory category) {
  switch (category) {
    case PathCategory::kCompute:
      return "compute";
    case PathCategory::kCommTransit:
      return "comm_transit";
    case PathCategory::kCommWait:
      return "comm_wait";
    case PathCategory::kHostOverhead:
      return "host_overhead";
    case PathCategory::kSync:
      return "sync";
    case PathCategory::kDataLoading:
      return "data_loading";
    case PathCategory::kIdle:
      break;
  }
  return "idle";
}

PathCategory CategoryTimes::Largest() const {
  size_t best = 0;
  for (size_t i = 1; i < ns.size(); ++i) {
    if (ns[i] > ns[best]) best = i;
  }
  return static_cast<PathCategory>(best);
}

}  // namespace aiprof::analysis
