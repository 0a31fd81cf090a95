#include "export/cuda/cuda_summaries.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <unordered_map>

namespace aiprof::exporter {
namespace {

using model::Model;

constexpr const char* kNotAvailable = "N/A";

// A slice's argument by key, or nothing.
struct Args {
  const Model& model;
  uint32_t set;

  std::optional<uint64_t> Raw(std::string_view key) const {
    if (set == 0 || set + 1 >= model.args.set_begin.size()) return std::nullopt;
    for (uint32_t i = model.args.set_begin[set]; i < model.args.set_begin[set + 1]; ++i) {
      if (model.Str(model.args.key[i]) == key) return model.args.value[i];
    }
    return std::nullopt;
  }
  std::string UInt(std::string_view key) const {
    auto value = Raw(key);
    return value ? std::to_string(*value) : kNotAvailable;
  }
  std::string Double(std::string_view key, int decimals = 3) const {
    auto value = Raw(key);
    if (!value) return kNotAvailable;
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", decimals, std::bit_cast<double>(*value));
    return text;
  }
  std::string Text(std::string_view key) const {
    auto value = Raw(key);
    return value ? std::string(model.Str(static_cast<model::StringId>(*value))) : kNotAvailable;
  }
};

std::string Us(int64_t ns) {
  char text[48];
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t magnitude = ns < 0 ? static_cast<uint64_t>(-ns) : static_cast<uint64_t>(ns);
  std::snprintf(text, sizeof(text), "%s%" PRIu64 ".%03" PRIu64, sign, magnitude / 1000,
                magnitude % 1000);
  return text;
}

std::string Fixed(double value, int decimals = 3) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

// CSV field: quoted when it holds a separator, quote or newline (kernel names do).
std::string Field(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
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

std::string CudaKernelDetailsCsv(const Model& model) {
  const auto kernels = SlicesOf(model, "kernel");
  if (kernels.empty()) return "";
  const auto operators = OperatorsByExternalId(model);
  const auto metric_columns = MetricColumns(model, kernels);
  std::string out =
      "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,"
      "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num,Mix Block Num,"
      "HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
      "Output Data Types,Output Formats,Context ID,Grid,Block,Registers Per Thread,"
      "Shared Memory(B),Theoretical Occupancy(%),Est. Achieved Occupancy(%),Graph ID,"
      "Graph Node ID";
  for (std::string_view column : metric_columns) out += "," + Field(column.substr(7));
  out += "\n";
  std::map<int32_t, int64_t> previous_end;  // per device
  for (uint32_t s : kernels) {
    const Args args{model, model.slices.args[s]};
    const int32_t device = DeviceOf(model, s);
    auto last = previous_end.find(device);
    const std::string wait = last == previous_end.end()
                                 ? "0.000"
                                 : Us(std::max<int64_t>(0, model.slices.ts[s] - last->second));
    previous_end[device] =
        std::max(last == previous_end.end() ? 0 : last->second, model.slices.end[s]);
    std::string op_type = kNotAvailable;
    if (auto id = args.Raw("External id")) {
      if (auto op = operators.find(*id); op != operators.end()) op_type = std::string(op->second);
    }
    const std::string grid = args.Text("grid");
    out += std::to_string(device) + "," + kNotAvailable + "," + args.UInt("correlation") + "," +
           args.UInt("stream") + "," + Field(model.Str(model.slices.name[s])) + "," +
           Field(op_type) + "," + kNotAvailable + ",KERNEL," + Us(model.slices.ts[s]) + "," +
           Us(model.slices.dur(s)) + "," + wait + "," + std::to_string(ParseGridProduct(grid)) +
           ",0," + kNotAvailable + ",,,,,,," + args.UInt("context") + "," + Field(grid) + "," +
           Field(args.Text("block")) + "," + args.UInt("registers per thread") + "," +
           args.UInt("shared memory") + "," + args.Double("theoretical occupancy %", 2) + "," +
           args.UInt("est. achieved occupancy %") + "," + args.UInt("graph id") + "," +
           args.UInt("graph node id");
    for (std::string_view column : metric_columns) out += "," + args.Double(column);
    out += "\n";
  }
  return out;
}

std::string CudaTaskTimeCsv(const Model& model) {
  struct Task {
    uint32_t slice;
    const char* type;
  };
  std::vector<Task> tasks;
  for (auto [category, type] : {std::pair{"kernel", "KERNEL"}, std::pair{"gpu_memcpy", "MEMCPY"},
                                std::pair{"gpu_memset", "MEMSET"}}) {
    for (uint32_t s : SlicesOf(model, category)) tasks.push_back({s, type});
  }
  if (tasks.empty()) return "";
  std::sort(tasks.begin(), tasks.end(), [&](const Task& a, const Task& b) {
    return model.slices.ts[a.slice] < model.slices.ts[b.slice];
  });
  std::string out =
      "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),"
      "task_stop(us)\n";
  for (const Task& task : tasks) {
    const uint32_t s = task.slice;
    const Args args{model, model.slices.args[s]};
    const bool kernel = std::string_view(task.type) == "KERNEL";
    out += std::to_string(DeviceOf(model, s)) + "," +
           (kernel ? Field(model.Str(model.slices.name[s])) : std::string(kNotAvailable)) + "," +
           task.type + "," + args.UInt("stream") + "," + args.UInt("correlation") + "," +
           Us(model.slices.dur(s)) + "," + Us(model.slices.ts[s]) + "," + Us(model.slices.end[s]) +
           "\n";
  }
  return out;
}

std::string CudaMemcpyCsv(const Model& model) {
  const auto copies = SlicesOf(model, "gpu_memcpy");
  if (copies.empty()) return "";
  std::string out =
      "Device_id,Stream ID,Correlation ID,Direction,Source Memory,Destination Memory,Size(B),"
      "Start Time(us),Duration(us),Bandwidth(GB/s)\n";
  for (uint32_t s : copies) {
    const Args args{model, model.slices.args[s]};
    // The importer names copies "Memcpy <direction> (<source> -> <destination>)".
    const std::string_view name = model.Str(model.slices.name[s]);
    std::string direction(kNotAvailable), source(kNotAvailable), destination(kNotAvailable);
    const size_t open = name.find(" ("), arrow = name.find(" -> ");
    if (name.starts_with("Memcpy ") && open != std::string_view::npos &&
        arrow != std::string_view::npos && name.ends_with(")")) {
      direction = name.substr(7, open - 7);
      source = name.substr(open + 2, arrow - open - 2);
      destination = name.substr(arrow + 4, name.size() - arrow - 5);
    }
    out += std::to_string(DeviceOf(model, s)) + "," + args.UInt("stream") + "," +
           args.UInt("correlation") + "," + direction + "," + source + "," + destination + "," +
           args.UInt("bytes") + "," + Us(model.slices.ts[s]) + "," + Us(model.slices.dur(s)) + "," +
           args.Double("memory bandwidth (GB/s)") + "\n";
  }
  return out;
}

std::string CudaDeviceMemoryCsv(const Model& model) {
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
  if (rows.empty()) return "";
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ts < b.ts; });
  std::string out = "Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n";
  for (const Row& row : rows) {
    const std::string kb = Fixed(row.bytes / 1024.0);
    out += std::to_string(row.device) + "," + row.event + ",0.000," + kb + "," + kb + "," +
           Us(row.ts) + "\n";
  }
  return out;
}

void WriteCudaSummaries(const Model& model, const exporter::SummaryTarget& target) {
  const std::pair<const char*, std::string> files[] = {
      {"kernel_details", CudaKernelDetailsCsv(model)},
      {"task_time", CudaTaskTimeCsv(model)},
      {"memcpy", CudaMemcpyCsv(model)},
      {"npu_mem", CudaDeviceMemoryCsv(model)},
  };
  for (const auto& [stem, text] : files) {
    if (text.empty()) continue;
    const std::string path = target.dir + "/" + exporter::OutputFileName(target, stem, ".csv");
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      if (target.errors != nullptr) {
        target.errors->push_back("cannot write " + path + " (check free space and permissions)");
      }
      continue;
    }
    if (target.written != nullptr) target.written->push_back(path);
  }
}

}  // namespace aiprof::exporter
