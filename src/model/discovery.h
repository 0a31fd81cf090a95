// The inputs of every command that reads profiles (analyze, advise, export, ui, compare,
// query, cluster): what a user points it at, turned into runs. A run is one profiled
// process window: a PROF_* directory of aiprof raw data, or one imported trace file (a
// Kineto / torch.profiler JSON trace, model/file_importer.h). Given a folder, every run
// below it is found (up to kMaxDepth levels): the --output of `aiprof`, a
// tensorboard_trace_handler folder (its *_aiprof_pt folders, one per worker and window, and
// its *.pt.trace.json files), a folder of such folders (one per rank or node), torch_npu's
// *_ascend_pt folders; exported outputs (aiprof_output, cluster_analysis_output, ...) are
// not searched. A Kineto trace that aiprof wrote from raw data found in the same search is
// the same data twice and is left out (said in the notes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::model {

enum class RunKind { kRaw, kTrace };

struct RunInput {
  RunKind kind = RunKind::kRaw;
  std::string path;                // the PROF_* directory, or the trace file
  std::vector<std::string> files;  // what ParseFiles reads: raw data files, or the trace
  // Where this run's outputs go: <PROF_*>/aiprof_output, or
  // <trace's folder>/aiprof_output/<trace name without .json[.gz]> for a trace.
  std::string output_dir;
  // Who recorded it, read cheaply (info.json, the trace's first bytes); for grouping only.
  std::string host;
  int64_t pid = -1;    // -1: unknown
  int32_t rank = -1;   // -1: unknown
  std::string worker;  // the process's name in a tensorboard_trace_handler folder
  std::string job;     // model::RankIdentity::job
  // "PROF_000001_..." or the trace's file name: how reports name the run.
  std::string Label() const;
};

struct InputDiscovery {
  std::vector<RunInput> runs;      // sorted by path
  std::vector<std::string> notes;  // what was left out or found several times, said once
  std::string error;               // set when no run was found: what, where, what to do
};

inline constexpr int kMaxDiscoveryDepth = 4;

// `paths`: PROF_* directories, trace files, or folders holding them, in any mix.
InputDiscovery DiscoverRuns(const std::vector<std::string>& paths);

// The runs of one process (same host and pid, or same tensorboard worker name) when there
// are several: each is analysed on its own. Groups of one run are not listed.
std::vector<std::vector<size_t>> RunsOfOneProcess(const std::vector<RunInput>& runs);

}  // namespace aiprof::model
