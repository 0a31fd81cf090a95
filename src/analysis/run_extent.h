// The run's extent as the user sees it: from its first to its last event (slices, instants,
// counter samples), falling back to the collection window when there are none. The window's
// start can be far from the data (a window opened long before the first record), so it is
// not what the run "took". The UI's time axis and Duration, and the shares of the run's wall
// time in its tables, read this one extent.
#pragma once

#include <cstdint>

#include "model/model.h"

namespace aiprof::analysis {

struct RunExtent {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t duration_ns() const { return end_ns - begin_ns; }
};

RunExtent ComputeRunExtent(const model::Model& model);

}  // namespace aiprof::analysis
