#include "analysis/critical_path/critical_path.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/analysis_set.h"
#include "analysis/critical_path/graph_builder.h"
#include "analysis/critical_path/path_solver.h"
#include "analysis/critical_path/run_index.h"
#include "model/huge_pages.h"

namespace aiprof::analysis {
namespace {

struct StepGroup {
  uint64_t step = 0;
  uint32_t loop = 0;
  std::vector<GraphMemberSpec> members;  // by rank
};

// The ranks' steps with the same loop and number are one job step; a process without a
// rank has its steps to itself.
std::vector<StepGroup> GroupSteps(const model::Model& model, const AnalysisSet& set) {
  std::map<std::tuple<int, uint32_t, uint64_t, uint32_t>, StepGroup> groups;
  for (const StepSpan& step : set.steps.steps) {
    const uint32_t process = model.ProcessOfThread(step.thread);
    const int32_t rank = model.processes.rank[process];
    GraphMemberSpec member{step.id, rank, process, step.thread, step.begin_ns, step.end_ns};
    // Ranked steps group by (loop, number); unranked ones stay alone (keyed by their id).
    const auto key = rank >= 0 ? std::make_tuple(0, step.loop, step.step, 0u)
                               : std::make_tuple(1, 0u, uint64_t{0}, step.id);
    StepGroup& group = groups[key];
    group.step = step.step;
    group.loop = step.loop;
    group.members.push_back(member);
  }
  std::vector<StepGroup> out;
  for (auto& [key, group] : groups) {
    std::sort(group.members.begin(), group.members.end(),
              [](const GraphMemberSpec& a, const GraphMemberSpec& b) { return a.rank < b.rank; });
    out.push_back(std::move(group));
  }
  std::sort(out.begin(), out.end(), [](const StepGroup& a, const StepGroup& b) {
    return a.members.front().begin_ns < b.members.front().begin_ns;
  });
  return out;
}

// A step has a path when the thread that runs it has a track: its begin and end are nodes of
// the thread's first track (GraphBuilder::AddMemberChains).
bool HasPathThread(const model::Model& model, uint32_t thread) {
  const std::vector<uint32_t>& threads = model.tracks.thread;
  return std::find(threads.begin(), threads.end(), thread) != threads.end();
}

// Without steps: each host process that runs more than loader work is one member, its span
// from its first to its last slice, on the thread with the most slices.
std::vector<StepGroup> WholeRunGroups(const model::Model& model, const RunIndex& index) {
  const size_t processes = model.processes.size();
  std::vector<int64_t> first(processes, INT64_MAX), last(processes, INT64_MIN);
  std::vector<uint64_t> per_thread(model.threads.size(), 0);
  for (uint32_t row = 0; row < model.slices.size(); ++row) {
    const uint32_t thread = model.ThreadOfSlice(row);
    const uint32_t process = model.ProcessOfThread(thread);
    ++per_thread[thread];
    first[process] = std::min(first[process], model.slices.ts[row]);
    last[process] = std::max(last[process], model.slices.end[row]);
  }
  std::vector<StepGroup> out;
  for (uint32_t p = 0; p < processes; ++p) {
    if (model.processes.device_id[p] >= 0 || first[p] > last[p]) continue;
    uint32_t main = model::kNoRow;
    for (uint32_t thread : index.threads_of_process(p)) {
      if (index.thread_kind(thread) == ChainKind::kLoader) continue;
      if (main == model::kNoRow || per_thread[thread] > per_thread[main]) main = thread;
    }
    if (main == model::kNoRow) continue;
    StepGroup group;
    group.members.push_back({model::kNoRow, model.processes.rank[p], p, main, first[p], last[p]});
    out.push_back(std::move(group));
  }
  return out;
}

// The run's operator or kernel with the most compute time (its top-level calls): the target
// of the standard "2× faster" projection.
std::string TopComputeName(const model::Model& model, const RunIndex& index) {
  std::unordered_map<model::StringId, int64_t> total;
  const model::SliceTable& s = model.slices;
  for (uint32_t row = 0; row < s.size(); ++row) {
    // A c10d dispatcher op (kRoleIssue) is a framework op around communication, not compute.
    if ((index.role(row) & kRoleCompute) == 0 || (index.role(row) & (kRoleIssue | kRoleComm))) {
      continue;
    }
    const uint32_t parent = s.parent[row];
    if (parent != model::kNoRow && (index.role(parent) & kRoleCompute)) continue;
    total[s.name[row]] += s.dur(row);
  }
  model::StringId best = model::kNoString;
  int64_t best_ns = 0;
  for (const auto& [name, ns] : total) {
    if (ns > best_ns || (ns == best_ns && model.Str(name) < model.Str(best))) {
      best = name;
      best_ns = ns;
    }
  }
  return best == model::kNoString ? std::string() : std::string(model.Str(best));
}

std::vector<WhatIfSpec> StandardWhatIfs(const std::string& top_name) {
  std::vector<WhatIfSpec> specs;
  specs.push_back({WhatIfKind::kDataLoadingFree, "", PathCategory::kDataLoading, 1.0});
  if (!top_name.empty())
    specs.push_back({WhatIfKind::kOperatorFaster, top_name, PathCategory::kCompute, 0.5});
  specs.push_back({WhatIfKind::kRankAtMedian, "", PathCategory::kCompute, 0.0});
  specs.push_back({WhatIfKind::kCommunicationOverlapped, "", PathCategory::kCommTransit, 1.0});
  return specs;
}

std::vector<StepGroup> GroupsOf(const model::Model& model, const AnalysisSet& set,
                                const RunIndex& index, bool* whole_run) {
  *whole_run = set.steps.steps.empty();
  return *whole_run ? WholeRunGroups(model, index) : GroupSteps(model, set);
}

MemberBusy BusyOf(const std::vector<CategoryTimes>& own) {
  MemberBusy busy;
  for (const CategoryTimes& times : own) {
    busy.busy_ns.push_back(times[PathCategory::kCompute] + times[PathCategory::kHostOverhead]);
  }
  return busy;
}

// Time per key (a thread row, a string id) with the keys touched, cleared in proportion to them.
class DenseTotals {
 public:
  struct Total {
    int64_t ns = 0;
    PathCategory category = PathCategory::kIdle;
  };
  explicit DenseTotals(size_t keys) : totals_(keys), touched_(keys, 0) {}
  Total& Add(uint32_t key, int64_t ns) {
    if (!touched_[key]) {
      touched_[key] = 1;
      keys_.push_back(key);
    }
    Total& total = totals_[key];
    total.ns += ns;
    return total;
  }
  const Total& operator[](uint32_t key) const { return totals_[key]; }
  const std::vector<uint32_t>& keys() const { return keys_; }
  void SortKeys() { std::sort(keys_.begin(), keys_.end()); }
  void Clear() {
    for (const uint32_t key : keys_) {
      totals_[key] = {};
      touched_[key] = 0;
    }
    keys_.clear();
  }

