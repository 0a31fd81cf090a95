// CUDA source records (src/format/records_cuda.h) → the model, in Kineto's shape: a process
// per GPU ("GPU n", sort index 0x1000000 + n), a thread per stream ("stream N"), kernels as
// slices of category "kernel", copies "gpu_memcpy", sets "gpu_memset", waits "cuda_sync";
// runtime/driver calls as "cuda_runtime"/"cuda_driver" slices on the calling host thread;
// "ac2g" flows from each call to the activity it launched (keyed by pid and CUDA correlation
// id); device memory allocations as a per-GPU "Device Memory Allocated" counter.
//
// Arguments use Kineto's names (pytorch-kineto-dynolog.md §3). They are built in Finish():
// an activity's "External id" (its framework operator) arrives in a separate record that
// CUPTI may deliver after the activity, and bandwidths need the file's tick rate.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "format/records_cuda.h"
#include "model/importer.h"
#include "model/importers/cuda/cuda_names.h"
#include "model/importers/cuda/event_waits.h"

namespace aiprof::model {
namespace {

using cuda_names::ApiName;
using cuda_names::CopyKindName;
using cuda_names::Demangle;
using cuda_names::LimitName;
using cuda_names::MemoryKindName;
using cuda_names::SyncName;
using format::CudaRecordKind;

constexpr uint32_t kMaxWords = 5;
// CUPTI_SYNCHRONIZATION_INVALID_VALUE: a field of a SYNCHRONIZATION record that does not apply.
constexpr uint32_t kInvalidId = 0xFFFFFFFFu;

struct DeviceInfo {
  uint32_t sm_count = 0;
  uint32_t max_warps_per_sm = 0;
  uint32_t warp_size = 32;
};

// A device activity or API call whose arguments are built in Finish().
struct Pending {
  uint32_t slice;
  format::RecordHeader header;
  format::ExtWord ext[kMaxWords];
  template <typename T>
  T Ext(uint32_t word) const {
    T value;
    std::memcpy(&value, &ext[word], sizeof(T));
    return value;
  }
};

class CudaImporter : public RecordImporter {
 public:
  bool Handles(uint8_t kind) const override {
    return kind >= static_cast<uint8_t>(CudaRecordKind::kKernel) &&
           kind <= static_cast<uint8_t>(CudaRecordKind::kKernelMetrics) &&
           kind != static_cast<uint8_t>(CudaRecordKind::kCuptiDropped);
  }

