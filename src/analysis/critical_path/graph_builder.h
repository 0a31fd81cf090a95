// Builds the dependency graph (path_graph.h) of one step: of one process's step, or of every
// rank's step of one job step. Per member (a rank's step) its chains are: each track of
// the thread that runs the step (with nodes at the step's begin and end), the other
// threads of its process, the threads of its DataLoader worker processes, and the streams
// of the devices it launches on; all clipped to the window from the earliest member's
// begin to the latest member's end. Then the cross edges (path_graph.h's EdgeKind):
//   launch      a runtime call's start → the start of the device task it launched
//   sync        the last task enqueued (launched) on a stream before a sync call began →
//               the call's end; every stream of the member's devices unless the CUDA sync
//               record names one stream (a stream sync) or an event (an event sync: the
//               last task enqueued on the event's stream before its cudaEventRecord call)
//   event wait  a stream's cudaStreamWaitEvent: the last task enqueued on the event's
//               stream before the cudaEventRecord call → the start of the first task
//               enqueued on the waiting stream after the wait (run_index.h's EventWait)
//   enqueue     a c10d dispatcher op's start → the start of the backend work it issued on a
//               communication thread (the member's last such op that began before the work)
//   resume      that work's end → the issuing thread's next event, when the thread
//               recorded nothing from the issue (or the work's start) until after the work
//               ended (it was blocked in Work::wait(), which records nothing)
//   hand-off    the last work any loader of the member finished during an input wait →
//               the wait's end (the batch it waited for)
//   arrival /   each rank's start of one matched collective or send/recv → a virtual
//   collective  all-arrived node → each rank's end of it: the last arrival gates all
//   flow        any other recorded flow between two chains (source's end, or its start
//               when the target began before the source ended)
// An edge the recording contradicts (its source after its target: clocks of two hosts or
// processes disagreeing) is dropped and counted.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path/path_graph.h"
#include "analysis/critical_path/run_index.h"

namespace aiprof::analysis {

struct GraphMemberSpec {
  uint32_t step_id = model::kNoRow;
  int32_t rank = -1;
  uint32_t process = model::kNoRow;
  uint32_t thread = model::kNoRow;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(const RunIndex& index);

  // Replaces `graph` with the graph of the step the members take part in.
  void Build(const std::vector<GraphMemberSpec>& members, PathGraph* graph);

 private:
  struct DeviceTask {
    int64_t launch_ns;
    uint32_t owner;  // PathOwner
  };
  struct ChainScratch {
    std::vector<DeviceTask> tasks;  // a stream's tasks in order
  };

  void AddMemberChains(uint32_t member, const GraphMemberSpec& spec,
                       std::vector<uint8_t>* device_taken);
  void AddChain(uint32_t track, ChainKind kind, uint32_t member, int64_t cut_begin,
                int64_t cut_end);
  uint32_t AddNode(int64_t time, uint32_t owner, uint32_t chain);
  uint32_t PushOwner(uint32_t slice, uint32_t parent, ChainKind kind);
  // Indexes the graph's owners by slice, for OwnerOf (only a graph with flows looks them up).
  void IndexOwners();
  size_t OwnerSlot(uint32_t slice) const;
  uint32_t OwnerOf(uint32_t slice) const;
  uint32_t NodeAtOrAfter(const PathChain& chain, int64_t time) const;

  void AddEdge(uint32_t from, uint32_t to, EdgeKind kind, PathCategory category);
  void AddLaunchAndFlowEdges();
  void AddSyncEdges();
  void AddEventWaitEdges();
  // The owner of the task an event waits for: the last one enqueued on the event's stream
  // (of `device`'s streams in the graph) before the event's cudaEventRecord call of `process`.
  uint32_t EventSourceTask(const EventWait& wait, uint32_t process, uint32_t device) const;
  void AddCommunicationEdges();
  void AddHandOffEdges();
  void SortEdgesByTarget();
  void FinishJoins();

  const RunIndex& index_;
  PathGraph* g_ = nullptr;
  // (slice, PathOwner) of the graph, hashed by slice: 16 bytes or less an owner of this step,
  // not 4 bytes a slice of the run.
  std::vector<std::pair<uint32_t, uint32_t>> owner_of_slice_;
  int owner_shift_ = 60;
  std::vector<uint8_t> owner_category_, owner_waits_, owner_inside_wait_;
  std::vector<uint8_t> owner_role_;  // its slice's RunIndex::role, read once per owner
  // Per owner: its place among its stream's tasks (chain, index), kNoRow when no task.
  std::vector<std::pair<uint32_t, uint32_t>> owner_task_;
  std::vector<ChainScratch> chain_scratch_;
  std::vector<uint32_t> window_;
  std::vector<uint32_t> stack_;
  std::vector<uint32_t> edge_start_;    // SortEdgesByTarget: per node, its edges' first slot
  std::vector<PathEdge> sorted_edges_;  // SortEdgesByTarget's output, swapped with the graph's
};

}  // namespace aiprof::analysis