 private:
  std::vector<Total> totals_;
  std::vector<uint8_t> touched_;
  std::vector<uint32_t> keys_;
};

class StepSolver {
 public:
  StepSolver(const model::Model& model, const RunIndex& index)
      : model_(model),
        index_(index),
        builder_(index),
        thread_totals_(model.threads.size()),
        name_totals_(model.strings.size()) {}

  // Appends the step's path to `result`; false when the step has none (no node for its end).
  bool Solve(const StepGroup& group, const std::vector<WhatIfSpec>& what_ifs,
             CriticalPathResult* result) {
    result_ = result;
    builder_.Build(group.members, &graph_);
    if (graph_.members.empty() || graph_.members.front().end_node == model::kNoRow) return false;
    PlanPasses(graph_, &plan_, &pass_);
    CriticalPathStep step;
    step.step_id = group.members.front().step_id;
    step.step = group.step;
    step.loop = group.loop;
    step.begin_ns = graph_.begin_ns;
    step.end_ns = graph_.end_ns;
    step.nodes = graph_.nodes();
    step.edges = graph_.edges.size();
    step.dropped_edges = graph_.dropped_edges;
    step.cycle_edges = plan_.cycle_edges;
    RecordSlack();
    RecordJobPath(&step);
    RecordNearCritical(&step);
    const std::vector<CategoryTimes> own = RecordRanks(&step);
    Project(what_ifs, BusyOf(own), &step);
    result_->attribution.Add(step.attribution);
    result_->step_ns += step.duration_ns();
    result_->dropped_edges += step.dropped_edges;
    result_->steps.push_back(std::move(step));
    return true;
  }

  // The step's projected time with `specs` applied together; its time when none applies.
  int64_t ProjectOnly(const StepGroup& group, const std::vector<WhatIfSpec>& specs) {
    builder_.Build(group.members, &graph_);
    if (graph_.members.empty() || graph_.members.front().end_node == model::kNoRow) return 0;
    PlanPasses(graph_, &plan_, &pass_);
    std::vector<CategoryTimes> own;
    for (uint32_t m = 0; m < graph_.members.size(); ++m) {
      WalkMemberPath(graph_, plan_, pass_, m, &walked_);
      own.push_back(Attribute(walked_));
    }
    PathWeights weights;
    if (!WeightsFor(graph_, model_, specs, BusyOf(own), &selected_, &weights)) {
      return graph_.end_ns - graph_.begin_ns;
    }
    return ProjectedStepNs(graph_, SolveProjection(graph_, plan_, weights, pass_, &projection_));
  }