  void Import(const format::RecordView& record, ImportContext& context) override {
    const format::RecordHeader& h = *record.header;
    switch (static_cast<CudaRecordKind>(h.kind)) {
      case CudaRecordKind::kKernel:
        if (h.ext_words >= 5) {
          AddDeviceSlice(record, context, KernelName(context, h.arg), "kernel");
        }
        break;
      case CudaRecordKind::kMemcpy:
        if (h.ext_words >= 2) {
          const auto* copy = record.ExtAs<format::CudaCopy>(1);
          const std::string name = std::string("Memcpy ") + CopyKindName(copy->copy_kind) + " (" +
                                   MemoryKindName(copy->src_kind) + " -> " +
                                   MemoryKindName(copy->dst_kind) + ")";
          AddDeviceSlice(record, context, context.Intern(name), "gpu_memcpy");
        }
        break;
      case CudaRecordKind::kMemset:
        if (h.ext_words >= 2) {
          const auto* set = record.ExtAs<format::CudaSet>(1);
          const std::string name = std::string("Memset (") +
                                   MemoryKindName(static_cast<uint8_t>(set->memory_kind)) + ")";
          AddDeviceSlice(record, context, context.Intern(name), "gpu_memset");
        }
        break;
      case CudaRecordKind::kSynchronization:
        if (h.ext_words >= 2) {
          const auto* sync = record.ExtAs<format::CudaSync>(1);
          AddDeviceSlice(record, context, context.Intern(SyncName(sync->type)), "cuda_sync");
        }
        break;
      case CudaRecordKind::kApi:
        AddApi(record, context);
        break;
      case CudaRecordKind::kMemory:
        AddMemory(record, context);
        break;
      case CudaRecordKind::kOverhead:
        if (const auto* overhead = record.ExtAs<format::CudaOverhead>(0)) {
          const uint32_t slice =
              context.AddSlice(context.track(), h.ts, static_cast<int64_t>(overhead->end),
                               context.Intern("CUPTI overhead"), context.Intern("overhead"));
          context.SetSliceArgs(
              slice, context.Args().UInt("overhead kind", overhead->overhead_kind).Commit());
        }
        break;
      case CudaRecordKind::kExternalCorrelation:
        if (const auto* link = record.ExtAs<format::CudaExternalCorrelation>(0)) {
          if (link->external_kind == format::kCudaExternalDeviceMarker) {
            device_marks_[link->correlation] = link->external_id;
            break;
          }
          auto& ids =
              link->external_kind == format::kCudaExternalRange ? range_ids_ : operator_ids_;
          ids[link->correlation] = link->external_id;
        }
        break;
      case CudaRecordKind::kDevice:
        AddDevice(record, context);
        break;
      case CudaRecordKind::kMetricsStatus:
        context.AddInstant(context.track(), h.ts, context.FileString(h.arg),
                           context.Intern("cuda_metrics"),
                           context.Args().UInt("status", h.aux).Commit());
        break;
      case CudaRecordKind::kCudaEvent:
        if (const auto* event = record.ExtAs<format::CudaEventRecord>(0)) {
          const auto* sync = record.ExtAs<format::CudaEventSync>(1);
          record_calls_.Add({event->context, event->event_id, event->correlation, event->stream,
                             sync == nullptr ? 0 : sync->sync_id});
          // Only a device timestamp places the event on the device timeline (mstx ranges).
          if (h.arg != format::kCudaEventHostTime) {
            events_.push_back({h.ts, h.aux, event->stream, event->correlation});
          }
        }
        break;
      case CudaRecordKind::kKernelMetrics:
        AddMetricRange(record, context);
        break;
      case CudaRecordKind::kClockOffset:  // for checking the clock offline (docs/cuda.md)
      case CudaRecordKind::kContext:
      default:
        break;
    }
  }

  void Finish(ImportContext& context, uint64_t) override {
    const double ns_per_tick = NsPerTick(context);
    AddDeviceRanges(context);
    const std::unordered_map<uint32_t, const MetricRange*> metrics = MatchMetricsToKernels(context);
    for (const Pending& p : pending_) {
      switch (static_cast<CudaRecordKind>(p.header.kind)) {
        case CudaRecordKind::kKernel: {
          auto found = metrics.find(p.slice);
          context.SetSliceArgs(
              p.slice, KernelArgs(p, context, found == metrics.end() ? nullptr : found->second));
          break;
        }
        case CudaRecordKind::kMemcpy:
        case CudaRecordKind::kMemset:
          context.SetSliceArgs(p.slice, TransferArgs(p, context, ns_per_tick));
          break;
        case CudaRecordKind::kSynchronization: {
          const auto span = p.Ext<format::CudaSpan>(0);
          const auto sync = p.Ext<format::CudaSync>(1);
          auto args = context.Args();
          args.UInt("device", p.header.aux)
              .UInt("context", sync.context)
              .UInt("stream", span.stream)
              .UInt("correlation", span.correlation)
              .UInt("cuda_sync_kind", sync.type);
          if (sync.cuda_event_id != 0 && sync.cuda_event_id != kInvalidId) {
            args.UInt("wait_on_cuda_event_id", sync.cuda_event_id);
            AddEventRecord(args, p, span, sync);
          }
          AddExternal(args, span.correlation);
          context.SetSliceArgs(p.slice, args.Commit());
          break;
        }
        case CudaRecordKind::kApi: {
          const auto call = p.Ext<format::CudaApiCall>(0);
          auto args = context.Args();
          AddExternal(args, call.correlation);
          args.UInt("cbid", call.cbid).UInt("correlation", call.correlation);
          context.SetSliceArgs(p.slice, args.Commit());
          break;
        }
        default:
          break;
      }
    }
    pending_.clear();
  }

