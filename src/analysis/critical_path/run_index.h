// What the critical path reads from the model once per run, before any step's graph is
// built (graph_builder.h): each track's slices ordered by start (a step's window is two binary
// searches away), what each slice is (compute as the overlap analysis counts it, a wait, a
// sync call, a communication operation, a dispatcher op issuing one), what each thread is
// (a step's thread, a loader, a communication worker, a stream), the flows into each slice,
// which processes are a process's DataLoader workers and which devices it launches on, the
// communication operations matched across ranks (communication_analysis.h's matching), and
// the CUDA event waits with the event records they wait for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/critical_path/path_graph.h"
#include "analysis/critical_path/track_order.h"
#include "analysis/packed_codes.h"
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

// A CUDA sync record that waits on an event: a stream's cudaStreamWaitEvent (kind 2) or the
// host's cudaEventSynchronize (kind 1), with the stream the event was recorded on and the
// correlation id of that cudaEventRecord call (Kineto's `wait_on_stream`,
// `wait_on_cuda_event_record_corr_id`).
struct EventWait {
  uint32_t sync_slice = model::kNoRow;
  uint32_t thread = model::kNoRow;  // the sync record's thread (the waiting stream)
  int64_t ts = 0;                   // when the wait was enqueued (the call's time)
  uint32_t kind = 0;
  int64_t record_stream = -1;
  int64_t record_correlation = -1;
};

// A host call's synchronisation as its CUDA sync record says: the kind (CUPTI: 1 event,
// 2 stream wait event, 3 stream, 4 context), the stream track it names, the record itself.
struct SyncTarget {
  uint32_t kind = 0;
  uint32_t track = model::kNoRow;
  uint32_t sync_slice = model::kNoRow;
};

class RunIndex {
 public:
  RunIndex(const model::Model& model, const AnalysisSet& set);

  const model::Model& model() const { return model_; }
  // The slice's SliceRole bits: its name's and category's, unless it is a step's range (that
  // alone), with compute and communication from its code (2 bits a slice, not a byte: the
  // index lives as long as the UI server).
  uint8_t role(uint32_t slice) const {
    const uint8_t code = slice_code_.Get(slice);
    if (code == kCodeStep) {
      return std::binary_search(step_comm_.begin(), step_comm_.end(), slice)
                 ? uint8_t{kRoleStep | kRoleComm}
                 : uint8_t{kRoleStep};
    }
    const model::SliceTable& s = model_.slices;
    return name_role_[s.name[slice]] | category_role_[s.category[slice]] |
           (code == kCodeCompute ? kRoleCompute : 0) | (code == kCodeComm ? kRoleComm : 0);
  }
  // (role(slice) & kRoleSkip) != 0: its category's, unless it is a step's range.
  bool skipped(uint32_t slice) const {
    return (category_role_[model_.slices.category[slice]] & kRoleSkip) != 0 &&
           slice_code_.Get(slice) != kCodeStep;
  }
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
  // A synchronising host call's CUDA sync record; kind 0 when not recorded.
  SyncTarget SyncTargetOf(uint32_t call) const;
  // The event waits recorded on `thread` that start in [begin, end), by start.
  std::pair<const EventWait*, const EventWait*> EventWaitsOn(uint32_t thread, int64_t begin,
                                                             int64_t end) const;
  // The event wait of a CUDA sync record; null when it waits on no recorded event.
  const EventWait* EventWaitOf(uint32_t sync_slice) const;
  // The cudaEventRecord (cuEventRecord) call of `process` with this CUDA correlation id;
  // kNoRow when the call was not recorded.
  uint32_t EventRecordCall(uint32_t process, int64_t correlation) const;

 private:
  void IndexTracks();
  void ClassifySlices(const AnalysisSet& set);
  void ClassifyThreads(const AnalysisSet& set);
  void IndexFlows();
  void FindProcessLinks(const AnalysisSet& set);
  void IndexEventWaits();

  // A slice's code: none of these, compute, a step's range, a communication operation (the
  // three exclude one another but for a step's range that is also an operation: step_comm_).
  static constexpr uint8_t kCodeNone = 0, kCodeCompute = 1, kCodeStep = 2, kCodeComm = 3;

  const model::Model& model_;
  PackedCodes slice_code_;
  std::vector<uint32_t> step_comm_;                 // sorted
  std::vector<uint8_t> name_role_, category_role_;  // per StringId
  std::vector<ChainKind> thread_kind_;
  TrackOrder track_order_;  // each track's slices by start (longest first)
  std::vector<std::vector<uint32_t>> thread_tracks_, process_threads_;
  std::vector<uint32_t> flows_;  // FlowTable rows between two slices, by the target's start
  std::vector<std::vector<uint32_t>> loaders_, devices_;
  std::vector<std::pair<uint32_t, uint32_t>> comm_of_slice_;   // (slice, timing), by slice
  std::vector<uint32_t> match_;                                // per timing
  std::vector<std::pair<uint32_t, SyncTarget>> sync_targets_;  // by host call
  std::vector<EventWait> event_waits_;                         // by (thread, ts)
  // ((process, correlation), cudaEventRecord call), by key
  std::vector<std::pair<std::pair<uint32_t, int64_t>, uint32_t>> event_records_;
};

}  // namespace aiprof::analysis
