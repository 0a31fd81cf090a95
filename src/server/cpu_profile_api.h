// /api/cpu_profile and /api/cpu_threads: the CPU view (cpu_profile_api.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cpu_profile/cpu_profile.h"
#include "model/model.h"
#include "server/computed_once.h"

namespace aiprof::server {

class CpuProfileApi {
 public:
  explicit CpuProfileApi(const model::Model& model) : model_(model) {}

  struct ThreadFilter {
    std::vector<uint32_t> threads;    // ThreadTable rows
    std::vector<uint32_t> processes;  // ProcessTable rows: all their threads
    bool empty() const { return threads.empty() && processes.empty(); }
  };
  // The on-CPU (samples) or off-CPU (µs blocked) flame graph as a flat pruned tree, or what
  // is missing, of the threads `filter` selects. The samples are symbolised once, on first
  // use; the graphs of every thread are kept, those of a selection built per request. Rows
  // that are not in the model are refused (400).
  std::string FlameGraph(bool off_cpu, const ThreadFilter& filter = {}) const;
  // The threads that have on-CPU samples or blocking stacks, with their weight in each
  // graph, most on-CPU samples first. Computed once.
  const std::string& Threads() const;

 private:
  struct Symbolised {
    analysis::CpuProfile profile;  // for selections
    std::string every_thread[2];   // on-CPU, off-CPU graphs of every thread
  };
  const model::Model& model_;
  ComputedOnce<Symbolised> symbolised_;
  ComputedOnce<std::string> threads_;
};

}  // namespace aiprof::server