 private:
  struct DeviceEvent {
    uint64_t ts;
    uint16_t device;
    uint32_t stream;
    uint32_t correlation;
  };
  struct MetricRange {
    uint64_t index;
    uint16_t device;
    StringId name;                                    // demangled like kernel slice names
    std::vector<std::pair<StringId, double>> values;  // arg key "metric.<column>", value
  };

  // Kineto's names for the event record a wait waits for: its stream and its call's
  // correlation id (run_index.h's EventWait reads them).
  void AddEventRecord(ArgSetBuilder& args, const Pending& p, const format::CudaSpan& span,
                      const format::CudaSync& sync) {
    const uint64_t sync_id = p.header.ext_words >= 3 ? p.Ext<format::CudaEventSync>(2).sync_id : 0;
    const CudaEventRecordCall* record =
        record_calls_.WaitedFor(sync.context, sync.cuda_event_id, sync_id, span.correlation);
    if (record == nullptr) return;
    args.UInt("wait_on_stream", record->stream)
        .UInt("wait_on_cuda_event_record_corr_id", record->correlation);
  }

  // mstx ranges given a stream: the CUDA events recorded at their start and end, joined to
  // the range through the cuEventRecord call's correlation id, become a slice on the
  // stream's track named like the range and linked from its marker (Device Start/End).
  void AddDeviceRanges(ImportContext& context) {
    struct Ends {
      const DeviceEvent* start = nullptr;
      const DeviceEvent* end = nullptr;
    };
    std::unordered_map<uint64_t, Ends> ranges;
    for (const DeviceEvent& event : events_) {
      auto mark = device_marks_.find(event.correlation);
      if (mark == device_marks_.end()) continue;  // an event of the application's own
      Ends& ends = ranges[mark->second / 2];
      (mark->second % 2 == 0 ? ends.start : ends.end) = &event;
    }
    if (ranges.empty()) return;
    MarkerTable& markers = context.model().markers;
    const StringId category = context.Intern("mstx_device");
    for (size_t i = 0; i < markers.size(); ++i) {
      const uint64_t range_id = markers.range_id(i);
      auto found = range_id == 0 ? ranges.end() : ranges.find(range_id);
      if (found == ranges.end() || found->second.start == nullptr || found->second.end == nullptr) {
        continue;
      }
      const DeviceEvent& start = *found->second.start;
      const DeviceEvent& end = *found->second.end;
      const uint32_t slice = context.AddSlice(
          StreamTrack(context, start.device, start.stream), start.ts,
          static_cast<int64_t>(std::max(end.ts, start.ts)),
          context.model().slices.name[markers.row[i]], category,
          context.Args().UInt("Range id", found->first).UInt("stream", start.stream).Commit());
      markers.details.device_slice[markers.detail[i]] = slice;
    }
  }

  void AddMetricRange(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const auto* range = record.ExtAs<format::CudaMetricRange>(0);
    if (range == nullptr) return;
    const std::vector<StringId>& keys = MetricKeys(context, range->metric_set);
    MetricRange out{range->range_index, h.aux, KernelName(context, h.arg), {}};
    for (uint32_t v = 0; v < range->value_count && v < keys.size(); ++v) {
      const auto* pair = record.ExtAs<format::ExtWord>(1 + v / 2);
      if (pair == nullptr) break;
      double value;
      std::memcpy(&value, reinterpret_cast<const uint8_t*>(pair) + (v % 2) * sizeof(double),
                  sizeof(double));
      if (!std::isnan(value)) out.values.emplace_back(keys[v], value);
    }
    metric_ranges_.push_back(std::move(out));
  }

