// The top-level members of a Kineto trace other than traceEvents: the time base
// (baseTimeNanoseconds), the devices (deviceProperties), the job (distributedInfo), the host
// (host_name) and the metadata torch.profiler's add_metadata wrote, read into the model the
// way the raw importers record them: a process's metadata JSON in the shape info.json has
// (hostname, rank, world_size, metadata.distributed, metadata.user.<key>), so
// model::ReadRankIdentity and the exporters read a Kineto trace's rank and groups exactly as
// an aiprof run's; and one Model::devices row per device.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::model::kineto {

struct TraceHeader {
  bool has_base = false;
  int64_t base_ns = 0;  // baseTimeNanoseconds: event times are µs after it
  std::string host_name;
  // The trace was written by aiprof's own exporter (its "aiprof" member): the encodings of
  // that writer (extra lanes in tids, sort indices ×1000, counter scopes in names) are read
  // back.
  bool written_by_aiprof = false;
  uint64_t aiprof_dropped_events = 0;
  nlohmann::json distributed;  // distributedInfo (null when absent)
  std::vector<nlohmann::json> devices;
  nlohmann::json user = nlohmann::json::object();  // other members: add_metadata's keys
  std::vector<std::string> problems;

  // One top-level member (`value` is its JSON text).
  void Add(std::string_view key, std::string_view value);
};

// info.json-shaped metadata for the trace's host processes: hostname, rank, world size,
// torch.distributed's backend and groups under metadata.distributed, and the user's keys
// under metadata.user.<key> (written back as top-level keys by the Kineto writer).
std::string ProcessMetadataJson(const TraceHeader& header, const std::string& trace_path);
int32_t HeaderRank(const TraceHeader& header);

// Model::devices rows for the listed devices; `device_process(id)` gives the device's
// process row (created when the trace has no event on it).
template <typename DeviceProcess>
void AddDevices(const TraceHeader& header, Model& model, DeviceProcess device_process);

DeviceProperties ReadDeviceProperties(const nlohmann::json& device, StringPool& strings);

template <typename DeviceProcess>
void AddDevices(const TraceHeader& header, Model& model, DeviceProcess device_process) {
  for (const nlohmann::json& device : header.devices) {
    if (!device.is_object() || !device.contains("id") || !device["id"].is_number_integer()) {
      continue;
    }
    DeviceProperties row = ReadDeviceProperties(device, model.strings);
    row.process = device_process(device["id"].get<int32_t>());
    if (model.DeviceOfProcess(row.process) == nullptr) model.devices.push_back(row);
  }
}

}  // namespace aiprof::model::kineto
