// The dependency graph of one step (of every rank taking part in it): the data structure the
// builder (graph_builder.h) fills and the solver (path_solver.h) reads.
//
// Nodes are points in time: every start and end of a slice on a thread or stream, clipped
// to the step's window. Each thread, stream and lane is a *chain*: its nodes in time order,
// each joined to the one before by the *segment* between them, which the innermost slice
// open there owns (its self time), or nobody (a gap). Sequential order is implicit: node i
// of a chain follows node i - 1. Everything else is a cross *edge* into a *join* node:
// launch → kernel, sync → the device work it waited for, loader → the wait it ended,
// each rank's arrival → a collective's all-arrived node → each rank's end of it.
//
// The graph reproduces the recording exactly: a join's recorded time is the latest of its
// inputs plus one *latency* (PathJoin::latency) that every input edge carries; so a forward
// pass gives every node its recorded time, and a pass with changed weights (what_if.h)
// gives the projected ones. A segment that only waits (a gap, a sync call, an input wait,
// a collective) adds nothing of its own at a join: its length is the wait.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path/path_category.h"
#include "model/model.h"

namespace aiprof::analysis {

inline constexpr uint32_t kNoMember = UINT32_MAX;

enum PathNodeFlags : uint8_t {
  kNodeJoin = 1u << 0,         // cross edges come in (PathGraph::joins has it)
  kNodeWaitSegment = 1u << 1,  // the segment before it only waits (adds nothing at a join)
};

enum class ChainKind : uint8_t {
  kStepThread,    // the thread that runs a member's step
  kHostThread,    // another thread of a member's process
  kLoader,        // a DataLoader worker process's thread, or a thread of loader ranges
  kCommWorker,    // a host thread running communication backend work (gloo's threads)
  kDeviceStream,  // a GPU stream
  kVirtual,       // one node standing for a collective's "every rank has arrived"
};

enum class EdgeKind : uint8_t {
  kLaunch,      // runtime call → the device task it launched (ac2g flow)
  kEnqueue,     // c10d dispatcher op → the backend work it issued on another thread
  kSync,        // the last device task enqueued before a sync call → the call's end
  kResume,      // a collective's end → the issuing thread resuming from its wait
  kHandOff,     // a loader's last work before the batch arrived → the input wait's end
  kArrival,     // a rank's start of a collective → the all-arrived node
  kCollective,  // the all-arrived node → each rank's end of the collective
  kFlow,        // any other recorded flow between two chains (fwdbwd, ...)
  kEventWait,   // the device work before an event record → the stream that waited on it
};

struct PathChain {
  uint32_t begin = 0;               // first node
  uint32_t end = 0;                 // one past the last node
  uint32_t thread = model::kNoRow;  // ThreadTable row; kNoRow for a virtual node
  uint32_t member = 0;              // PathGraph::members index; kNoMember for a virtual node
  ChainKind kind = ChainKind::kHostThread;
  // The category of the time from the window's begin to the first node (a gap).
  PathCategory lead = PathCategory::kIdle;
};

struct PathEdge {
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t from_chain = 0;
  EdgeKind kind = EdgeKind::kFlow;
  PathCategory category = PathCategory::kIdle;  // of the latency this edge adds
};

struct PathJoin {
  uint32_t node = 0;
  uint32_t first_edge = 0;  // PathGraph::edges, consecutive
  uint32_t edge_count = 0;
  int64_t latency = 0;  // recorded time − latest input (ns)
};

// A slice open in the window: the owner of the segments of its self time.
struct PathOwner {
  uint32_t slice = model::kNoRow;
  uint32_t parent = model::kNoRow;  // PathOwner index of the enclosing slice on the chain
  uint32_t start_node = model::kNoRow;
  uint32_t end_node = model::kNoRow;
};

// One process's step in the graph: a rank's step of the job's step, or the step alone.
struct PathMember {
  uint32_t step_id = model::kNoRow;  // model::StepTable row
  int32_t rank = -1;
  uint32_t process = model::kNoRow;
  uint32_t thread = model::kNoRow;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  uint32_t begin_node = model::kNoRow;  // on the step thread's chain
  uint32_t end_node = model::kNoRow;
};

struct PathGraph {
  int64_t begin_ns = 0;              // the window: the earliest member's begin
  int64_t end_ns = 0;                // the latest member's end
  std::vector<int64_t> time;         // per node: recorded time
  std::vector<uint32_t> owner;       // per node: PathOwner of the segment ending here; kNoRow: gap
  std::vector<uint8_t> category;     // per node: PathCategory of that segment
  std::vector<uint8_t> flags;        // per node: PathNodeFlags
  std::vector<uint32_t> node_chain;  // per node: its PathChain
  std::vector<uint32_t> node_join;   // per node: its PathJoin, kNoRow when none
  std::vector<PathChain> chains;     // contiguous node ranges, by begin
  std::vector<PathEdge> edges;       // by `to`
  std::vector<PathJoin> joins;       // by node
  std::vector<PathOwner> owners;     // a parent before its children
  std::vector<PathMember> members;
  uint64_t dropped_edges = 0;  // dependencies the recording contradicts (clock skew)

  size_t nodes() const { return time.size(); }
  // The join of a node flagged kNodeJoin; null for any other node.
  const PathJoin* JoinOf(uint32_t node) const {
    return node_join[node] == model::kNoRow ? nullptr : &joins[node_join[node]];
  }
  // The member whose step ends last: the job step's end.
  uint32_t LastMember() const;
};

}  // namespace aiprof::analysis