  // "column=metric;column=metric" → the arg keys "metric.column", parsed once per set.
  const std::vector<StringId>& MetricKeys(ImportContext& context, uint32_t file_id) {
    auto [it, inserted] = metric_sets_.emplace(file_id, std::vector<StringId>{});
    if (!inserted) return it->second;
    const std::string_view set = context.model().Str(context.FileString(file_id));
    size_t begin = 0;
    while (begin < set.size()) {
      size_t end = set.find(';', begin);
      if (end == std::string_view::npos) end = set.size();
      const std::string_view entry = set.substr(begin, end - begin);
      const std::string_view column = entry.substr(0, entry.find('='));
      it->second.push_back(context.Intern("metric." + std::string(column)));
      begin = end + 1;
    }
    return it->second;
  }

  // The range profiler's auto ranges are the kernels of a context in launch order (kernel
  // replay serializes them), so the i-th range of a device is the i-th kernel that ran on it
  // since counters were on. A range named like a kernel (the range profiler names auto
  // ranges after the kernel) skips, within a bounded look-ahead, kernels launched before
  // counters started; ranges named otherwise follow the order alone.
  std::unordered_map<uint32_t, const MetricRange*> MatchMetricsToKernels(ImportContext& context) {
    constexpr size_t kMaxSkipped = 1024;
    std::unordered_map<uint32_t, const MetricRange*> matched;
    if (metric_ranges_.empty()) return matched;
    std::unordered_map<uint16_t, std::vector<const Pending*>> kernels;
    for (const Pending& p : pending_) {
      if (p.header.kind == static_cast<uint8_t>(CudaRecordKind::kKernel)) {
        kernels[p.header.aux].push_back(&p);
      }
    }
    std::unordered_map<uint16_t, std::vector<const MetricRange*>> ranges;
    for (const MetricRange& range : metric_ranges_) ranges[range.device].push_back(&range);
    const SliceTable& slices = context.model().slices;
    for (auto& [device, list] : ranges) {
      std::sort(list.begin(), list.end(),
                [](const MetricRange* a, const MetricRange* b) { return a->index < b->index; });
      std::vector<const Pending*>& launched = kernels[device];
      std::sort(launched.begin(), launched.end(),
                [](const Pending* a, const Pending* b) { return a->header.ts < b->header.ts; });
      std::unordered_set<StringId> kernel_names;
      for (const Pending* p : launched) kernel_names.insert(slices.name[p->slice]);
      size_t next = 0;
      for (const MetricRange* range : list) {
        size_t candidate = next;
        if (kernel_names.contains(range->name)) {
          const size_t limit = std::min(launched.size(), next + kMaxSkipped);
          while (candidate < limit && slices.name[launched[candidate]->slice] != range->name) {
            ++candidate;
          }
          if (candidate == limit) candidate = next;  // not near: keep the order
        }
        if (candidate >= launched.size()) break;
        matched[launched[candidate]->slice] = range;
        next = candidate + 1;
      }
    }
    return matched;
  }

  uint64_t FlowKey(ImportContext& context, uint32_t correlation) const {
    const uint32_t pid =
        context.process() == kNoRow ? 0 : context.model().processes.pid[context.process()];
    return (uint64_t{pid} << 32) | correlation;
  }

  uint32_t StreamTrack(ImportContext& context, uint16_t device, uint32_t stream) {
    const uint32_t process = Device(context, device);
    const uint32_t thread = context.Thread(process, stream);
    if (context.model().threads.name[thread] == kNoString) {
      context.SetThreadName(thread, context.Intern("stream " + std::to_string(stream)));
    }
    return context.MainTrack(thread);
  }