 private:
  static CategoryTimes Attribute(const std::vector<WalkedSegment>& path) {
    CategoryTimes times;
    for (const WalkedSegment& segment : path)
      times[segment.category] += segment.end_ns - segment.begin_ns;
    return times;
  }

  // The slices' slack, into a result that holds it (slice_slack sized to the slices).
  void RecordSlack() {
    SolveLatest(graph_, plan_, pass_, &latest_);
    std::vector<float>& slack = result_->slice_slack;
    if (slack.empty()) return;
    for (const PathOwner& owner : graph_.owners) {
      if (owner.end_node == model::kNoRow || latest_[owner.end_node] == kUnboundedSlack) continue;
      const float ns = static_cast<float>(latest_[owner.end_node] - pass_.earliest[owner.end_node]);
      slack[owner.slice] = std::min(slack[owner.slice], ns);
    }
  }

  // The outermost slices off the job's path (their parent on it, or none) with the least
  // slack; a step's own range and a slice of no length in the step are no work.
  void RecordNearCritical(CriticalPathStep* step) {
    std::vector<NearCriticalSlice> candidates;
    for (uint32_t o = 0; o < graph_.owners.size(); ++o) {
      const PathOwner& owner = graph_.owners[o];
      if (on_path_owner_[o] || (owner.parent != model::kNoRow && !on_path_owner_[owner.parent]) ||
          owner.end_node == model::kNoRow || latest_[owner.end_node] == kUnboundedSlack ||
          graph_.time[owner.end_node] == graph_.time[owner.start_node] ||
          (index_.role(owner.slice) & kRoleStep)) {
        continue;
      }
      candidates.push_back({owner.slice, latest_[owner.end_node] - pass_.earliest[owner.end_node],
                            static_cast<PathCategory>(graph_.category[owner.end_node])});
    }
    const auto before = [&](const NearCriticalSlice& a, const NearCriticalSlice& b) {
      if (a.slack_ns != b.slack_ns) return a.slack_ns < b.slack_ns;
      return model_.slices.ts[a.slice] != model_.slices.ts[b.slice]
                 ? model_.slices.ts[a.slice] < model_.slices.ts[b.slice]
                 : a.slice < b.slice;
    };
    const size_t kept = std::min(candidates.size(), CriticalPathResult::kNearCriticalPerStep);
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(kept),
                      candidates.end(), before);
    step->first_near = static_cast<uint32_t>(result_->near_critical.size());
    step->near_count = static_cast<uint32_t>(kept);
    result_->near_critical.insert(result_->near_critical.end(), candidates.begin(),
                                  candidates.begin() + static_cast<std::ptrdiff_t>(kept));
  }

  void RecordJobPath(CriticalPathStep* step) {
    hop_owners_.clear();
    WalkJobPath(graph_, plan_, pass_, &walked_, &hop_owners_);
    step->first_segment = static_cast<uint32_t>(result_->segments.size());
    on_path_.assign(graph_.members.size(), 0);
    on_path_owner_.assign(graph_.owners.size(), 0);
    // The path runs through these slices (their self time, or a point of them it reached
    // through an edge), so through their ancestors too.
    const auto mark = [&](uint32_t owner) {
      for (uint32_t o = owner; o != model::kNoRow && !on_path_owner_[o];
           o = graph_.owners[o].parent) {
        on_path_owner_[o] = 1;
      }
    };
    for (uint32_t owner : hop_owners_) mark(owner);
    for (const WalkedSegment& w : walked_) {
      if (!w.latency) mark(w.owner);
      const PathChain& chain = graph_.chains[w.chain];
      const uint32_t slice =
          w.owner == model::kNoRow ? model::kNoRow : graph_.owners[w.owner].slice;
      CriticalPathSegments& out = result_->segments;
      out.begin_ns.push_back(w.begin_ns);
      const bool self = slice != model::kNoRow && !w.latency;
      out.ref.push_back(self ? slice : chain.thread);
      out.kind.push_back(static_cast<uint8_t>(
          static_cast<uint8_t>(w.category) |
          (w.latency ? CriticalPathSegments::kLatency : (self ? 0 : CriticalPathSegments::kGap))));
      const int64_t length = w.end_ns - w.begin_ns;
      step->attribution[w.category] += length;
      if (chain.member != kNoMember) on_path_[chain.member] += length;
      if (chain.thread != model::kNoRow) thread_totals_.Add(chain.thread, length);
      if (slice != model::kNoRow && w.category != PathCategory::kIdle) {
        name_totals_.Add(model_.slices.name[slice], length).category = w.category;
      }
    }
    step->segment_count = static_cast<uint32_t>(result_->segments.size()) - step->first_segment;
    RecordTops(step);
  }

