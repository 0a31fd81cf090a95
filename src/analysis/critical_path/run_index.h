// What the critical path reads from the model once per run, before any step's graph is
// built (graph_builder.h): each track's slices ordered by start (a step's window is two binary
// searches away), what each slice is (compute as the overlap analysis counts it, a wait, a
// sync call, a communication operation, a dispatcher op issuing one), what each thread is
// (a step's thread, a loader, a communication worker, a stream), the flows into each slice,
// which processes are a process's DataLoader workers and which devices it launches on, and
// the communication operations matched across ranks (communication_analysis.h's matching).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/critical_path/path_graph.h"
#include "model/model.h"

namespace aiprof::analysis {

struct AnalysisSet;

enum SliceRole : uint8_t {
  kRoleCompute = 1u << 0,     // counts as compute (overlap.h's classification)
  kRoleInputWait = 1u << 1,   // named like an input wait (input_wait.h)
  kRoleSync = 1u << 2,        // a host call that blocks until the device is done
  kRoleComm = 1u << 3,        // a communication operation (model/communication.h)
  kRoleStep = 1u << 4,        // a step's own range (model/steps.h)
  kRoleIssue = 1u << 5,       // a c10d dispatcher op, which issues backend work
  kRoleSkip = 1u << 6,        // not work of its track: CUDA sync records on a stream
  kRoleDeviceTask = 1u << 7,  // a kernel, copy or set on a stream
};

class RunIndex {
 public:
  RunIndex(const model::Model& model, const AnalysisSet& set);

  const model::Model& model() const { return model_; }
  uint8_t role(uint32_t slice) const { return slice_role_[slice]; }
  ChainKind thread_kind(uint32_t thread) const { return thread_kind_[thread]; }
  // The track's slices that overlap [begin, end) in (start, longest first) order: those open
  // at `begin`, outermost first, then those starting inside.
  void WindowSlices(uint32_t track, int64_t begin, int64_t end, std::vector<uint32_t>* out) const;
  // The flows (FlowTable rows) whose target starts in [begin, end), by target start.
  std::pair<const uint32_t*, const uint32_t*> FlowsInto(int64_t begin, int64_t end) const;
  const std::vector<uint32_t>& tracks_of_thread(uint32_t thread) const {
    return thread_tracks_[thread];
  }
  const std::vector<uint32_t>& threads_of_process(uint32_t process) const {
    return process_threads_[process];
  }
  const std::vector<uint32_t>& loader_processes(uint32_t process) const {
    return loaders_[process];
  }
  const std::vector<uint32_t>& device_processes(uint32_t process) const {
    return devices_[process];
  }
  // The communication analysis row of a kRoleComm slice (model::kNoRow: none), and the
  // matched operation (MatchPeerOperations' group) that row belongs to (kNoRow: no peer).
  uint32_t CommTimingOf(uint32_t slice) const;
  uint32_t MatchOf(uint32_t timing) const {
    return timing < match_.size() ? match_[timing] : model::kNoRow;
  }
  // A synchronising host call's recorded sync kind (CUPTI: 1 event, 2 stream wait event,
  // 3 stream, 4 context) and the stream track it names; {0, kNoRow} when not recorded.
  std::pair<uint32_t, uint32_t> SyncTargetOf(uint32_t call) const;

 private:
  void IndexTracks();
  void ClassifySlices(const AnalysisSet& set);
  void ClassifyThreads(const AnalysisSet& set);
  void IndexFlows();
  void FindProcessLinks(const AnalysisSet& set);

  const model::Model& model_;
  std::vector<uint8_t> slice_role_;
  std::vector<ChainKind> thread_kind_;
  std::vector<uint32_t> track_first_, track_rows_;  // per track, by start (longest first)
  std::vector<std::vector<uint32_t>> thread_tracks_, process_threads_;
  std::vector<uint32_t> flows_;  // FlowTable rows between two slices, by the target's start
  std::vector<std::vector<uint32_t>> loaders_, devices_;
  std::vector<std::pair<uint32_t, uint32_t>> comm_of_slice_;  // (slice, timing), by slice
  std::vector<uint32_t> match_;                               // per timing
  // (host call, (sync kind, stream track)), by call
  std::vector<std::pair<uint32_t, std::pair<uint32_t, uint32_t>>> sync_targets_;
};

}  // namespace aiprof::analysis
