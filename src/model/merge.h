// Joins per-file fragments into one model: remaps string ids, unifies processes and threads
// seen in several files, applies one realtime offset per host (mean of every ClockSync
// sample of that host, so processes line up exactly; imported traces, already in realtime,
// keep their times), pairs flow endpoints by (category, key) across files, and keeps the
// flows a fragment paired itself.
#pragma once

#include <vector>

#include "model/file_parser.h"

namespace aiprof::model {

Model MergeFragments(std::vector<Fragment> fragments);

}  // namespace aiprof::model