  // The thread with the most of the path (ties: the lowest row) and the operators and
  // kernels with the most, from the path's totals; the totals are cleared for the next step.
  void RecordTops(CriticalPathStep* step) {
    int64_t best = -1;
    thread_totals_.SortKeys();
    for (const uint32_t thread : thread_totals_.keys()) {
      if (thread_totals_[thread].ns > best) {
        best = thread_totals_[thread].ns;
        step->critical_thread = thread;
      }
    }
    thread_totals_.Clear();
    items_.clear();
    for (const model::StringId name : name_totals_.keys()) {
      items_.push_back({name, name_totals_[name].category, name_totals_[name].ns});
    }
    name_totals_.Clear();
    const size_t kept = std::min(items_.size(), kTopItems);
    std::partial_sort(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(kept),
                      items_.end(), [&](const CriticalPathItem& a, const CriticalPathItem& b) {
                        return a.ns != b.ns ? a.ns > b.ns : model_.Str(a.name) < model_.Str(b.name);
                      });
    step->top_items.assign(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(kept));
  }

  std::vector<CategoryTimes> RecordRanks(CriticalPathStep* step) {
    std::vector<CategoryTimes> own;
    step->first_rank = static_cast<uint32_t>(result_->ranks.size());
    int64_t most = -1;
    for (uint32_t m = 0; m < graph_.members.size(); ++m) {
      const PathMember& member = graph_.members[m];
      CriticalPathRank rank;
      rank.rank = member.rank;
      rank.step_id = member.step_id;
      rank.begin_ns = member.begin_ns;
      rank.end_ns = member.end_ns;
      WalkMemberPath(graph_, plan_, pass_, m, &walked_);
      rank.own = Attribute(walked_);
      rank.on_job_path_ns = on_path_[m];
      if (rank.on_job_path_ns > most) {
        most = rank.on_job_path_ns;
        step->critical_rank = member.rank;
      }
      own.push_back(rank.own);
      result_->ranks.push_back(rank);
    }
    step->rank_count = static_cast<uint32_t>(graph_.members.size());
    return own;
  }

  void Project(const std::vector<WhatIfSpec>& what_ifs, const MemberBusy& busy,
               CriticalPathStep* step) {
    for (size_t i = 0; i < what_ifs.size(); ++i) {
      PathWeights weights;
      int64_t projected = step->duration_ns();
      if (WeightsFor(graph_, model_, {what_ifs[i]}, busy, &selected_, &weights)) {
        projected =
            ProjectedStepNs(graph_, SolveProjection(graph_, plan_, weights, pass_, &projection_));
        result_->what_ifs[i].applicable = true;
      }
      step->projected_ns.push_back(projected);
      result_->what_ifs[i].step_ns += step->duration_ns();
      result_->what_ifs[i].projected_ns += projected;
    }
  }

  static constexpr size_t kTopItems = 5;
  const model::Model& model_;
  const RunIndex& index_;
  CriticalPathResult* result_ = nullptr;
  GraphBuilder builder_;
  PathGraph graph_;
  PathPlan plan_;
  ForwardPass pass_, projection_;
  std::vector<WalkedSegment> walked_;
  std::vector<int64_t> on_path_;
  std::vector<uint32_t> hop_owners_;
  // Per thread row and per name: the job path's time in this step (a path is a few thousand
  // pieces; a dense table with the keys touched beats a hash map per step).
  DenseTotals thread_totals_, name_totals_;
  std::vector<CriticalPathItem> items_;
  std::vector<uint8_t> on_path_owner_;  // per PathOwner: the job's path runs through it
  std::vector<int64_t> latest_;         // per node: latest finish (SolveLatest)
  std::vector<uint8_t> selected_;
};

}  // namespace

