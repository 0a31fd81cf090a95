// Offline symbolisation of the model's CPU samples and the aggregates every CPU sampling
// output reads (folded stacks, flame graph, pprof, summary, SQLite, timeline): one
// symbolisation per export, shared by all of them.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::analysis {

struct CpuProfile {
  std::vector<std::string> function_name;    // demangled, or "module+0xoffset"
  std::vector<std::string> function_module;  // file name of the mapping ("" if none)
  // Functions of model stack `row`, leaf first: stack_functions[stack_begin[row] ..
  // stack_begin[row + 1]). A sample taken in the kernel gets a "[kernel]" leaf.
  std::vector<uint32_t> stack_begin{0};
  std::vector<uint32_t> stack_functions;
  // Binaries that changed since collection (build-id differs) or could not be read.
  std::vector<std::string> warnings;

  std::span<const uint32_t> Stack(uint32_t row) const {
    return {stack_functions.data() + stack_begin[row], stack_begin[row + 1] - stack_begin[row]};
  }
};

CpuProfile SymbolizeCpuProfile(const model::Model& m);

// On-CPU samples (kCpuSampleOffCpu excluded) of one thread, or of every thread with
// model::kNoRow.
struct FunctionCost {
  uint32_t function;
  uint64_t self = 0;   // samples with the function as leaf
  uint64_t total = 0;  // samples with the function anywhere on the stack (once per sample)
};
struct ThreadCpuCost {
  uint32_t thread;  // ThreadTable row
  uint64_t samples = 0;
  std::vector<FunctionCost> functions;  // by self, descending
};
// Per thread (threads with samples, most samples first), then one entry with thread
// kNoRow for the whole profile.
std::vector<ThreadCpuCost> CpuCostByThread(const model::Model& m, const CpuProfile& profile);

// "root;...;leaf" → weight. On-CPU: sample counts. Off-CPU: µs spent blocked, from the
// thread states that have a blocking stack. `threads`, when not empty, has one entry per
// ThreadTable row and keeps the samples of the rows set to 1 (the UI's per-thread graphs);
// empty keeps every thread.
std::map<std::string, uint64_t> FoldedStacks(const model::Model& m, const CpuProfile& profile,
                                             bool off_cpu, std::span<const uint8_t> threads = {});

}  // namespace aiprof::analysis
