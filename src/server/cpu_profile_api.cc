// /api/cpu_profile: the CPU view's flame graphs, from the same symbolisation and folded stacks
// `aiprof export` writes to cpu_stacks.folded (on-CPU, in samples) and offcpu_stacks.folded
// (off-CPU, in µs blocked), as a flat pruned tree (server/flame_tree.h), or what is missing
// when the run has no CPU sampling data.
#include "analysis/cpu_profile/cpu_profile.h"
#include "server/flame_tree.h"
#include "server/json_text.h"
#include "server/ui_api.h"

namespace aiprof::server {
namespace {

// Nodes under 0.05% of the total are dropped: below a pixel on any screen, and at most 2,000
// frames per stack depth are left however many samples (bench_flame_tree: a 10 M-sample
// profile of 477,760 nodes answers 1,729).
constexpr double kMinShare = 0.0005;

std::string MissingText(const model::Model& m, bool off_cpu, uint64_t total) {
  if (total > 0) return "";
  if (m.cpu.samples.size() == 0 && m.cpu.thread_states.size() == 0) {
    return "No CPU sampling data in this run: record with `aiprof --sys-cpu-profiling=on "
           "<command>` (on-CPU stacks, and the stacks threads blocked in).";
  }
  if (off_cpu) {
    return "No blocking stacks in this run: the off-CPU flame graph needs "
           "`--sys-cpu-off-cpu-stacks=all` (the default) or `<Hz>` with "
           "`--sys-cpu-profiling=on`, and threads that blocked.";
  }
  return "No on-CPU samples in this run: record with `aiprof --sys-cpu-profiling=on <command>`.";
}

std::string FlameJson(const model::Model& m, const analysis::CpuProfile& profile, bool off_cpu) {
  const FlameTree tree = BuildFlameTree(analysis::FoldedStacks(m, profile, off_cpu), kMinShare);
  std::string out = "{\"kind\":";
  out += off_cpu ? "\"off\",\"unit\":\"us\"" : "\"on\",\"unit\":\"samples\"";
  out += ",\"missing\":";
  const std::string missing = MissingText(m, off_cpu, tree.total());
  if (missing.empty()) {
    out += "null";
  } else {
    AppendJsonString(out, missing);
  }
  out += ",\"total\":" + std::to_string(tree.total()) + ",\"min_share\":";
  AppendJsonNumber(out, kMinShare);
  out += ",\"pruned_nodes\":" + std::to_string(tree.pruned_nodes) +
         ",\"pruned_value\":" + std::to_string(tree.pruned_value) + ",\"names\":[";
  for (size_t i = 0; i < tree.names.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, tree.names[i]);
  }
  // Nodes as flat triples [name, parent, value, ...], depth-first: a parent before its
  // children. The root's parent is -1.
  out += "],\"nodes\":[";
  for (size_t i = 0; i < tree.name.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(tree.name[i]) + ',' +
           (tree.parent[i] == UINT32_MAX ? std::string("-1") : std::to_string(tree.parent[i])) +
           ',' + std::to_string(tree.value[i]);
  }
  out += "],\"warnings\":[";
  for (size_t i = 0; i < profile.warnings.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, profile.warnings[i]);
  }
  out += "]}";
  return out;
}

}  // namespace

const std::string& UiApi::CpuFlameGraph(bool off_cpu) const {
  // One symbolisation for both graphs, on first use: it reads every sampled binary.
  std::call_once(cpu_profile_once_, [this] {
    const analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(model_);
    cpu_flame_json_[0] = FlameJson(model_, profile, false);
    cpu_flame_json_[1] = FlameJson(model_, profile, true);
  });
  return cpu_flame_json_[off_cpu ? 1 : 0];
}

}  // namespace aiprof::server
