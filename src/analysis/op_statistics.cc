#include "analysis/op_statistics.h"

#include <algorithm>
#include <unordered_map>

#include "model/framework_operators.h"

namespace aiprof::analysis {

bool IsDeviceTaskCategory(std::string_view category) {
  return category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset";
}

ComputeTasks SelectComputeTasks(const model::Model& model) {
  const model::SliceTable& s = model.slices;
  // Category ids are compared once, not per row.
  std::vector<uint8_t> kind(model.strings.size(), 0);  // 1 device task, 2 framework op
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    if (IsDeviceTaskCategory(text)) kind[id] = 1;
    if (text == "cpu_op") kind[id] = 2;
  }
  ComputeTasks device, framework;
  for (uint32_t row = 0; row < s.size(); ++row) {
    uint8_t k = kind[s.category[row]];
    if (k == 1) device.rows.push_back(row);
    if (k == 2) framework.rows.push_back(row);
  }
  ComputeTasks chosen = !device.rows.empty() ? std::move(device) : std::move(framework);
  if (chosen.rows.empty()) return chosen;
  chosen.source =
      kind[s.category[chosen.rows[0]]] == 1 ? TaskSource::kDevice : TaskSource::kFramework;
  if (!std::is_sorted(chosen.rows.begin(), chosen.rows.end(),
                      [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; })) {
    std::stable_sort(chosen.rows.begin(), chosen.rows.end(),
                     [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
  }
  return chosen;
}

std::string_view TaskTypeOf(const model::Model& model, uint32_t slice) {
  std::string_view category = model.Str(model.slices.category[slice]);
  if (category == "kernel") return "KERNEL";
  if (category == "gpu_memcpy") return "MEMCPY";
  if (category == "gpu_memset") return "MEMSET";
  return "CPU";
}

std::vector<int64_t> TaskSelfTimes(const model::Model& model, const std::vector<uint32_t>& rows) {
  const model::SliceTable& s = model.slices;
  std::vector<int64_t> self(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) self[i] = s.dur(rows[i]);
  const model::StringId cpu_op = model.strings.Find("cpu_op");
  const model::StringId annotation = model.strings.Find("user_annotation");
  auto framework = [&](uint32_t row) {
    return s.category[row] == cpu_op || s.category[row] == annotation;
  };
  if (std::none_of(rows.begin(), rows.end(), framework)) return self;  // kernels do not nest
  // Framework operators: torch's self time, from the one nesting of the operators.
  const model::FrameworkOperators operators = model::FindFrameworkOperators(model);
  const std::vector<int64_t> operator_self = model::OperatorSelfTimes(model, operators);
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t index = operators.IndexOf(rows[i]);
    if (index != model::kNoRow) self[i] = operator_self[index];
  }
  return self;
}

std::vector<NameStatistics> StatisticsByNameAndGroup(const model::Model& model,
                                                     const std::vector<uint32_t>& rows,
                                                     const std::vector<uint32_t>& groups,
                                                     const std::vector<int64_t>* self_times) {
  const model::SliceTable& s = model.slices;
  std::vector<NameStatistics> out;
  std::unordered_map<uint64_t, uint32_t> index;
  index.reserve(1024);
  for (size_t i = 0; i < rows.size(); ++i) {
    uint32_t row = rows[i];
    uint64_t key = (uint64_t{s.name[row]} << 32) | groups[i];
    auto [it, inserted] = index.emplace(key, static_cast<uint32_t>(out.size()));
    if (inserted) {
      out.emplace_back();
      out.back().name = s.name[row];
      out.back().group = groups[i];
    }
    NameStatistics& st = out[it->second];
    int64_t dur = s.end[row] - s.ts[row];
    ++st.count;
    st.total_ns += dur;
    st.self_ns += self_times != nullptr ? (*self_times)[i] : dur;
    st.min_ns = std::min(st.min_ns, dur);
    if (dur > st.max_ns || st.max_row == model::kNoRow) st.max_row = row;
    st.max_ns = std::max(st.max_ns, dur);
    double delta = static_cast<double>(dur) - st.mean_ns;
    st.mean_ns += delta / static_cast<double>(st.count);
    st.m2 += delta * (static_cast<double>(dur) - st.mean_ns);
  }
  std::sort(out.begin(), out.end(), [&](const NameStatistics& a, const NameStatistics& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return model.Str(a.name) < model.Str(b.name);
  });
  return out;
}

double RatioOfSummedTotal(int64_t total_ns, int64_t summed_total_ns) {
  return summed_total_ns > 0
             ? 100.0 * static_cast<double>(total_ns) / static_cast<double>(summed_total_ns)
             : 0.0;
}

std::string DeviceColumnOf(const model::Model& model, uint32_t slice) {
  int32_t device = model.processes.device_id[model.threads.process[model.ThreadOfSlice(slice)]];
  return device >= 0 ? std::to_string(device) : "host";
}

TaskGroups GroupByDeviceAndTaskType(const model::Model& model, const std::vector<uint32_t>& rows) {
  TaskGroups groups;
  groups.group_of_row.resize(rows.size());
  std::unordered_map<std::string, uint32_t> ids;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string key =
        DeviceColumnOf(model, rows[i]) + '\t' + std::string(TaskTypeOf(model, rows[i]));
    auto [it, inserted] = ids.emplace(key, static_cast<uint32_t>(groups.names.size()));
    if (inserted) groups.names.push_back(key);
    groups.group_of_row[i] = it->second;
  }
  return groups;
}

}  // namespace aiprof::analysis
