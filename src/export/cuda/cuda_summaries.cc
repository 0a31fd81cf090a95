#include "export/cuda/cuda_summaries.h"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <unordered_map>

namespace aiprof::exporter {
namespace {

using model::Model;

// A slice's argument by key, or nothing.
struct Args {
  const Model& model;
  uint32_t set;

  std::optional<uint64_t> Raw(std::string_view key) const {
    return model.args.Bits(set, model.strings.Find(key));
  }
  void UInt(SummaryWriter& w, std::string_view key) const {
    auto value = Raw(key);
    if (value) {
      w.Unsigned(*value);
    } else {
      w.NotApplicable();
    }
  }
  void Double(SummaryWriter& w, std::string_view key, int decimals = 3) const {
    auto value = Raw(key);
    if (value) {
      w.Fixed(std::bit_cast<double>(*value), decimals);
    } else {
      w.NotApplicable();
    }
  }
  std::optional<std::string_view> Text(std::string_view key) const {
    auto value = Raw(key);
    if (!value) return std::nullopt;
    return model.Str(static_cast<model::StringId>(*value));
  }
};

void TextOrNotApplicable(SummaryWriter& w, std::optional<std::string_view> text) {
  if (text) {
    w.Text(*text);
  } else {
    w.NotApplicable();
  }
}

std::vector<uint32_t> SlicesOf(const Model& model, std::string_view category) {
  std::vector<uint32_t> rows;
  for (uint32_t s = 0; s < model.slices.size(); ++s) {
    if (model.Str(model.slices.category[s]) == category) rows.push_back(s);
  }
  std::sort(rows.begin(), rows.end(),
            [&](uint32_t a, uint32_t b) { return model.slices.ts[a] < model.slices.ts[b]; });
  return rows;
}

int32_t DeviceOf(const Model& model, uint32_t slice) {
  return model.processes.device_id[model.ProcessOfThread(model.ThreadOfSlice(slice))];
}

// Framework operator names by their "External id" (cpu_op slices of the torch importer).
std::unordered_map<uint64_t, std::string_view> OperatorsByExternalId(const Model& model) {
  std::unordered_map<uint64_t, std::string_view> operators;
  for (uint32_t s = 0; s < model.slices.size(); ++s) {
    if (model.Str(model.slices.category[s]) != "cpu_op") continue;
    if (auto id = Args{model, model.slices.args[s]}.Raw("External id")) {
      operators.emplace(*id, model.Str(model.slices.name[s]));
    }
  }
  return operators;
}

uint64_t ParseGridProduct(const std::string& json) {
  uint64_t product = 1;
  bool any = false;
  uint64_t current = 0;
  bool in_number = false;
  for (char c : json) {
    if (c >= '0' && c <= '9') {
      current = current * 10 + static_cast<uint64_t>(c - '0');
      in_number = true;
    } else if (in_number) {
      product *= current;
      any = true;
      current = 0;
      in_number = false;
    }
  }
  return any ? product : 0;
}

// Hardware counter columns (the importer's "metric.<column>" kernel args, CUPTI range
// profiler), in first-seen order: msprof puts the metric group's columns after the fixed ones.
std::vector<std::string_view> MetricColumns(const Model& model,
                                            const std::vector<uint32_t>& kernels) {
  constexpr std::string_view kPrefix = "metric.";
  std::vector<std::string_view> columns;
  for (uint32_t s : kernels) {
    const uint32_t set = model.slices.args[s];
    if (set == 0 || set + 1 >= model.args.set_begin.size()) continue;
    for (uint32_t i = model.args.set_begin[set]; i < model.args.set_begin[set + 1]; ++i) {
      const std::string_view key = model.Str(model.args.key[i]);
      if (key.starts_with(kPrefix) &&
          std::find(columns.begin(), columns.end(), key) == columns.end()) {
        columns.push_back(key);
      }
    }
  }
  return columns;
}

}  // namespace

void WriteCudaKernelDetails(const Model& model, const SummaryTarget& target, uint64_t row_limit) {
  const auto kernels = SlicesOf(model, "kernel");
  if (kernels.empty()) return;
  const auto operators = OperatorsByExternalId(model);
  const auto metric_columns = MetricColumns(model, kernels);
  std::vector<std::string> headers = {"Device_id",
                                      "Model ID",
                                      "Task ID",
                                      "Stream ID",
                                      "Op Name",
                                      "OP Type",
                                      "OP State",
                                      "Task Type",
                                      "Task Start Time(us)",
                                      "Task Duration(us)",
                                      "Task Wait Time(us)",
                                      "Block Num",
                                      "Mix Block Num",
                                      "HF32 Eligible",
                                      "Input Shapes",
                                      "Input Data Types",
                                      "Input Formats",
                                      "Output Shapes",
                                      "Output Data Types",
                                      "Output Formats",
                                      "Context ID",
                                      "Grid",
                                      "Block",
                                      "Registers Per Thread",
                                      "Shared Memory(B)",
                                      "Theoretical Occupancy(%)",
                                      "Est. Achieved Occupancy(%)",
                                      "Graph ID",
                                      "Graph Node ID"};
  for (std::string_view column : metric_columns) headers.emplace_back(column.substr(7));
  SummaryWriter w(target, "kernel_details", std::move(headers), kernels.size(), row_limit);
  std::map<int32_t, int64_t> previous_end;  // per device
  for (uint32_t s : kernels) {
    const Args args{model, model.slices.args[s]};
    const int32_t device = DeviceOf(model, s);
    auto last = previous_end.find(device);
    const int64_t wait_ns =
        last == previous_end.end() ? 0 : std::max<int64_t>(0, model.slices.ts[s] - last->second);
    previous_end[device] =
        std::max(last == previous_end.end() ? 0 : last->second, model.slices.end[s]);
    std::optional<std::string_view> op_type;
    if (auto id = args.Raw("External id")) {
      if (auto op = operators.find(*id); op != operators.end()) op_type = op->second;
    }
    const std::optional<std::string_view> grid = args.Text("grid");
    w.Number(device).NotApplicable();
    args.UInt(w, "correlation");
    args.UInt(w, "stream");
    w.Text(model.Str(model.slices.name[s]));
    TextOrNotApplicable(w, op_type);
    w.NotApplicable().PlainText("KERNEL").Micros(model.slices.ts[s]).Micros(model.slices.dur(s));
    w.Micros(wait_ns).Unsigned(grid ? ParseGridProduct(std::string(*grid)) : 0).Unsigned(0);
    w.NotApplicable();
    for (int empty = 0; empty < 6; ++empty) w.PlainText("");
    args.UInt(w, "context");
    TextOrNotApplicable(w, grid);
    TextOrNotApplicable(w, args.Text("block"));
    args.UInt(w, "registers per thread");
    args.UInt(w, "shared memory");
    args.Double(w, "theoretical occupancy %", 2);
    args.UInt(w, "est. achieved occupancy %");
    args.UInt(w, "graph id");
    args.UInt(w, "graph node id");
    for (std::string_view column : metric_columns) args.Double(w, column);
    w.EndRow();
  }
}

void WriteCudaTaskTime(const Model& model, const SummaryTarget& target, uint64_t row_limit) {
  struct Task {
    uint32_t slice;
    const char* type;
  };
  std::vector<Task> tasks;
  for (auto [category, type] : {std::pair{"kernel", "KERNEL"}, std::pair{"gpu_memcpy", "MEMCPY"},
                                std::pair{"gpu_memset", "MEMSET"}}) {
    for (uint32_t s : SlicesOf(model, category)) tasks.push_back({s, type});
  }
  if (tasks.empty()) return;
  std::sort(tasks.begin(), tasks.end(), [&](const Task& a, const Task& b) {
    return model.slices.ts[a.slice] < model.slices.ts[b.slice];
  });
  SummaryWriter w(target, "task_time",
                  {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id",
                   "task_time(us)", "task_start(us)", "task_stop(us)"},
                  tasks.size(), row_limit);
  for (const Task& task : tasks) {
    const uint32_t s = task.slice;
    const Args args{model, model.slices.args[s]};
    w.Number(DeviceOf(model, s));
    if (std::string_view(task.type) == "KERNEL") {
      w.Text(model.Str(model.slices.name[s]));
    } else {
      w.NotApplicable();
    }
    w.PlainText(task.type);
    args.UInt(w, "stream");
    args.UInt(w, "correlation");
    w.Micros(model.slices.dur(s)).Micros(model.slices.ts[s]).Micros(model.slices.end[s]).EndRow();
  }
}

void WriteCudaMemcpy(const Model& model, const SummaryTarget& target, uint64_t row_limit) {
  const auto copies = SlicesOf(model, "gpu_memcpy");
  if (copies.empty()) return;
  SummaryWriter w(
      target, "memcpy",
      {"Device_id", "Stream ID", "Correlation ID", "Direction", "Source Memory",
       "Destination Memory", "Size(B)", "Start Time(us)", "Duration(us)", "Bandwidth(GB/s)"},
      copies.size(), row_limit);
  for (uint32_t s : copies) {
    const Args args{model, model.slices.args[s]};
    // The importer names copies "Memcpy <direction> (<source> -> <destination>)".
    const std::string_view name = model.Str(model.slices.name[s]);
    std::optional<std::string_view> direction, source, destination;
    const size_t open = name.find(" ("), arrow = name.find(" -> ");
    if (name.starts_with("Memcpy ") && open != std::string_view::npos &&
        arrow != std::string_view::npos && name.ends_with(")")) {
      direction = name.substr(7, open - 7);
      source = name.substr(open + 2, arrow - open - 2);
      destination = name.substr(arrow + 4, name.size() - arrow - 5);
    }
    w.Number(DeviceOf(model, s));
    args.UInt(w, "stream");
    args.UInt(w, "correlation");
    TextOrNotApplicable(w, direction);
    TextOrNotApplicable(w, source);
    TextOrNotApplicable(w, destination);
    args.UInt(w, "bytes");
    w.Micros(model.slices.ts[s]).Micros(model.slices.dur(s));
    args.Double(w, "memory bandwidth (GB/s)");
    w.EndRow();
  }
}

void WriteCudaDeviceMemory(const Model& model, const SummaryTarget& target, uint64_t row_limit) {
  // event "app": this process's allocations (CUPTI MEMORY2); "device": the whole GPU (NVML).
  struct Row {
    int64_t ts;
    uint32_t device;
    const char* event;
    double bytes;
  };
  std::vector<Row> rows;
  for (uint32_t series = 0; series < model.counter_series.size(); ++series) {
    const std::string_view name = model.Str(model.counter_series.name[series]);
    const char* event = name == "Device Memory Allocated" ? "app"
                        : name == "GPU Memory Used"       ? "device"
                                                          : nullptr;
    if (event == nullptr) continue;
    for (size_t i = 0; i < model.counters.size(); ++i) {
      if (model.counters.series[i] != series) continue;
      rows.push_back({model.counters.ts[i], model.counter_series.instance[series], event,
                      model.counters.value[i]});
    }
  }
  if (rows.empty()) return;
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ts < b.ts; });
  SummaryWriter w(target, "npu_mem",
                  {"Device_id", "event", "ddr(KB)", "hbm(KB)", "memory(KB)", "timestamp(us)"},
                  rows.size(), row_limit);
  for (const Row& row : rows) {
    const double kb = row.bytes / 1024.0;
    w.Unsigned(row.device).PlainText(row.event).Fixed(0.0, 3).Fixed(kb, 3).Fixed(kb, 3);
    w.Micros(row.ts).EndRow();
  }
}

void WriteCudaSummaries(const Model& model, const SummaryTarget& target, uint64_t row_limit) {
  WriteCudaKernelDetails(model, target, row_limit);
  WriteCudaTaskTime(model, target, row_limit);
  WriteCudaMemcpy(model, target, row_limit);
  WriteCudaDeviceMemory(model, target, row_limit);
}

}  // namespace aiprof::exporter
