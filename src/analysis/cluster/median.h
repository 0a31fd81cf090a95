// The median the cluster analysis judges ranks, stages, links and clocks against.
#pragma once

#include <algorithm>
#include <vector>

namespace aiprof::analysis::cluster {

// The middle value, or the mean of the two middle values; 0 for no values.
template <typename T>
double Median(std::vector<T> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? static_cast<double>(values[n / 2])
               : (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2;
}

}  // namespace aiprof::analysis::cluster
