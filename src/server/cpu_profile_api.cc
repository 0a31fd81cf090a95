// /api/cpu_profile: the CPU view's flame graphs, from the same symbolisation and folded stacks
// `aiprof export` writes to cpu_stacks.folded (on-CPU, in samples) and offcpu_stacks.folded
// (off-CPU, in µs blocked), as a flat pruned tree (server/flame_tree.h), or what is missing
// when the run has no CPU sampling data; and the threads those graphs can be narrowed to.
#include "server/cpu_profile_api.h"

#include <algorithm>

#include "analysis/cpu_profile/cpu_profile.h"
#include "format/records_cpu.h"
#include "server/api_types.h"
#include "server/flame_tree.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

// Nodes under 0.05% of the total are dropped: below a pixel on any screen, and at most 2,000
// frames per stack depth are left however many samples (bench_flame_tree: a 10 M-sample
// profile of 477,760 nodes answers 1,729).
constexpr double kMinShare = 0.0005;

std::string MissingText(const model::Model& m, bool off_cpu, uint64_t total, bool selection) {
  if (total > 0) return "";
  if (selection) {
    return off_cpu ? "The selected threads never blocked with a stack recorded."
                   : "The selected threads have no on-CPU samples.";
  }
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

// `threads`: per ThreadTable row, 1 to keep its samples; empty for every thread.
std::string FlameJson(const model::Model& m, const analysis::CpuProfile& profile, bool off_cpu,
                      std::span<const uint8_t> threads) {
  const FlameTree tree =
      BuildFlameTree(analysis::FoldedStacks(m, profile, off_cpu, threads), kMinShare);
  std::string out = "{\"kind\":";
  out += off_cpu ? "\"off\",\"unit\":\"us\"" : "\"on\",\"unit\":\"samples\"";
  out += ",\"missing\":";
  const std::string missing = MissingText(m, off_cpu, tree.total(), !threads.empty());
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

// The filter as one flag per ThreadTable row; rows the model does not have are refused.
std::vector<uint8_t> SelectedThreads(const model::Model& m,
                                     const CpuProfileApi::ThreadFilter& filter) {
  std::vector<uint8_t> selected(m.threads.size(), 0);
  for (uint32_t t : filter.threads) {
    if (t >= m.threads.size()) {
      throw ApiError(400, "parameter thread: row " + std::to_string(t) +
                              " is not a thread of this run (" + std::to_string(m.threads.size()) +
                              " threads; /api/cpu_threads lists them)");
    }
    selected[t] = 1;
  }
  std::vector<uint8_t> process_selected(m.processes.size(), 0);
  for (uint32_t p : filter.processes) {
    if (p >= m.processes.size()) {
      throw ApiError(400, "parameter process: row " + std::to_string(p) +
                              " is not a process of this run (" +
                              std::to_string(m.processes.size()) + " processes)");
    }
    process_selected[p] = 1;
  }
  for (size_t t = 0; t < m.threads.size(); ++t) {
    if (process_selected[m.threads.process[t]]) selected[t] = 1;
  }
  return selected;
}

// Each thread's weight in either graph, counted as FoldedStacks counts it, so that a thread's
// numbers are its graph's root.
std::string ThreadsJson(const model::Model& m) {
  std::vector<uint64_t> on(m.threads.size(), 0), off_us(m.threads.size(), 0);
  for (size_t i = 0; i < m.cpu.samples.size(); ++i) {
    if (!(m.cpu.samples.flags[i] & format::kCpuSampleOffCpu)) on[m.cpu.samples.thread[i]]++;
  }
  const model::ThreadStateTable& s = m.cpu.thread_states;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.stack[i] != UINT32_MAX)
      off_us[s.thread[i]] += static_cast<uint64_t>(s.end[i] - s.ts[i]) / 1000;
  }
  std::vector<uint32_t> rows;
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    if (on[t] > 0 || off_us[t] > 0) rows.push_back(t);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return on[a] != on[b] ? on[a] > on[b] : off_us[a] > off_us[b];
  });
  std::string out = "{\"threads\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t t = rows[i];
    const uint32_t p = m.threads.process[t];
    if (i > 0) out += ',';
    out += "{\"thread\":" + std::to_string(t) + ",\"tid\":" + std::to_string(m.threads.tid[t]) +
           ",\"name\":";
    AppendJsonString(out, m.Str(m.threads.name[t]));
    out += ",\"process\":" + std::to_string(p) + ",\"pid\":" + std::to_string(m.processes.pid[p]) +
           ",\"process_name\":";
    AppendJsonString(out, m.Str(m.processes.name[p]));
    out += ",\"on_samples\":" + std::to_string(on[t]) + ",\"off_us\":" + std::to_string(off_us[t]) +
           '}';
  }
  out += "]}";
  return out;
}

}  // namespace

std::string CpuProfileApi::FlameGraph(bool off_cpu, const ThreadFilter& filter) const {
  // Checked first: a bad row is refused without waiting for the symbolisation.
  const std::vector<uint8_t> selected =
      filter.empty() ? std::vector<uint8_t>() : SelectedThreads(model_, filter);
  // One symbolisation for every graph, on first use: it reads every sampled binary.
  const Symbolised& symbolised = symbolised_.Get([this] {
    Symbolised s;
    s.profile = analysis::SymbolizeCpuProfile(model_);
    s.every_thread[0] = FlameJson(model_, s.profile, false, {});
    s.every_thread[1] = FlameJson(model_, s.profile, true, {});
    return s;
  });
  if (filter.empty()) return symbolised.every_thread[off_cpu ? 1 : 0];
  return FlameJson(model_, symbolised.profile, off_cpu, selected);
}

const std::string& CpuProfileApi::Threads() const {
  return threads_.Get([this] { return ThreadsJson(model_); });
}

}  // namespace aiprof::server