CriticalPathSegment CriticalPathResult::Segment(const model::Model& model,
                                                const CriticalPathStep& step, uint32_t i) const {
  CriticalPathSegment segment;
  segment.begin_ns = segments.begin_ns[i];
  segment.end_ns =
      i + 1 < step.first_segment + step.segment_count ? segments.begin_ns[i + 1] : step.end_ns;
  const uint8_t kind = segments.kind[i];
  segment.category = static_cast<PathCategory>(kind & 0x3f);
  segment.latency = (kind & CriticalPathSegments::kLatency) != 0;
  const bool self = (kind & (CriticalPathSegments::kLatency | CriticalPathSegments::kGap)) == 0;
  segment.slice = self ? segments.ref[i] : model::kNoRow;
  segment.thread = self ? model.ThreadOfSlice(segments.ref[i]) : segments.ref[i];
  segment.rank = segment.thread == model::kNoRow
                     ? -1
                     : model.processes.rank[model.ProcessOfThread(segment.thread)];
  return segment;
}

const WhatIfSummary* CriticalPathResult::Find(WhatIfKind kind) const {
  for (const WhatIfSummary& summary : what_ifs) {
    if (summary.spec.kind == kind) return &summary;
  }
  return nullptr;
}

struct CriticalPathSolver::State {
  State(const model::Model& model, const AnalysisSet& set)
      : index(model, set),
        groups(GroupsOf(model, set, index, &whole_run)),
        what_ifs(StandardWhatIfs(TopComputeName(model, index))),
        solver(model, index) {}
  bool whole_run = false;
  const RunIndex index;
  const std::vector<StepGroup> groups;
  const std::vector<WhatIfSpec> what_ifs;
  StepSolver solver;
};

CriticalPathSolver::CriticalPathSolver(const model::Model& model, const AnalysisSet& set)
    : model_(model), state_(std::make_unique<State>(model, set)) {}

CriticalPathSolver::~CriticalPathSolver() = default;

bool CriticalPathSolver::whole_run() const {
  return state_->whole_run;
}

size_t CriticalPathSolver::size() const {
  return state_->groups.size();
}

bool CriticalPathSolver::HasPath(size_t step) const {
  return HasPathThread(model_, state_->groups[step].members.front().thread);
}

CriticalPathResult CriticalPathSolver::EmptyResult(bool with_slice_slack) const {
  CriticalPathResult result;
  result.computed = true;
  result.whole_run = state_->whole_run;
  for (const WhatIfSpec& spec : state_->what_ifs) result.what_ifs.push_back({spec});
  if (with_slice_slack) {
    model::AssignOnHugePages(result.slice_slack, model_.slices.size(),
                             std::numeric_limits<float>::infinity());
  }
  return result;
}

bool CriticalPathSolver::Solve(size_t step, CriticalPathResult* result) {
  return state_->solver.Solve(state_->groups[step], state_->what_ifs, result);
}

int64_t CriticalPathSolver::Project(size_t step, const std::vector<WhatIfSpec>& specs) {
  return state_->solver.ProjectOnly(state_->groups[step], specs);
}

size_t CountCriticalPathSteps(const model::Model& model, const AnalysisSet& set) {
  if (set.steps.steps.empty()) {
    // Without steps the "steps" are the processes' spans, which the run index chooses.
    const CriticalPathSolver solver(model, set);
    size_t count = 0;
    for (size_t i = 0; i < solver.size(); ++i) count += solver.HasPath(i);
    return count;
  }
  size_t count = 0;
  for (const StepGroup& group : GroupSteps(model, set)) {
    count += HasPathThread(model, group.members.front().thread);
  }
  return count;
}

CriticalPathResult ComputeCriticalPath(const model::Model& model, const AnalysisSet& so_far) {
  CriticalPathSolver solver(model, so_far);
  CriticalPathResult result = solver.EmptyResult(true);
  // A path holds about one piece per event on it, so rarely more pieces than the run has
  // slices: reserved once, the columns never double past it (a doubling held the old and the
  // new column at once, most of this analysis's peak), and pages never written cost nothing.
  CriticalPathSegments& segments = result.segments;
  model::ReserveOnHugePages(segments.begin_ns, model.slices.size());
  model::ReserveOnHugePages(segments.ref, model.slices.size());
  model::ReserveOnHugePages(segments.kind, model.slices.size());
  for (size_t i = 0; i < solver.size(); ++i) {
    if (solver.HasPath(i)) solver.Solve(i, &result);
  }
  return result;
}

std::vector<int64_t> ProjectSteps(CriticalPathSolver& solver,
                                  const std::vector<WhatIfSpec>& specs) {
  std::vector<int64_t> projected;
  for (size_t i = 0; i < solver.size(); ++i) projected.push_back(solver.Project(i, specs));
  return projected;
}

std::vector<int64_t> ProjectSteps(const model::Model& model, const AnalysisSet& set,
                                  const std::vector<WhatIfSpec>& specs) {
  CriticalPathSolver solver(model, set);
  return ProjectSteps(solver, specs);
}

}  // namespace aiprof::analysis
