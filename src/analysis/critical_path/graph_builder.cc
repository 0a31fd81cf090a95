#include "analysis/critical_path/graph_builder.h"

#include <algorithm>
#include <bit>

namespace aiprof::analysis {

namespace {

// Empties the graph but keeps its columns' memory: a run's steps are much alike, so once the
// first steps are built the next allocate nothing.
void ClearKeepingCapacity(PathGraph* g) {
  g->begin_ns = g->end_ns = 0;
  g->time.clear();
  g->owner.clear();
  g->category.clear();
  g->flags.clear();
  g->node_chain.clear();
  g->node_join.clear();
  g->chains.clear();
  g->edges.clear();
  g->joins.clear();
  g->owners.clear();
  g->members.clear();
  g->dropped_edges = 0;
}

}  // namespace

GraphBuilder::GraphBuilder(const RunIndex& index) : index_(index) {}

void GraphBuilder::IndexOwners() {
  // An open-addressing table at most half full, keyed by slice; a later owner of a slice
  // replaces an earlier one.
  const size_t owners = g_->owners.size();
  size_t capacity = 16;
  while (capacity < 2 * owners) capacity *= 2;
  owner_shift_ = 64 - std::countr_zero(capacity);
  owner_of_slice_.assign(capacity, {model::kNoRow, model::kNoRow});
  for (uint32_t o = 0; o < owners; ++o) {
    const uint32_t slice = g_->owners[o].slice;
    size_t at = OwnerSlot(slice);
    while (owner_of_slice_[at].first != model::kNoRow && owner_of_slice_[at].first != slice) {
      at = (at + 1) & (capacity - 1);
    }
    owner_of_slice_[at] = {slice, o};
  }
}

size_t GraphBuilder::OwnerSlot(uint32_t slice) const {
  return static_cast<size_t>((uint64_t{slice} * 0x9E3779B97F4A7C15ull) >> owner_shift_);
}

uint32_t GraphBuilder::OwnerOf(uint32_t slice) const {
  const size_t mask = owner_of_slice_.size() - 1;
  for (size_t at = OwnerSlot(slice);; at = (at + 1) & mask) {
    const auto& [key, owner] = owner_of_slice_[at];
    if (key == slice) return owner;
    if (key == model::kNoRow) return model::kNoRow;
  }
}

void GraphBuilder::Build(const std::vector<GraphMemberSpec>& members, PathGraph* graph) {
  g_ = graph;
  ClearKeepingCapacity(g_);
  owner_category_.clear();
  owner_waits_.clear();
  owner_inside_wait_.clear();
  owner_role_.clear();
  owner_task_.clear();
  chain_scratch_.clear();
  if (members.empty()) return;
  g_->begin_ns = members.front().begin_ns;
  g_->end_ns = members.front().end_ns;
  for (const GraphMemberSpec& spec : members) {
    g_->begin_ns = std::min(g_->begin_ns, spec.begin_ns);
    g_->end_ns = std::max(g_->end_ns, spec.end_ns);
  }
  std::vector<uint8_t> device_taken(index_.model().processes.size(), 0);
  for (uint32_t m = 0; m < members.size(); ++m) {
    const GraphMemberSpec& spec = members[m];
    PathMember member;
    member.step_id = spec.step_id;
    member.rank = spec.rank;
    member.process = spec.process;
    member.thread = spec.thread;
    member.begin_ns = spec.begin_ns;
    member.end_ns = spec.end_ns;
    g_->members.push_back(member);
    AddMemberChains(m, spec, &device_taken);
  }
  AddLaunchAndFlowEdges();
  AddSyncEdges();
  AddEventWaitEdges();
  AddCommunicationEdges();
  AddHandOffEdges();
  FinishJoins();
}

void GraphBuilder::AddMemberChains(uint32_t member, const GraphMemberSpec& spec,
                                   std::vector<uint8_t>* device_taken) {
  bool first_track = true;
  for (uint32_t track : index_.tracks_of_thread(spec.thread)) {
    // The step's begin and end are nodes of the thread's own lane.
    AddChain(track, ChainKind::kStepThread, member, first_track ? spec.begin_ns : INT64_MIN,
             first_track ? spec.end_ns : INT64_MIN);
    first_track = false;
  }
  for (uint32_t thread : index_.threads_of_process(spec.process)) {
    if (thread == spec.thread) continue;
    ChainKind kind = index_.thread_kind(thread);
    if (kind == ChainKind::kStepThread) kind = ChainKind::kHostThread;  // another loop's thread
    for (uint32_t track : index_.tracks_of_thread(thread)) {
      AddChain(track, kind, member, INT64_MIN, INT64_MIN);
    }
  }
  for (uint32_t loader : index_.loader_processes(spec.process)) {
    for (uint32_t thread : index_.threads_of_process(loader)) {
      for (uint32_t track : index_.tracks_of_thread(thread)) {
        AddChain(track, ChainKind::kLoader, member, INT64_MIN, INT64_MIN);
      }
    }
  }
  for (uint32_t device : index_.device_processes(spec.process)) {
    if ((*device_taken)[device]) continue;
    (*device_taken)[device] = 1;
    for (uint32_t thread : index_.threads_of_process(device)) {
      for (uint32_t track : index_.tracks_of_thread(thread)) {
        AddChain(track, ChainKind::kDeviceStream, member, INT64_MIN, INT64_MIN);
      }
    }
  }
}

uint32_t GraphBuilder::AddNode(int64_t time, uint32_t owner, uint32_t chain) {
  PathGraph& g = *g_;
  const uint32_t node = static_cast<uint32_t>(g.time.size());
  g.time.push_back(time);
  g.owner.push_back(owner);
  const bool gap = owner == model::kNoRow;
  const ChainKind kind = g.chains[chain].kind;
  const PathCategory gap_category =
      kind == ChainKind::kLoader ? PathCategory::kDataLoading : PathCategory::kIdle;
  g.category.push_back(gap ? static_cast<uint8_t>(gap_category) : owner_category_[owner]);
  g.flags.push_back(gap || owner_waits_[owner] ? kNodeWaitSegment : 0);
  g.node_chain.push_back(chain);
  g.node_join.push_back(model::kNoRow);
  return node;
}

uint32_t GraphBuilder::PushOwner(uint32_t slice, uint32_t parent, ChainKind kind) {
  PathGraph& g = *g_;
  const uint32_t owner = static_cast<uint32_t>(g.owners.size());
  g.owners.push_back({slice, parent, model::kNoRow, model::kNoRow});
  const uint8_t role = index_.role(slice);
  const bool inside_wait =
      (role & kRoleInputWait) != 0 || (parent != model::kNoRow && owner_inside_wait_[parent]);
  PathCategory category = PathCategory::kHostOverhead;
  if (kind == ChainKind::kLoader || inside_wait) {
    category = PathCategory::kDataLoading;
  } else if (role & kRoleStep) {
    category = PathCategory::kIdle;  // a step's own range: its self time is nothing recorded
  } else if (role & kRoleSync) {
    category = PathCategory::kSync;
  } else if (role & kRoleComm) {
    category = PathCategory::kCommTransit;
  } else if (role & kRoleCompute) {
    category = PathCategory::kCompute;
  }
  owner_category_.push_back(static_cast<uint8_t>(category));
  owner_waits_.push_back((role & (kRoleStep | kRoleSync | kRoleComm | kRoleInputWait)) != 0);
  owner_inside_wait_.push_back(inside_wait);
  owner_role_.push_back(role);
  owner_task_.push_back({model::kNoRow, model::kNoRow});
  return owner;
}

void GraphBuilder::AddChain(uint32_t track, ChainKind kind, uint32_t member, int64_t cut_begin,
                            int64_t cut_end) {
  const model::Model& m = index_.model();
  const model::SliceTable& s = m.slices;
  PathGraph& g = *g_;
  const int64_t begin = g.begin_ns, end = g.end_ns;
  window_.clear();
  index_.WindowSlices(track, begin, end, &window_);
  window_.erase(std::remove_if(window_.begin(), window_.end(),
                               [&](uint32_t row) { return index_.skipped(row); }),
                window_.end());
  if (window_.empty() && cut_begin == INT64_MIN) return;
  const auto clip_ts = [&](uint32_t row) { return std::max(s.ts[row], begin); };
  const auto clip_end = [&](uint32_t row) { return std::min(s.end[row], end); };
  const uint32_t chain = static_cast<uint32_t>(g.chains.size());
  PathChain c;
  c.begin = static_cast<uint32_t>(g.time.size());
  c.thread = m.tracks.thread[track];
  c.member = member;
  c.kind = kind;
  c.lead = kind == ChainKind::kLoader ? PathCategory::kDataLoading : PathCategory::kIdle;
  g.chains.push_back(c);
  chain_scratch_.emplace_back();
  PathMember& spec = g.members[member];
  // The step's begin and end as nodes: a begin before the starts at its instant, an end
  // after the ends at its instant (so the step's end follows all its work).
  int64_t cuts[2] = {cut_begin, cut_end};
  int next_cut = cut_begin == INT64_MIN ? 2 : 0;
  const auto top = [&]() { return stack_.empty() ? model::kNoRow : stack_.back(); };
  const auto emit_cuts = [&](int64_t time, bool inclusive) {
    while (next_cut < 2 && (inclusive ? cuts[next_cut] <= time : cuts[next_cut] < time)) {
      const uint32_t node = AddNode(cuts[next_cut], top(), chain);
      (next_cut == 0 ? spec.begin_node : spec.end_node) = node;
      ++next_cut;
    }
  };
  const auto close_top = [&]() {
    const uint32_t owner = stack_.back();
    // A slice that does not nest in its parent (not expected on a track) ends no earlier
    // than what the chain already holds, so the chain stays in time order.
    const int64_t at = std::max(clip_end(g.owners[owner].slice), g.time.back());
    emit_cuts(at, false);
    g.owners[owner].end_node = AddNode(at, owner, chain);
    stack_.pop_back();
  };
  const bool device = kind == ChainKind::kDeviceStream;
  stack_.clear();
  for (uint32_t row : window_) {
    const int64_t at = clip_ts(row);
    while (!stack_.empty() && clip_end(g.owners[stack_.back()].slice) <= at) close_top();
    emit_cuts(at, true);
    const uint32_t start = AddNode(at, top(), chain);
    const uint32_t owner = PushOwner(row, top(), kind);
    g.owners[owner].start_node = start;
    stack_.push_back(owner);
    if (device && (index_.role(row) & kRoleDeviceTask)) {
      // Enqueued when it began, or when the call that launched it began (the flows, later).
      std::vector<DeviceTask>& tasks = chain_scratch_.back().tasks;
      owner_task_[owner] = {chain, static_cast<uint32_t>(tasks.size())};
      tasks.push_back({s.ts[row], owner});
    }
  }
  while (!stack_.empty()) close_top();
  emit_cuts(INT64_MAX, true);
  g.chains[chain].end = static_cast<uint32_t>(g.time.size());
}

void GraphBuilder::AddEdge(uint32_t from, uint32_t to, EdgeKind kind, PathCategory category) {
  if (from == model::kNoRow || to == model::kNoRow) return;
  const uint32_t from_chain = g_->node_chain[from];
  if (from_chain == g_->node_chain[to]) return;  // the chain's order already says it
  g_->edges.push_back({from, to, from_chain, kind, category});
}

uint32_t GraphBuilder::NodeAtOrAfter(const PathChain& chain, int64_t time) const {
  const auto first = g_->time.begin() + chain.begin, last = g_->time.begin() + chain.end;
  const auto found = std::lower_bound(first, last, time);
  return found == last ? model::kNoRow : static_cast<uint32_t>(found - g_->time.begin());
}

void GraphBuilder::AddLaunchAndFlowEdges() {
  const model::SliceTable& s = index_.model().slices;
  const model::FlowTable& f = index_.model().flows;
  PathGraph& g = *g_;
  // A target that began before the window has its source before it too: not in the graph.
  auto [flow, flows_end] = index_.FlowsInto(g.begin_ns, g.end_ns);
  if (flow != flows_end) IndexOwners();
  for (; flow != flows_end; ++flow) {
    const uint32_t to_slice = f.to_slice[*flow], from_slice = f.from_slice[*flow];
    const uint32_t target = OwnerOf(to_slice);
    const uint32_t source = OwnerOf(from_slice);
    if (target == model::kNoRow || source == model::kNoRow) continue;
    const PathOwner& dst = g.owners[target];
    const PathOwner& src = g.owners[source];
    const bool to_device = g.chains[g.node_chain[dst.start_node]].kind == ChainKind::kDeviceStream;
    const bool from_device =
        g.chains[g.node_chain[src.start_node]].kind == ChainKind::kDeviceStream;
    if (to_device && !from_device) {
      AddEdge(src.start_node, dst.start_node, EdgeKind::kLaunch, PathCategory::kHostOverhead);
      const auto [chain, task] = owner_task_[target];
      if (chain != model::kNoRow) {
        int64_t& launched = chain_scratch_[chain].tasks[task].launch_ns;
        launched = std::min(launched, s.ts[from_slice]);
      }
    } else {
      const bool after_end = s.end[from_slice] <= s.ts[to_slice];
      AddEdge(after_end ? src.end_node : src.start_node, dst.start_node, EdgeKind::kFlow,
              PathCategory::kHostOverhead);
    }
  }
}

void GraphBuilder::AddSyncEdges() {
  const model::SliceTable& s = index_.model().slices;
  PathGraph& g = *g_;
  for (uint32_t o = 0; o < g.owners.size(); ++o) {
    const PathOwner call = g.owners[o];
    if ((owner_role_[o] & kRoleSync) == 0) continue;
    const uint32_t member = g.chains[g.node_chain[call.start_node]].member;
    const SyncTarget target = index_.SyncTargetOf(call.slice);
    const uint32_t sync_thread =
        target.track == model::kNoRow ? model::kNoRow : index_.model().tracks.thread[target.track];
    // An event sync waits for the event's stream up to its record, when both were recorded.
    const EventWait* event = target.kind == 1 ? index_.EventWaitOf(target.sync_slice) : nullptr;
    if (event != nullptr) {
      const uint32_t process = g.members[member].process;
      const uint32_t source =
          EventSourceTask(*event, process, index_.model().threads.process[sync_thread]);
      if (source != model::kNoRow) {
        AddEdge(g.owners[source].end_node, call.end_node, EdgeKind::kSync, PathCategory::kSync);
        continue;
      }
    }
    for (uint32_t c = 0; c < g.chains.size(); ++c) {
      const PathChain& chain = g.chains[c];
      if (chain.kind != ChainKind::kDeviceStream || chain.member != member) continue;
      if (target.kind == 3 && chain.thread != sync_thread) continue;  // a stream sync
      const std::vector<DeviceTask>& tasks = chain_scratch_[c].tasks;
      // The last task enqueued before the call began: the stream finishes it last.
      auto last =
          std::upper_bound(tasks.begin(), tasks.end(), s.ts[call.slice],
                           [](int64_t t, const DeviceTask& task) { return t < task.launch_ns; });
      if (last == tasks.begin()) continue;
      AddEdge(g.owners[std::prev(last)->owner].end_node, call.end_node, EdgeKind::kSync,
              PathCategory::kSync);
    }
  }
}

uint32_t GraphBuilder::EventSourceTask(const EventWait& wait, uint32_t process,
                                       uint32_t device) const {
  const model::Model& m = index_.model();
  const uint32_t call = index_.EventRecordCall(process, wait.record_correlation);
  if (call == model::kNoRow) return model::kNoRow;
  uint32_t source = model::kNoRow;
  for (uint32_t c = 0; c < g_->chains.size(); ++c) {
    const PathChain& chain = g_->chains[c];
    if (chain.kind != ChainKind::kDeviceStream || m.threads.process[chain.thread] != device ||
        static_cast<int64_t>(m.threads.tid[chain.thread]) != wait.record_stream) {
      continue;
    }
    // The event completes when the stream has done what was enqueued before it was recorded.
    const std::vector<DeviceTask>& tasks = chain_scratch_[c].tasks;
    auto last =
        std::upper_bound(tasks.begin(), tasks.end(), m.slices.ts[call],
                         [](int64_t t, const DeviceTask& task) { return t < task.launch_ns; });
    if (last == tasks.begin()) continue;
    const uint32_t owner = std::prev(last)->owner;
    if (source == model::kNoRow ||
        g_->time[g_->owners[owner].end_node] > g_->time[g_->owners[source].end_node]) {
      source = owner;  // of a stream's several lanes, the one that finishes last
    }
  }
  return source;
}

void GraphBuilder::AddEventWaitEdges() {
  PathGraph& g = *g_;
  const model::Model& m = index_.model();
  for (uint32_t c = 0; c < g.chains.size(); ++c) {
    const PathChain& waiting = g.chains[c];
    if (waiting.kind != ChainKind::kDeviceStream) continue;
    const std::vector<DeviceTask>& tasks = chain_scratch_[c].tasks;
    auto [wait, waits_end] = index_.EventWaitsOn(waiting.thread, g.begin_ns, g.end_ns);
    for (; wait != waits_end; ++wait) {
      if (wait->kind != 2) continue;  // a stream wait event
      const uint32_t source = EventSourceTask(*wait, g.members[waiting.member].process,
                                              m.threads.process[waiting.thread]);
      if (source == model::kNoRow) continue;
      // The first task enqueued on the waiting stream after the wait is held back by it.
      auto next =
          std::lower_bound(tasks.begin(), tasks.end(), wait->ts,
                           [](const DeviceTask& task, int64_t t) { return task.launch_ns < t; });
      if (next == tasks.end()) continue;
      AddEdge(g.owners[source].end_node, g.owners[next->owner].start_node, EdgeKind::kEventWait,
              PathCategory::kSync);
    }
  }
}

void GraphBuilder::AddCommunicationEdges() {
  PathGraph& g = *g_;
  // Dispatcher ops of each chain that issue backend work, in start order.
  std::vector<uint32_t> issues;
  std::vector<std::pair<uint32_t, uint32_t>> matched;  // (match, owner)
  for (uint32_t o = 0; o < g.owners.size(); ++o) {
    const uint8_t role = owner_role_[o];
    if (role & kRoleIssue) issues.push_back(o);
    if ((role & kRoleComm) == 0) continue;
    const uint32_t timing = index_.CommTimingOf(g.owners[o].slice);
    const uint32_t match = timing == model::kNoRow ? model::kNoRow : index_.MatchOf(timing);
    if (match != model::kNoRow) matched.push_back({match, o});
  }
  std::sort(issues.begin(), issues.end(), [&](uint32_t a, uint32_t b) {
    return g.time[g.owners[a].start_node] < g.time[g.owners[b].start_node];
  });
  for (uint32_t o = 0; o < g.owners.size(); ++o) {
    const PathOwner work = g.owners[o];
    if ((owner_role_[o] & kRoleComm) == 0) continue;
    const PathChain& chain = g.chains[g.node_chain[work.start_node]];
    if (chain.kind != ChainKind::kCommWorker) continue;
    const int64_t start = g.time[work.start_node], finish = g.time[work.end_node];
    // The member's last dispatcher op that began before the work did issued it (the work is
    // created inside the op and starts on the worker thread, possibly after the op ended).
    auto it = std::upper_bound(issues.begin(), issues.end(), start, [&](int64_t t, uint32_t issue) {
      return t < g.time[g.owners[issue].start_node];
    });
    uint32_t issue = model::kNoRow;
    while (it != issues.begin()) {
      --it;
      if (g.chains[g.node_chain[g.owners[*it].start_node]].member != chain.member) continue;
      issue = *it;
      break;
    }
    if (issue == model::kNoRow) continue;
    const PathOwner& issued_by = g.owners[issue];
    AddEdge(issued_by.start_node, work.start_node, EdgeKind::kEnqueue, PathCategory::kHostOverhead);
    // The issuing thread blocked until the work ended (torch's Work::wait() records nothing):
    // it recorded nothing from the issue (or the work's start) until after the work's end.
    const PathChain& issuer = g.chains[g.node_chain[issued_by.start_node]];
    const uint32_t resume = NodeAtOrAfter(issuer, finish);
    if (resume == model::kNoRow || resume == issuer.begin || g.owner[resume] != model::kNoRow) {
      continue;
    }
    if (g.time[resume - 1] <= std::max(g.time[issued_by.end_node], start)) {
      AddEdge(work.end_node, resume, EdgeKind::kResume, PathCategory::kSync);
    }
  }
  // The ranks' participations in one operation: the last arrival gates every end.
  std::sort(matched.begin(), matched.end());
  for (size_t i = 0; i < matched.size();) {
    size_t j = i;
    int64_t last_arrival = INT64_MIN;
    std::vector<uint32_t> members;
    for (; j < matched.size() && matched[j].first == matched[i].first; ++j) {
      const PathOwner& op = g.owners[matched[j].second];
      last_arrival = std::max(last_arrival, g.time[op.start_node]);
      const uint32_t member = g.chains[g.node_chain[op.start_node]].member;
      if (std::find(members.begin(), members.end(), member) == members.end())
        members.push_back(member);
    }
    if (members.size() >= 2) {
      PathChain all_arrived;
      all_arrived.begin = static_cast<uint32_t>(g.time.size());
      all_arrived.end = all_arrived.begin + 1;
      all_arrived.member = kNoMember;
      all_arrived.kind = ChainKind::kVirtual;
      const uint32_t chain = static_cast<uint32_t>(g.chains.size());
      g.chains.push_back(all_arrived);
      chain_scratch_.emplace_back();
      g.time.push_back(last_arrival);
      g.owner.push_back(model::kNoRow);
      g.category.push_back(static_cast<uint8_t>(PathCategory::kCommWait));
      g.flags.push_back(0);
      g.node_chain.push_back(chain);
      g.node_join.push_back(model::kNoRow);
      for (size_t k = i; k < j; ++k) {
        const PathOwner& op = g.owners[matched[k].second];
        AddEdge(op.start_node, all_arrived.begin, EdgeKind::kArrival, PathCategory::kCommWait);
        AddEdge(all_arrived.begin, op.end_node, EdgeKind::kCollective, PathCategory::kCommTransit);
      }
    }
    i = j;
  }
}

void GraphBuilder::AddHandOffEdges() {
  PathGraph& g = *g_;
  for (uint32_t o = 0; o < g.owners.size(); ++o) {
    const PathOwner wait = g.owners[o];
    if ((owner_role_[o] & kRoleInputWait) == 0) continue;
    const PathChain& chain = g.chains[g.node_chain[wait.start_node]];
    if (chain.kind != ChainKind::kStepThread) continue;
    // The wait blocked in its longest stretch of self time (the batch it received is then
    // unpacked by operators inside it): the end of that stretch is where the batch arrived.
    uint32_t arrived = model::kNoRow;
    int64_t longest = -1;
    for (uint32_t v = wait.start_node + 1; v <= wait.end_node; ++v) {
      if (g.owner[v] != o || g.time[v] - g.time[v - 1] <= longest) continue;
      longest = g.time[v] - g.time[v - 1];
      arrived = v;
    }
    if (arrived == model::kNoRow) continue;
    const int64_t begin = g.time[wait.start_node], end = g.time[arrived];
    // The loader work that finished last before then handed over the batch.
    uint32_t producer = model::kNoRow;
    for (const PathChain& loader : g.chains) {
      if (loader.kind != ChainKind::kLoader || loader.member != chain.member) continue;
      const auto first = g.time.begin() + loader.begin, last = g.time.begin() + loader.end;
      uint32_t v = static_cast<uint32_t>(std::upper_bound(first, last, end) - g.time.begin());
      while (v > loader.begin && g.owner[v - 1] == model::kNoRow) --v;
      if (v == loader.begin) continue;
      const uint32_t busy_end = v - 1;
      if (g.time[busy_end] < begin) continue;
      if (producer == model::kNoRow || g.time[busy_end] > g.time[producer]) producer = busy_end;
    }
    AddEdge(producer, arrived, EdgeKind::kHandOff, PathCategory::kDataLoading);
  }
}

// By (to, from), the order they were added in among equal keys: a counting sort by target
// (linear: the nodes are numbered densely), then the few edges of each target by source.
void GraphBuilder::SortEdgesByTarget() {
  PathGraph& g = *g_;
  edge_start_.assign(g.nodes() + 1, 0);
  for (const PathEdge& edge : g.edges) ++edge_start_[edge.to + 1];
  for (size_t v = 0; v < g.nodes(); ++v) edge_start_[v + 1] += edge_start_[v];
  sorted_edges_.resize(g.edges.size());
  for (const PathEdge& edge : g.edges) sorted_edges_[edge_start_[edge.to]++] = edge;
  g.edges.swap(sorted_edges_);
  // Each target's few edges by source, stable: insertion sort, which allocates nothing; a
  // target with many (a collective's all-arrived node, a hostile file) a stable merge sort.
  const auto by_source = [](const PathEdge& a, const PathEdge& b) { return a.from < b.from; };
  for (size_t i = 0; i < g.edges.size();) {
    size_t j = i + 1;
    while (j < g.edges.size() && g.edges[j].to == g.edges[i].to) ++j;
    const auto first = g.edges.begin() + static_cast<std::ptrdiff_t>(i);
    const auto last = g.edges.begin() + static_cast<std::ptrdiff_t>(j);
    if (j - i > 32) {
      std::stable_sort(first, last, by_source);
    } else {
      for (auto it = first + 1; it < last; ++it) {
        const PathEdge edge = *it;
        auto k = it;
        for (; k > first && by_source(edge, *(k - 1)); --k) *k = *(k - 1);
        *k = edge;
      }
    }
    i = j;
  }
}

void GraphBuilder::FinishJoins() {
  PathGraph& g = *g_;
  SortEdgesByTarget();
  // Keep the edges the recording agrees with.
  size_t kept = 0;
  for (const PathEdge& edge : g.edges) {
    if (g.time[edge.from] > g.time[edge.to]) {
      ++g.dropped_edges;
      continue;
    }
    if (kept > 0 && g.edges[kept - 1].to == edge.to && g.edges[kept - 1].from == edge.from)
      continue;
    g.edges[kept++] = edge;
  }
  g.edges.resize(kept);
  for (size_t i = 0; i < g.edges.size();) {
    const uint32_t v = g.edges[i].to;
    size_t j = i;
    int64_t latest = INT64_MIN;
    for (; j < g.edges.size() && g.edges[j].to == v; ++j) {
      latest = std::max(latest, g.time[g.edges[j].from]);
    }
    const PathChain& chain = g.chains[g.node_chain[v]];
    if (chain.kind != ChainKind::kVirtual) {
      const bool first = v == chain.begin;
      const bool waits = first || (g.flags[v] & kNodeWaitSegment) != 0;
      latest = std::max(latest, first ? g.begin_ns : (waits ? g.time[v - 1] : g.time[v]));
    }
    g.node_join[v] = static_cast<uint32_t>(g.joins.size());
    g.joins.push_back(
        {v, static_cast<uint32_t>(i), static_cast<uint32_t>(j - i), g.time[v] - latest});
    g.flags[v] |= kNodeJoin;
    i = j;
  }
}

}  // namespace aiprof::analysis
