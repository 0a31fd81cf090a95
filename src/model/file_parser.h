// Parses one raw data file into its own model fragment (its own string pool, tables in
// CLOCK_MONOTONIC_RAW ns). Fragments are built in parallel and merged afterwards.
#pragma once

#include <string>
#include <vector>

#include "model/clock.h"
#include "model/importer.h"
#include "model/model.h"

namespace aiprof::model {

struct Fragment {
  Model model;
  std::vector<ImportContext::FlowEndpoint> flow_endpoints;
  std::string hostname;
  ClockFit clock;
  bool opened = false;
  // Times are realtime (epoch) ns already, as an imported trace's are: no clock fit, no
  // host offset (merge.h).
  bool realtime = false;
};

// Never fails as a whole: problems go to fragment.model.files[0] (report and error).
Fragment ParseRawFile(const std::string& path);

}  // namespace aiprof::model
