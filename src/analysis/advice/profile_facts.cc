#include "analysis/advice/profile_facts.h"

#include <algorithm>
#include <bit>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/op_statistics.h"

namespace aiprof::analysis::advice {
namespace {

struct ShapeSums {
  uint64_t count = 0;
  int64_t total_ns = 0;
  double blocks_weighted = 0, blocks_ns = 0;
  double occupancy_weighted = 0, occupancy_ns = 0;
  double theoretical_weighted = 0, theoretical_ns = 0;
  std::unordered_map<model::StringId, int64_t> limit_ns;  // per occupancy limit name
};

// Device idle from `t` until the next busy interval of `busy` (merged) starts: 0 if busy
// at `t`, kNoLaterDeviceWork if nothing starts later.
int64_t DeviceIdleAfter(const std::vector<Interval>& busy, int64_t t) {
  auto next = std::upper_bound(busy.begin(), busy.end(), t,
                               [](int64_t time, const Interval& i) { return time < i.begin; });
  if (next != busy.begin() && std::prev(next)->end > t) return 0;  // still busy
  return next == busy.end() ? kNoLaterDeviceWork : next->begin - t;
}

void CollectOperators(const model::Model& model, ProfileFacts* facts) {
  const model::SliceTable& s = model.slices;
  ComputeTasks tasks = SelectComputeTasks(model);
  facts->device_operators = tasks.source == TaskSource::kDevice;
  const std::vector<int64_t> self = TaskSelfTimes(model, tasks.rows);
  std::unordered_map<model::StringId, OperatorTime> by_name;
  for (size_t i = 0; i < tasks.rows.size(); ++i) {
    const uint32_t row = tasks.rows[i];
    OperatorTime& op = by_name[s.name[row]];
    ++op.count;
    op.self_ns += self[i];
    op.mean_ns += static_cast<double>(s.dur(row));  // a sum until divided below
  }
  facts->operators.reserve(by_name.size());
  for (auto& [name, op] : by_name) {
    op.name = std::string(model.Str(name));
    op.mean_ns /= static_cast<double>(op.count);
    facts->operator_self_ns += op.self_ns;
    facts->operator_count += op.count;
    facts->operators.push_back(std::move(op));
  }
  std::sort(facts->operators.begin(), facts->operators.end(),
            [](const OperatorTime& a, const OperatorTime& b) {
              return a.self_ns != b.self_ns ? a.self_ns > b.self_ns : a.name < b.name;
            });
}

}  // namespace

bool IsHostSyncName(std::string_view name) {
  return name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" ||
         name == "cudaEventSynchronize" || name == "cuCtxSynchronize" ||
         name == "cuStreamSynchronize" || name == "cuEventSynchronize" || name == "aten::item" ||
         name == "aten::_local_scalar_dense";
}

ProfileFacts CollectProfileFacts(const model::Model& model,
                                 const std::vector<model::CommOp>& communication) {
  ProfileFacts facts;
  CollectOperators(model, &facts);

  const model::SliceTable& s = model.slices;
  // Per string id: 1 a runtime/driver category, 2 the kernel category, 3 a sync name,
  // 4 a device copy or set category.
  std::vector<uint8_t> kind(model.strings.size(), 0);
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    if (text == "cuda_runtime" || text == "cuda_driver") kind[id] = 1;
    if (text == "kernel") kind[id] = 2;
    if (IsHostSyncName(text)) kind[id] = 3;
    if (text == "gpu_memcpy" || text == "gpu_memset") kind[id] = 4;
  }
  std::vector<Interval> device_busy;  // kernels, copies and sets of every GPU
  const model::StringId blocks_key = model.strings.Find("blocks per SM");
  const model::StringId occupancy_key = model.strings.Find("est. achieved occupancy %");
  const model::StringId theoretical_key = model.strings.Find("theoretical occupancy %");
  const model::StringId limit_key = model.strings.Find("occupancy limit");
  std::unordered_map<model::StringId, SyncCall> sync;
  std::unordered_map<model::StringId, ShapeSums> shapes;
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint8_t category = kind[s.category[row]];
    if (category == 1) facts.has_runtime_calls = true;
    const uint32_t parent = s.parent[row];
    if (kind[s.name[row]] == 3 && (parent == model::kNoRow || kind[s.name[parent]] != 3)) {
      // Outermost sync slice only: aten::item contains aten::_local_scalar_dense, which
      // contains cudaStreamSynchronize; the wait is counted once, under the outermost name.
      SyncCall& call = sync[s.name[row]];
      ++call.count;
      call.total_ns += s.dur(row);
      call.max_ns = std::max(call.max_ns, s.dur(row));
      call.waits.push_back({s.ts[row], s.end[row], 0});  // idle after: once the union is known
    }
    if (category == 2 || category == 4) device_busy.push_back({s.ts[row], s.end[row]});
    if (category != 2) continue;
    facts.kernel_total_ns += s.dur(row);
    ShapeSums& sums = shapes[s.name[row]];
    ++sums.count;
    sums.total_ns += s.dur(row);
    const uint32_t args = s.args[row];
    const double dur = static_cast<double>(s.dur(row));
    if (const auto theoretical = model.args.Number(args, theoretical_key)) {
      sums.theoretical_weighted += *theoretical * dur;
      sums.theoretical_ns += dur;
    }
    if (const auto limit = model.args.TextOfType(args, limit_key, model::ArgType::kString)) {
      sums.limit_ns[*limit] += s.dur(row);
    }
    if (const auto blocks = model.args.Number(args, blocks_key)) {
      sums.blocks_weighted += *blocks * dur;
      sums.blocks_ns += dur;
    }
    if (const auto occupancy = model.args.Number(args, occupancy_key)) {
      sums.occupancy_weighted += *occupancy * dur;
      sums.occupancy_ns += dur;
    }
  }
  MergeInPlace(device_busy);
  facts.has_device_activity = !device_busy.empty();
  for (auto& [name, call] : sync) {
    call.name = std::string(model.Str(name));
    for (SyncWait& wait : call.waits) {
      wait.device_idle_after_ns = DeviceIdleAfter(device_busy, wait.end_ns);
    }
    std::sort(call.waits.begin(), call.waits.end(),
              [](const SyncWait& a, const SyncWait& b) { return a.begin_ns < b.begin_ns; });
    facts.sync_calls.push_back(std::move(call));
  }
  std::sort(facts.sync_calls.begin(), facts.sync_calls.end(),
            [](const SyncCall& a, const SyncCall& b) { return a.total_ns > b.total_ns; });
  for (const auto& [name, sums] : shapes) {
    KernelShape shape;
    shape.name = std::string(model.Str(name));
    shape.count = sums.count;
    shape.total_ns = sums.total_ns;
    if (sums.blocks_ns > 0) shape.blocks_per_sm = sums.blocks_weighted / sums.blocks_ns;
    if (sums.occupancy_ns > 0) shape.occupancy_pct = sums.occupancy_weighted / sums.occupancy_ns;
    if (sums.theoretical_ns > 0) {
      shape.theoretical_occupancy_pct = sums.theoretical_weighted / sums.theoretical_ns;
    }
    const auto limit =
        std::max_element(sums.limit_ns.begin(), sums.limit_ns.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (limit != sums.limit_ns.end()) shape.occupancy_limit = std::string(model.Str(limit->first));
    facts.kernels.push_back(std::move(shape));
  }
  std::map<std::string, CollectiveTime> collectives;
  for (const model::CommOp& op : communication) {
    if (op.slice >= s.size()) continue;
    std::string name = std::string(model::CommOpTypeName(op.type));
    if (!op.backend.empty()) name += " (" + op.backend + ")";
    CollectiveTime& time = collectives[name];
    ++time.count;
    time.total_ns += s.dur(op.slice);
    if (op.bytes > 0) time.bytes += op.bytes;
  }
  for (auto& [name, time] : collectives) {
    time.name = name;
    facts.collectives.push_back(std::move(time));
  }
  std::sort(
      facts.collectives.begin(), facts.collectives.end(),
      [](const CollectiveTime& a, const CollectiveTime& b) { return a.total_ns > b.total_ns; });
  std::sort(facts.kernels.begin(), facts.kernels.end(),
            [](const KernelShape& a, const KernelShape& b) { return a.total_ns > b.total_ns; });
  return facts;
}

}  // namespace aiprof::analysis::advice