  // Demangled once per distinct kernel name of the file.
  StringId KernelName(ImportContext& context, uint32_t file_id) {
    auto [it, inserted] = kernel_names_.emplace(file_id, kNoString);
    if (inserted) {
      it->second = context.Intern(Demangle(context.model().Str(context.FileString(file_id))));
    }
    return it->second;
  }

  uint32_t Device(ImportContext& context, uint16_t device) {
    return context.DeviceProcess(device, "GPU " + std::to_string(device));
  }

  void AddDeviceSlice(const format::RecordView& record, ImportContext& context, StringId name,
                      const char* category) {
    const format::RecordHeader& h = *record.header;
    const auto* span = record.ExtAs<format::CudaSpan>(0);
    if (span == nullptr) return;
    const uint32_t track = StreamTrack(context, h.aux, span->stream);
    const uint32_t slice = context.AddSlice(track, h.ts, static_cast<int64_t>(span->end), name,
                                            context.Intern(category));
    context.AddFlowEndpoint(ac2g(context), FlowKey(context, span->correlation), slice, false);
    Keep(record, slice);
  }

  void AddApi(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const auto* call = record.ExtAs<format::CudaApiCall>(0);
    if (call == nullptr) return;
    const bool driver = h.aux == static_cast<uint16_t>(format::CudaApiDomain::kDriver);
    const StringId name = context.Intern(ApiName(context.model().Str(context.FileString(h.arg))));
    const uint32_t slice =
        context.AddSlice(context.track(), h.ts, static_cast<int64_t>(call->end), name,
                         context.Intern(driver ? "cuda_driver" : "cuda_runtime"));
    context.AddFlowEndpoint(ac2g(context), FlowKey(context, call->correlation), slice, true);
    Keep(record, slice);
  }

  void AddMemory(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const auto* memory = record.ExtAs<format::CudaMemory>(0);
    const auto* detail = record.ExtAs<format::CudaMemoryDetail>(1);
    if (memory == nullptr || detail == nullptr) return;
    auto& allocated = allocated_[h.aux];
    if (detail->operation == format::kCudaMemoryRelease) {
      allocated -= std::min<int64_t>(allocated, static_cast<int64_t>(memory->bytes));
    } else {
      allocated += static_cast<int64_t>(memory->bytes);
    }
    auto series = memory_series_.find(h.aux);
    if (series == memory_series_.end()) {
      series =
          memory_series_
              .emplace(h.aux, context.CounterSeries(
                                  context.Intern("Device Memory Allocated"), Device(context, h.aux),
                                  static_cast<uint16_t>(format::CounterScope::kDevice), h.aux,
                                  context.Intern("bytes")))
              .first;
    }
    context.AddCounter(series->second, h.ts, static_cast<double>(allocated));
  }

  void AddDevice(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const auto* info = record.ExtAs<format::CudaDeviceInfo>(0);
    const auto* limits = record.ExtAs<format::CudaDeviceLimits>(1);
    const auto* memory = record.ExtAs<format::CudaDeviceMemory>(2);
    if (info == nullptr || limits == nullptr || memory == nullptr) return;
    DeviceInfo& device = devices_[h.aux];
    device.sm_count = info->sm_count;
    device.max_warps_per_sm = limits->max_warps_per_sm;
    device.warp_size = memory->warp_size == 0 ? 32 : memory->warp_size;
    const uint32_t process = Device(context, h.aux);
    const StringId name = context.FileString(h.arg);
    const std::string_view device_name = context.model().Str(name);
    if (!device_name.empty()) {
      context.model().processes.name[process] =
          context.Intern("GPU " + std::to_string(h.aux) + " (" + std::string(device_name) + ")");
    }
    DeviceProperties properties;
    properties.process = process;
    properties.name = name;
    properties.total_memory = info->global_memory_bytes;
    properties.sm_count = info->sm_count;
    properties.compute_major = info->compute_major;
    properties.compute_minor = info->compute_minor;
    properties.max_threads_per_block = memory->max_threads_per_block;
    properties.max_warps_per_sm = limits->max_warps_per_sm;
    properties.max_blocks_per_sm = limits->max_blocks_per_sm;
    properties.warp_size = device.warp_size;
    properties.registers_per_block = limits->max_registers_per_block;
    properties.registers_per_sm = limits->max_registers_per_sm;
    properties.shared_memory_per_block = memory->max_shared_memory_per_block;
    properties.shared_memory_per_sm = memory->max_shared_memory_per_sm;
    std::vector<DeviceProperties>& devices = context.model().devices;
    auto known = std::find_if(devices.begin(), devices.end(),
                              [&](const DeviceProperties& d) { return d.process == process; });
    if (known == devices.end()) {
      devices.push_back(properties);
    } else {
      *known = properties;
    }
  }

