// Joins per-file fragments into one model: remaps string ids, unifies processes and threads
// seen in several files, applies one realtime offset per host (mean of every ClockSync
// sample of that host, so processes line up exactly), and pairs flow endpoints by
// (category, key) across files.
#pragma once

#include <vector>

#include "model/file_parser.h"

namespace aiprof::model {

Model MergeFragments(std::vector<Fragment> fragments);

}  // namespace aiprof::model
