#include "export/csv/host_summaries.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"
#include "format/records_host.h"

namespace aiprof::exporter {
namespace {

namespace names = format::host_counters;
using format::CounterScope;

struct Mean {
  double sum = 0;
  uint64_t count = 0;
  void Add(double value) {
    sum += value;
    ++count;
  }
  double Value() const { return count == 0 ? 0.0 : sum / static_cast<double>(count); }
};

// Mean of every (counter name, scope, instance) series.
using SeriesKey = std::tuple<std::string, uint16_t, uint32_t>;

std::map<SeriesKey, Mean> MeansBySeries(const model::Model& m) {
  std::map<SeriesKey, Mean> means;
  std::vector<SeriesKey> keys(m.counter_series.size());
  for (uint32_t s = 0; s < keys.size(); ++s) {
    keys[s] = {std::string(m.Str(m.counter_series.name[s])), m.counter_series.scope[s],
               m.counter_series.instance[s]};
  }
  for (size_t i = 0; i < m.counters.size(); ++i)
    means[keys[m.counters.series[i]]].Add(m.counters.value[i]);
  return means;
}

const Mean* Find(const std::map<SeriesKey, Mean>& means, std::string_view name, CounterScope scope,
                 uint32_t instance = 0) {
  auto it = means.find({std::string(name), static_cast<uint16_t>(scope), instance});
  return it == means.end() ? nullptr : &it->second;
}

void MeanCell(SummaryWriter& w, const Mean* mean) {
  if (mean == nullptr) {
    w.NotApplicable();
  } else {
    w.Real(mean->Value());
  }
}

// Process names: the sampler's metadata lists every process of the app's tree; a process
// with its own runtime file also has a name in the process table.
std::map<uint32_t, std::string> ProcessNames(const model::Model& m) {
  std::map<uint32_t, std::string> names_by_pid;
  for (size_t p = 0; p < m.processes.size(); ++p) {
    if (m.processes.device_id[p] >= 0) continue;
    auto metadata = nlohmann::json::parse(m.processes.metadata[p], nullptr, false);
    if (metadata.is_object() && metadata.contains("processes") &&
        metadata["processes"].is_object()) {
      for (auto& [pid, info] : metadata["processes"].items()) {
        if (info.is_object() && info.contains("name") && info["name"].is_string()) {
          names_by_pid.emplace(static_cast<uint32_t>(std::stoul(pid)), info["name"]);
        }
      }
    }
  }
  for (size_t p = 0; p < m.processes.size(); ++p) {
    if (m.processes.device_id[p] >= 0) continue;
    std::string_view name = m.Str(m.processes.name[p]);
    if (!name.empty()) names_by_pid.try_emplace(m.processes.pid[p], name);
  }
  return names_by_pid;
}

void WriteCpuUsage(const std::map<SeriesKey, Mean>& means, const SummaryTarget& target) {
  static constexpr std::string_view kColumns[] = {names::kCpuUser,    names::kCpuSys,
                                                  names::kCpuIowait,  names::kCpuIrq,
                                                  names::kCpuSoftirq, names::kCpuIdle};
  std::set<uint32_t> cpus;
  for (const auto& [key, mean] : means) {
    if (std::get<1>(key) == static_cast<uint16_t>(CounterScope::kCpu) &&
        std::get<0>(key) == names::kCpuUser) {
      cpus.insert(std::get<2>(key));
    }
  }
  bool has_machine = Find(means, names::kCpuUser, CounterScope::kMachine) != nullptr;
  if (!has_machine && cpus.empty()) return;
  SummaryWriter w(target, "cpu_usage",
                  {"Cpu Type", "User(%)", "Sys(%)", "IoWait(%)", "Irq(%)", "Soft(%)", "Idle(%)"},
                  cpus.size() + 1);
  auto row = [&](const std::string& label, CounterScope scope, uint32_t instance) {
    w.Text(label);
    for (std::string_view column : kColumns) {
      MeanCell(w, Find(means, column, scope, instance));
    }
    w.EndRow();
  };
  if (has_machine) row("Avg", CounterScope::kMachine, 0);
  for (uint32_t cpu : cpus) row("CPU" + std::to_string(cpu), CounterScope::kCpu, cpu);
}

void WriteSysMem(const std::map<SeriesKey, Mean>& means, const SummaryTarget& target) {
  static constexpr std::string_view kColumns[] = {
      names::kMemTotal,     names::kMemFree,        names::kMemBuffers,
      names::kMemCached,    names::kMemShared,      names::kMemCommitLimit,
      names::kMemCommitted, names::kHugePagesTotal, names::kHugePagesFree};
  if (Find(means, names::kMemTotal, CounterScope::kMachine) == nullptr) return;
  SummaryWriter w(
      target, "sys_mem",
      {"Memory Total", "Memory Free", "Buffers", "Cached", "Share Memory", "Commit Limit",
       "Committed AS", "Huge Pages Total(pages)", "Huge Pages Free(pages)"},
      1);
  for (std::string_view column : kColumns) {
    MeanCell(w, Find(means, column, CounterScope::kMachine));
  }
  w.EndRow();
}

std::vector<uint32_t> ProcessesWith(const std::map<SeriesKey, Mean>& means, std::string_view name) {
  std::vector<uint32_t> pids;
  for (const auto& [key, mean] : means) {
    if (std::get<1>(key) == static_cast<uint16_t>(CounterScope::kProcess) &&
        std::get<0>(key) == name) {
      pids.push_back(std::get<2>(key));
    }
  }
  return pids;
}

void WriteProcessCpuUsage(const std::map<SeriesKey, Mean>& means,
                          const std::map<uint32_t, std::string>& process_names,
                          const SummaryTarget& target) {
  std::vector<uint32_t> pids = ProcessesWith(means, names::kProcCpu);
  if (pids.empty()) return;
  SummaryWriter w(target, "process_cpu_usage", {"PID", "Name", "CPU(%)"}, pids.size());
  for (uint32_t pid : pids) {
    auto name = process_names.find(pid);
    w.Unsigned(pid).Text(name == process_names.end() ? "N/A" : name->second);
    w.Real(Find(means, names::kProcCpu, CounterScope::kProcess, pid)->Value()).EndRow();
  }
}

void WriteProcessMem(const std::map<SeriesKey, Mean>& means,
                     const std::map<uint32_t, std::string>& process_names,
                     const SummaryTarget& target) {
  std::vector<uint32_t> pids = ProcessesWith(means, names::kProcMemSize);
  if (pids.empty()) return;
  SummaryWriter w(target, "process_mem",
                  {"PID", "Name", "Size(pages)", "Resident(pages)", "Shared(pages)"}, pids.size());
  for (uint32_t pid : pids) {
    auto name = process_names.find(pid);
    w.Unsigned(pid).Text(name == process_names.end() ? "N/A" : name->second);
    for (std::string_view column :
         {names::kProcMemSize, names::kProcMemResident, names::kProcMemShared}) {
      MeanCell(w, Find(means, column, CounterScope::kProcess, pid));
    }
    w.EndRow();
  }
}

}  // namespace

void WriteHostSummaries(const model::Model& model, const SummaryTarget& target) {
  if (model.counters.size() == 0) return;
  std::map<SeriesKey, Mean> means = MeansBySeries(model);
  std::map<uint32_t, std::string> process_names = ProcessNames(model);
  WriteCpuUsage(means, target);
  WriteProcessCpuUsage(means, process_names, target);
  WriteSysMem(means, target);
  WriteProcessMem(means, process_names, target);
}

}  // namespace aiprof::exporter