  void Keep(const format::RecordView& record, uint32_t slice) {
    Pending p{};
    p.slice = slice;
    p.header = *record.header;
    const uint32_t words = std::min<uint32_t>(record.header->ext_words, kMaxWords);
    for (uint32_t w = 0; w < words; ++w) p.ext[w] = *record.ExtAs<format::ExtWord>(w);
    pending_.push_back(p);
  }

  void AddExternal(ArgSetBuilder& args, uint32_t correlation) const {
    if (auto op = operator_ids_.find(correlation); op != operator_ids_.end()) {
      args.UInt("External id", op->second);
    }
    if (auto range = range_ids_.find(correlation); range != range_ids_.end()) {
      args.UInt("Range id", range->second);
    }
  }

  uint32_t KernelArgs(const Pending& p, ImportContext& context, const MetricRange* metrics) const {
    const auto span = p.Ext<format::CudaSpan>(0);
    const auto geometry = p.Ext<format::CudaKernelGeometry>(1);
    const auto resources = p.Ext<format::CudaKernelResources>(2);
    const auto graph = p.Ext<format::CudaGraphNode>(3);
    const auto launch = p.Ext<format::CudaKernelLaunch>(4);
    auto args = context.Args();
    AddExternal(args, span.correlation);
    args.UInt("device", p.header.aux)
        .UInt("context", geometry.context)
        .UInt("stream", span.stream)
        .UInt("correlation", span.correlation)
        .UInt("registers per thread", resources.registers_per_thread)
        .UInt("shared memory", uint64_t{graph.static_shared_memory} + launch.dynamic_shared_memory);
    const uint64_t blocks =
        static_cast<uint64_t>(geometry.grid_x) * geometry.grid_y * geometry.grid_z;
    const uint64_t threads =
        static_cast<uint64_t>(resources.block_x) * resources.block_y * resources.block_z;
    auto device = devices_.find(p.header.aux);
    if (device != devices_.end() && device->second.sm_count > 0) {
      const DeviceInfo& info = device->second;
      const double blocks_per_sm = static_cast<double>(blocks) / info.sm_count;
      const double warps_per_block =
          static_cast<double>((threads + info.warp_size - 1) / info.warp_size);
      const double warps_per_sm = blocks_per_sm * warps_per_block;
      args.Double("blocks per SM", blocks_per_sm).Double("warps per SM", warps_per_sm);
      if (info.max_warps_per_sm > 0 && launch.warps_per_sm > 0) {
        const double resident = std::min<double>(warps_per_sm, launch.warps_per_sm);
        args.Int("est. achieved occupancy %",
                 static_cast<int64_t>(100.0 * resident / info.max_warps_per_sm + 0.5));
      }
    }
    args.Json("grid", "[" + std::to_string(geometry.grid_x) + ", " +
                          std::to_string(geometry.grid_y) + ", " + std::to_string(geometry.grid_z) +
                          "]")
        .Json("block", "[" + std::to_string(resources.block_x) + ", " +
                           std::to_string(resources.block_y) + ", " +
                           std::to_string(resources.block_z) + "]");
    if (resources.occupancy_basis_points > 0) {
      args.Double("theoretical occupancy %", resources.occupancy_basis_points / 100.0)
          .String("occupancy limit", LimitName(launch.limiting_factor));
    }
    if (graph.graph_id != 0) {
      args.UInt("graph id", graph.graph_id).UInt("graph node id", graph.graph_node_id);
    }
    if (metrics != nullptr) {
      for (const auto& [key, value] : metrics->values) args.Double(context.model().Str(key), value);
    }
    return args.Commit();
  }

  uint32_t TransferArgs(const Pending& p, ImportContext& context, double ns_per_tick) const {
    const auto span = p.Ext<format::CudaSpan>(0);
    uint64_t bytes = 0;
    uint32_t ctx = 0;
    if (p.header.kind == static_cast<uint8_t>(CudaRecordKind::kMemcpy)) {
      const auto copy = p.Ext<format::CudaCopy>(1);
      bytes = copy.bytes;
      ctx = copy.context;
    } else {
      const auto set = p.Ext<format::CudaSet>(1);
      bytes = set.bytes;
      ctx = set.context;
    }
    auto args = context.Args();
    AddExternal(args, span.correlation);
    args.UInt("device", p.header.aux)
        .UInt("context", ctx)
        .UInt("stream", span.stream)
        .UInt("correlation", span.correlation)
        .UInt("bytes", bytes);
    const double duration_ns = static_cast<double>(span.end - p.header.ts) * ns_per_tick;
    if (duration_ns > 0)
      args.Double("memory bandwidth (GB/s)", static_cast<double>(bytes) / duration_ns);
    return args.Commit();
  }

  // The file's tick length, from the clock the runtime declared in its metadata (the exact
  // fit is applied to timestamps later; a bandwidth needs only the rate).
  static double NsPerTick(ImportContext& context) {
    if (context.process() == kNoRow) return 1.0;
    const auto metadata = nlohmann::json::parse(
        context.model().processes.metadata[context.process()], nullptr, false);
    if (!metadata.is_object() || !metadata.contains("clock")) return 1.0;
    const auto& clock = metadata["clock"];
    if (!clock.is_object()) return 1.0;
    const auto source = clock.find("source");
    if (source == clock.end() || !source->is_string() || source->get<std::string>() != "tsc") {
      return 1.0;
    }
    const auto hz = clock.find("tsc_hz_estimate");
    if (hz == clock.end() || !hz->is_number() || hz->get<double>() <= 0) return 1.0;
    return 1e9 / hz->get<double>();
  }

  StringId ac2g(ImportContext& context) {
    if (ac2g_ == kNoString) ac2g_ = context.Intern("ac2g");
    return ac2g_;
  }

  StringId ac2g_ = kNoString;
  std::vector<Pending> pending_;
  std::unordered_map<uint32_t, uint64_t> operator_ids_;  // correlation → operator id
  std::unordered_map<uint32_t, uint64_t> range_ids_;     // correlation → mstx range id
  std::unordered_map<uint32_t, uint64_t> device_marks_;  // correlation → 2 * range id (+1: end)
  std::vector<DeviceEvent> events_;                      // with a device timestamp
  CudaEventRecordCalls record_calls_;
  std::vector<MetricRange> metric_ranges_;
  std::unordered_map<uint32_t, std::vector<StringId>> metric_sets_;
  std::unordered_map<uint16_t, DeviceInfo> devices_;
  std::unordered_map<uint32_t, StringId> kernel_names_;
  std::unordered_map<uint16_t, int64_t> allocated_;
  std::unordered_map<uint16_t, uint32_t> memory_series_;
};

}  // namespace
}  // namespace aiprof::model

AIPROF_DEFINE_IMPORTER(cuda) {
  return std::make_unique<aiprof::model::CudaImporter>();
}
