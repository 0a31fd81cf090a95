#include "export/timeline/trace_json.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/cpu_profile/cpu_profile.h"
#include "export/analysis/critical_path_files.h"
#include "export/text_writer.h"
#include "export/timeline/critical_path_track.h"
#include "export/timeline/memory_tracks.h"
#include "export/timeline/overlap_tracks.h"
#include "export/timeline/track_ids.h"
#include "format/records_cpu.h"
#include "model/rank_identity.h"
#include "model/recorded_metadata.h"

namespace aiprof::exporter {
namespace {

// Kineto's "pg_count" and "pg_config" (torch.distributed's process groups).
nlohmann::ordered_json KinetoGroups(const std::vector<model::ProcessGroupInfo>& groups) {
  nlohmann::ordered_json config = nlohmann::ordered_json::array();
  for (const model::ProcessGroupInfo& group : groups) {
    config.push_back({{"pg_name", group.name},
                      {"pg_desc", group.description},
                      {"backend_config", group.backend},
                      {"pg_size", group.ranks.size()},
                      {"ranks", group.ranks}});
  }
  return {{"pg_count", groups.size()}, {"pg_config", config}};
}

// A double argument keeps a decimal point ("40.0", not "40"), so that a reader of the trace
// reads a double back, not an integer.
void WriteDoubleArg(TextWriter& w, double value) {
  char text[40];
  const char* end = std::to_chars(text, text + sizeof text, std::isfinite(value) ? value : 0).ptr;
  w.Raw(std::string_view(text, static_cast<size_t>(end - text)));
  if (std::string_view(text, static_cast<size_t>(end - text)).find_first_of(".e") ==
      std::string_view::npos) {
    w.Raw(".0");
  }
}

void WriteArgValues(TextWriter& w, const model::Model& m, uint32_t set, bool& first) {
  if (set == 0) return;
  const model::ArgTable& a = m.args;
  for (uint32_t i = a.set_begin[set]; i < a.set_begin[set + 1]; ++i) {
    w.Raw(first ? "" : ",");
    first = false;
    w.JsonString(m.Str(a.key[i])).Char(':');
    switch (a.type[i]) {
      case model::ArgType::kInt:
        w.Int(static_cast<int64_t>(a.value[i]));
        break;
      case model::ArgType::kUInt:
        w.UInt(a.value[i]);
        break;
      case model::ArgType::kDouble:
        WriteDoubleArg(w, std::bit_cast<double>(a.value[i]));
        break;
      case model::ArgType::kString:
        w.JsonString(m.Str(static_cast<model::StringId>(a.value[i])));
        break;
      case model::ArgType::kJson: {
        std::string_view json = m.Str(static_cast<model::StringId>(a.value[i]));
        if (json.empty()) {
          w.Raw("null");
        } else {
          w.Raw(json);
        }
        break;
      }
    }
  }
}

// A marker's (mstx/NVTX) domain and kind, written as arguments so that an import of the
// trace (model/importers/kineto) gives the model its marker rows back.
void WriteMarkerArgs(TextWriter& w, const model::Model& m, uint32_t marker, bool& first) {
  static constexpr const char* kTypes[] = {"mark", "push/pop", "start/end"};
  const auto type = static_cast<size_t>(m.markers.event_type[marker]);
  w.Raw(first ? "" : ",").Raw("\"Marker domain\":").JsonString(m.Str(m.markers.domain[marker]));
  w.Raw(",\"Marker type\":").JsonString(type < 3 ? kTypes[type] : "mark");
  first = false;
}

class TraceJsonWriter {
 public:
  TraceJsonWriter(const model::Model& m, TextWriter& w, const analysis::OverlapResult* overlap,
                  const analysis::MemoryAnalysis* memory, const analysis::CpuProfile* cpu_profile,
                  const analysis::CriticalPathResult* critical_path)
      : m_(m),
        w_(w),
        overlap_(overlap),
        critical_path_(critical_path),
        memory_(memory),
        cpu_profile_(cpu_profile),
        ids_(ComputeTimelineIds(m)),
        base_(TimelineBaseNs(m)) {}

  void Write(const std::string& trace_name) {
    WriteHeader();
    w_.Raw("\"traceEvents\":[\n");
    WriteMetadataEvents();
    WriteSlices();
    WriteInstants();
    WriteCounters();
    WriteFlows();
    WriteOverlapLanes();
    WriteCriticalPathLane();
    WriteCpuSampling();
    w_.Raw("\n],\n\"traceName\":").JsonString(trace_name).Raw("\n}\n");
  }

 private:
  void Separator() {
    if (!first_event_) w_.Raw(",\n");
    first_event_ = false;
  }
  void Ts(int64_t ns) { w_.Micros(std::max<int64_t>(ns - base_, 0)); }
  // `{"ph":...,"cat":` (given as `opening`) then category, name, pid, tid and ts of an event.
  void EventPrefix(const char* opening, model::StringId category, model::StringId name,
                   uint32_t track, int64_t ts) {
    Separator();
    w_.Raw(opening).JsonString(m_.Str(category));
    w_.Raw(",\"name\":").JsonString(m_.Str(name));
    w_.Raw(",\"pid\":").UInt(ids_.process_pid[ids_.track_process[track]]);
    w_.Raw(",\"tid\":").UInt(ids_.track_tid[track]);
    w_.Raw(",\"ts\":");
    Ts(ts);
  }

  void WriteHeader() {
    nlohmann::ordered_json device_properties = KinetoDeviceProperties();
    // Kineto's key order; HTA finds the rank with the pattern `"rank":\s+(\d+)`, so the
    // object is written as Kineto writes it, with a space after each colon.
    nlohmann::ordered_json distributed = nlohmann::ordered_json::object();
    std::string hostname;
    const std::vector<model::RankIdentity> identities = model::RankIdentities(m_);
    for (size_t p = 0; p < m_.processes.size(); ++p) {
      if (m_.processes.metadata[p].empty()) continue;
      auto meta = nlohmann::json::parse(m_.processes.metadata[p], nullptr, false);
      if (!meta.is_object()) continue;
      // Plugins add keys under "metadata" (aiprof_add_metadata), a deviceProperties list of
      // their own devices among them; the CUDA source's devices come from the model.
      auto add_devices = [&](const nlohmann::json& object) {
        if (!object.is_object()) return;
        auto found = object.find("device_properties");
        if (found == object.end() || !found->is_array()) return;
        for (const auto& device : *found) {
          device_properties.push_back(nlohmann::ordered_json::parse(device.dump()));
        }
      };
      add_devices(meta);
      if (meta.contains("metadata")) add_devices(meta["metadata"]);
      const model::RankIdentity& identity = identities[p];
      if (!identity.backend.empty()) distributed["backend"] = identity.backend;
      if (identity.rank >= 0) distributed["rank"] = identity.rank;
      if (identity.world_size > 0) distributed["world_size"] = identity.world_size;
      if (!identity.groups.empty()) distributed.update(KinetoGroups(identity.groups));
      if (meta.contains("hostname") && meta["hostname"].is_string()) hostname = meta["hostname"];
    }
    uint64_t skipped = 0;
    for (const auto& f : m_.files) skipped += f.report.chunks_skipped;
    nlohmann::json aiprof = {{"dropped_events", m_.drops.total()},
                             {"skipped_chunks", skipped},
                             {"unclosed_or_unmatched_ranges", m_.unmatched_ends}};
    w_.Raw("{\n\"schemaVersion\":1,\n\"deviceProperties\":").Raw(device_properties.dump());
    w_.Raw(",\n\"distributedInfo\":").Raw(distributed.dump(1));
    if (!hostname.empty()) w_.Raw(",\n\"host_name\":").JsonString(hostname);
    for (const auto& [key, value] : model::ReadRecordedMetadata(m_).user) {
      if (!ReservedKey(key)) w_.Raw(",\n").JsonString(key).Char(':').Raw(value);
    }
    w_.Raw(",\n\"aiprof\":").Raw(aiprof.dump());
    w_.Raw(",\n\"displayTimeUnit\":\"ms\",\n\"baseTimeNanoseconds\":").Int(base_).Raw(",\n");
  }

  // The devices the collection recorded, with Kineto's deviceProperties keys in its order.
  nlohmann::ordered_json KinetoDeviceProperties() const {
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const model::DeviceProperties& d : m_.devices) {
      devices.push_back({{"id", m_.processes.device_id[d.process]},
                         {"name", m_.Str(d.name)},
                         {"totalGlobalMem", d.total_memory},
                         {"computeMajor", d.compute_major},
                         {"computeMinor", d.compute_minor},
                         {"maxThreadsPerBlock", d.max_threads_per_block},
                         {"maxThreadsPerMultiprocessor", d.max_warps_per_sm * d.warp_size},
                         {"regsPerBlock", d.registers_per_block},
                         {"regsPerMultiprocessor", d.registers_per_sm},
                         {"warpSize", d.warp_size},
                         {"sharedMemPerBlock", d.shared_memory_per_block},
                         {"sharedMemPerMultiprocessor", d.shared_memory_per_sm},
                         {"numSms", d.sm_count}});
    }
    return devices;
  }

  // Metadata added as "user.<key>" becomes top-level keys (model/recorded_metadata.h); a
  // key the trace itself uses is left out rather than written twice.
  static bool ReservedKey(std::string_view key) {
    static constexpr std::string_view kReserved[] = {
        "schemaVersion",   "deviceProperties",    "distributedInfo", "host_name", "aiprof",
        "displayTimeUnit", "baseTimeNanoseconds", "traceEvents",     "traceName"};
    return std::find(std::begin(kReserved), std::end(kReserved), key) != std::end(kReserved);
  }

  void Metadata(const char* name, uint32_t pid, const uint32_t* tid, const char* key,
                std::string_view text, const int64_t* number) {
    Separator();
    w_.Raw("{\"ph\":\"M\",\"name\":\"").Raw(name).Raw("\",\"pid\":").UInt(pid);
    if (tid != nullptr) w_.Raw(",\"tid\":").UInt(*tid);
    w_.Raw(",\"ts\":0,\"args\":{\"").Raw(key).Raw("\":");
    if (number != nullptr) {
      w_.Int(*number);
    } else {
      w_.JsonString(text);
    }
    w_.Raw("}}");
  }

  void WriteMetadataEvents() {
    // A process appears once even if the model holds it twice (same pid, another host).
    std::vector<uint32_t> seen_pids;
    std::vector<uint8_t> used(m_.processes.size(), 0);
    for (size_t t = 0; t < m_.tracks.size(); ++t) used[ids_.track_process[t]] = 1;
    for (uint32_t series : m_.counters.series) used[m_.counter_series.process[series]] = 1;
    for (uint32_t p = 0; p < m_.processes.size(); ++p) {
      uint32_t pid = ids_.process_pid[p];
      if (!used[p] || std::find(seen_pids.begin(), seen_pids.end(), pid) != seen_pids.end()) {
        continue;
      }
      seen_pids.push_back(pid);
      Metadata("process_name", pid, nullptr, "name", m_.Str(m_.processes.name[p]), nullptr);
      Metadata("process_labels", pid, nullptr, "labels", m_.Str(m_.processes.label[p]), nullptr);
      Metadata("process_sort_index", pid, nullptr, "sort_index", "", &m_.processes.sort_index[p]);
    }
    std::vector<uint64_t> seen_tracks;
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      uint32_t pid = ids_.process_pid[ids_.track_process[t]];
      uint32_t tid = ids_.track_tid[t];
      uint64_t key = (uint64_t{pid} << 32) | tid;
      if (std::find(seen_tracks.begin(), seen_tracks.end(), key) != seen_tracks.end()) continue;
      seen_tracks.push_back(key);
      Metadata("thread_name", pid, &tid, "name", TrackDisplayName(m_, t), nullptr);
      int64_t sort = m_.threads.sort_index[m_.tracks.thread[t]] * 1000 + m_.tracks.lane[t];
      Metadata("thread_sort_index", pid, &tid, "sort_index", "", &sort);
    }
    if (critical_path_ != nullptr && critical_path_->computed && !critical_path_->steps.empty()) {
      const uint32_t lane = 0;
      const int64_t sort = kCriticalPathSortIndex, lane_sort = 0;
      Metadata("process_name", kCriticalPathPid, nullptr, "name", kCriticalPathProcessName,
               nullptr);
      Metadata("process_sort_index", kCriticalPathPid, nullptr, "sort_index", "", &sort);
      Metadata("thread_name", kCriticalPathPid, &lane, "name", kCriticalPathLaneName, nullptr);
      Metadata("thread_sort_index", kCriticalPathPid, &lane, "sort_index", "", &lane_sort);
    }
    if (overlap_ == nullptr) return;
    for (uint32_t scope = 0; scope < overlap_->scopes.size(); ++scope) {
      uint32_t pid = OverlapAnalysisPid(scope);
      int64_t sort = OverlapAnalysisSortIndex(scope);
      Metadata("process_name", pid, nullptr, "name", kOverlapProcessName, nullptr);
      Metadata("process_labels", pid, nullptr, "labels",
               OverlapAnalysisLabel(m_, overlap_->scopes[scope]), nullptr);
      Metadata("process_sort_index", pid, nullptr, "sort_index", "", &sort);
      for (uint32_t lane = 0; lane < analysis::kOverlapLaneCount; ++lane) {
        int64_t lane_sort = lane;
        Metadata("thread_name", pid, &lane, "name",
                 analysis::OverlapLaneName(static_cast<analysis::OverlapLane>(lane)), nullptr);
        Metadata("thread_sort_index", pid, &lane, "sort_index", "", &lane_sort);
      }
    }
  }

  void WriteOverlapLanes() {
    if (overlap_ == nullptr) return;
    for (uint32_t scope = 0; scope < overlap_->scopes.size(); ++scope) {
      uint32_t pid = OverlapAnalysisPid(scope);
      analysis::ForEachLaneInterval(
          overlap_->scopes[scope], [&](analysis::OverlapLane lane, analysis::Interval i) {
            Separator();
            w_.Raw("{\"ph\":\"X\",\"cat\":\"").Raw(kOverlapCategory).Raw("\",\"name\":");
            w_.JsonString(analysis::OverlapLaneName(lane));
            w_.Raw(",\"pid\":").UInt(pid).Raw(",\"tid\":").UInt(static_cast<uint32_t>(lane));
            w_.Raw(",\"ts\":");
            Ts(i.begin);
            w_.Raw(",\"dur\":").Micros(i.length()).Char('}');
          });
    }
  }

  void WriteCriticalPathLane() {
    if (critical_path_ == nullptr || !critical_path_->computed) return;
    const analysis::CriticalPathResult& r = *critical_path_;
    std::string thread_label;
    uint32_t labelled = model::kNoRow;
    for (const analysis::CriticalPathStep& step : r.steps) {
      const std::string step_label =
          r.whole_run ? "all"
                      : model::FormatStepLabel(model::HasSeveralLoops(m_), step.loop, step.step);
      for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
        const analysis::CriticalPathSegment s = r.Segment(m_, step, i);
        if (s.thread != labelled) {
          labelled = s.thread;
          thread_label = CriticalPathThreadLabel(m_, s.thread);
        }
        Separator();
        w_.Raw("{\"ph\":\"X\",\"cat\":\"").Raw(kCriticalPathCategory).Raw("\",\"name\":");
        w_.JsonString(s.slice != model::kNoRow ? m_.Str(m_.slices.name[s.slice])
                                               : analysis::PathCategoryName(s.category));
        w_.Raw(",\"pid\":").UInt(kCriticalPathPid).Raw(",\"tid\":0,\"ts\":");
        Ts(s.begin_ns);
        w_.Raw(",\"dur\":").Micros(s.end_ns - s.begin_ns);
        w_.Raw(",\"args\":{\"category\":").JsonString(analysis::PathCategoryName(s.category));
        w_.Raw(",\"step\":").JsonString(step_label).Raw(",\"thread\":").JsonString(thread_label);
        w_.Raw(",\"rank\":").Int(s.rank);
        if (s.latency) w_.Raw(",\"latency\":1");
        w_.Raw("}}");
      }
    }
  }

  // The marker row of each slice or instant (kNoRow: none); empty without markers.
  std::vector<uint32_t> MarkerRows(bool instants) const {
    const model::MarkerTable& markers = m_.markers;
    std::vector<uint32_t> rows;
    if (markers.size() == 0) return rows;
    rows.assign(instants ? m_.instants.size() : m_.slices.size(), model::kNoRow);
    for (uint32_t i = 0; i < markers.size(); ++i) {
      if ((markers.is_instant[i] != 0) == instants && markers.row[i] < rows.size()) {
        rows[markers.row[i]] = i;
      }
    }
    return rows;
  }

  // The slices that are step records (prof.step() without a schedule, aiprofStepBegin) with
  // their numbers, by slice row: a "ProfilerStep#N" range the importer must not take for
  // torch's record_function range of that name, which is an operator.
  std::vector<std::pair<uint32_t, uint64_t>> StepRecordSlices() const {
    const model::RecordedStepTable& steps = m_.recorded_steps;
    std::vector<std::pair<uint32_t, uint64_t>> rows;
    rows.reserve(steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      if (steps.slice[i] != model::kNoRow) rows.emplace_back(steps.slice[i], steps.step[i]);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  // An operator's memory as the memory analysis attributed it (torch.profiler's CPU Mem /
  // Self CPU Mem / CUDA Mem / Self CUDA Mem columns), in bytes.
  void WriteOperatorMemory(const analysis::OperatorMemoryUsage& usage, bool& first) {
    auto arg = [&](const char* key, int64_t bytes) {
      w_.Raw(first ? "\"" : ",\"").Raw(key).Raw("\":").Int(bytes);
      first = false;
    };
    if (usage.host_events > 0) {
      arg("CPU Mem (B)", usage.host_bytes);
      arg("Self CPU Mem (B)", usage.self_host_bytes);
    }
    if (usage.device_events > 0) {
      arg("CUDA Mem (B)", usage.device_bytes);
      arg("Self CUDA Mem (B)", usage.self_device_bytes);
    }
  }

  void WriteSlices() {
    const model::SliceTable& s = m_.slices;
    const std::vector<uint32_t> marker_of = MarkerRows(false);
    // Operators with memory figures, ascending like the slices.
    const analysis::OperatorMemoryUsage* usage =
        memory_ != nullptr ? memory_->operator_usage.data() : nullptr;
    const analysis::OperatorMemoryUsage* usage_end =
        usage != nullptr ? usage + memory_->operator_usage.size() : nullptr;
    const std::vector<std::pair<uint32_t, uint64_t>> step_records = StepRecordSlices();
    auto step_record = step_records.begin();
    for (uint32_t row = 0; row < s.size(); ++row) {
      EventPrefix("{\"ph\":\"X\",\"cat\":", s.category[row], s.name[row], s.track[row], s.ts[row]);
      w_.Raw(",\"dur\":").Micros(std::max<int64_t>(s.end[row] - s.ts[row], 0));
      while (usage != usage_end && usage->slice < row) ++usage;
      const bool has_memory = usage != usage_end && usage->slice == row;
      const uint32_t marker = marker_of.empty() ? model::kNoRow : marker_of[row];
      while (step_record != step_records.end() && step_record->first < row) ++step_record;
      const bool is_step_record = step_record != step_records.end() && step_record->first == row;
      if (s.args[row] != 0 || s.flags[row] != 0 || has_memory || marker != model::kNoRow ||
          is_step_record) {
        w_.Raw(",\"args\":{");
        bool first = true;
        WriteArgValues(w_, m_, s.args[row], first);
        if (has_memory) WriteOperatorMemory(*usage, first);
        if (marker != model::kNoRow) WriteMarkerArgs(w_, m_, marker, first);
        if (is_step_record) {
          w_.Raw(first ? "" : ",").Raw("\"Step record\":").UInt(step_record->second);
          first = false;
        }
        if (s.flags[row] & model::kSliceUnclosed) {
          w_.Raw(first ? "" : ",").Raw("\"Unclosed\":1");
          first = false;
        }
        if (s.flags[row] & model::kSliceMovedLane) {
          w_.Raw(first ? "" : ",").Raw("\"Overlap lane\":1");
        }
        w_.Char('}');
      }
      w_.Char('}');
    }
  }

  void WriteInstants() {
    const model::InstantTable& in = m_.instants;
    const std::vector<uint32_t> marker_of = MarkerRows(true);
    for (uint32_t row = 0; row < in.size(); ++row) {
      EventPrefix("{\"ph\":\"i\",\"s\":\"t\",\"cat\":", in.category[row], in.name[row],
                  in.track[row], in.ts[row]);
      const uint32_t marker = marker_of.empty() ? model::kNoRow : marker_of[row];
      if (in.args[row] != 0 || marker != model::kNoRow) {
        w_.Raw(",\"args\":{");
        bool first = true;
        WriteArgValues(w_, m_, in.args[row], first);
        if (marker != model::kNoRow) WriteMarkerArgs(w_, m_, marker, first);
        w_.Char('}');
      }
      w_.Char('}');
    }
  }

  void WriteCounters() {
    std::vector<std::string> names(m_.counter_series.size());
    for (uint32_t series = 0; series < names.size(); ++series) {
      names[series] = CounterDisplayName(m_, series);
    }
    const model::CounterTable& c = m_.counters;
    for (size_t i = 0; i < c.size(); ++i) {
      uint32_t series = c.series[i];
      Separator();
      w_.Raw("{\"ph\":\"C\",\"name\":").JsonString(names[series]);
      w_.Raw(",\"pid\":").UInt(ids_.process_pid[m_.counter_series.process[series]]);
      w_.Raw(",\"ts\":");
      Ts(c.ts[i]);
      w_.Raw(",\"args\":{\"value\":").Double(c.value[i]).Raw("}}");
    }
    if (memory_ == nullptr) return;
    // Derived from the memory analysis: the category says so, and the Kineto importer leaves
    // these out of an aiprof-written trace (the analysis computes them again).
    for (const analysis::MemoryCategoryTrack& track : memory_->category_tracks) {
      const std::string name = MemoryCategoryTrackName(*memory_, track);
      const uint32_t pid = ids_.process_pid[memory_->pools[track.pool].process];
      for (const auto& [ts, bytes] : track.points) {
        Separator();
        w_.Raw("{\"ph\":\"C\",\"cat\":\"memory_analysis\",\"name\":").JsonString(name);
        w_.Raw(",\"pid\":").UInt(pid).Raw(",\"ts\":");
        Ts(ts);
        w_.Raw(",\"args\":{\"value\":").Int(bytes).Raw("}}");
      }
    }
  }

  void WriteFlows() {
    const model::FlowTable& f = m_.flows;
    const model::SliceTable& s = m_.slices;
    for (size_t i = 0; i < f.size(); ++i) {
      for (int end = 0; end < 2; ++end) {
        uint32_t slice = end == 0 ? f.from_slice[i] : f.to_slice[i];
        uint32_t track = s.track[slice];
        Separator();
        w_.Raw(end == 0 ? "{\"ph\":\"s\"" : "{\"ph\":\"f\",\"bp\":\"e\"");
        w_.Raw(",\"id\":").UInt(f.id[i]);
        w_.Raw(",\"pid\":").UInt(ids_.process_pid[ids_.track_process[track]]);
        w_.Raw(",\"tid\":").UInt(ids_.track_tid[track]);
        w_.Raw(",\"ts\":");
        Ts(s.ts[slice]);
        w_.Raw(",\"cat\":").JsonString(m_.Str(f.category[i]));
        w_.Raw(",\"name\":").JsonString(m_.Str(f.category[i])).Char('}');
      }
    }
  }

  const model::Model& m_;
  // CPU sampling (docs/cpu-sampling.md): each sampled thread gets a lane "<thread> (CPU)"
  // holding its thread states (Running / Blocked / Preempted, from the kernel's switch
  // records) and its stack samples as instants named by the leaf function.
  static constexpr uint32_t kCpuLane = 500u << 23;
  void WriteCpuSampling() {
    const model::CpuProfileTables& cpu = m_.cpu;
    if (cpu.empty()) return;
    analysis::CpuProfile own;
    if (cpu_profile_ == nullptr) own = analysis::SymbolizeCpuProfile(m_);
    const analysis::CpuProfile& profile = cpu_profile_ != nullptr ? *cpu_profile_ : own;
    std::vector<uint8_t> named(m_.threads.size(), 0);
    auto lane = [&](uint32_t thread) {
      uint32_t pid = m_.processes.pid[m_.threads.process[thread]];
      uint32_t tid = m_.threads.tid[thread] | kCpuLane;
      if (!named[thread]) {
        named[thread] = 1;
        std::string name(m_.Str(m_.threads.name[thread]));
        if (name.empty()) name = "thread " + std::to_string(m_.threads.tid[thread]);
        Metadata("thread_name", pid, &tid, "name", name + " (CPU)", nullptr);
        int64_t sort = m_.threads.sort_index[thread] * 1000 + 999;
        Metadata("thread_sort_index", pid, &tid, "sort_index", "", &sort);
      }
      return std::pair<uint32_t, uint32_t>(pid, tid);
    };
    auto stack_text = [&](uint32_t stack) {
      std::string text;
      for (uint32_t f : profile.Stack(stack)) {
        if (!text.empty()) text += '\n';
        text += profile.function_name[f];
      }
      return text;
    };
    static constexpr const char* kStateNames[] = {"Running", "Blocked", "Preempted"};
    const model::ThreadStateTable& st = cpu.thread_states;
    for (size_t i = 0; i < st.size(); ++i) {
      auto [pid, tid] = lane(st.thread[i]);
      Separator();
      w_.Raw("{\"ph\":\"X\",\"cat\":\"thread_state\",\"name\":\"")
          .Raw(kStateNames[static_cast<int>(st.state[i])])
          .Raw("\",\"pid\":")
          .UInt(pid)
          .Raw(",\"tid\":")
          .UInt(tid)
          .Raw(",\"ts\":");
      Ts(st.ts[i]);
      w_.Raw(",\"dur\":").Micros(std::max<int64_t>(st.end[i] - st.ts[i], 0));
      if (st.stack[i] != UINT32_MAX) {
        w_.Raw(",\"args\":{\"Blocked in\":").JsonString(stack_text(st.stack[i])).Char('}');
      }
      w_.Char('}');
    }
    const model::CpuSampleTable& s = cpu.samples;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.flags[i] & format::kCpuSampleOffCpu) continue;
      auto [pid, tid] = lane(s.thread[i]);
      auto stack = profile.Stack(s.stack[i]);
      Separator();
      w_.Raw("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_sample\",\"name\":")
          .JsonString(stack.empty() ? std::string_view("[unknown]")
                                    : std::string_view(profile.function_name[stack[0]]))
          .Raw(",\"pid\":")
          .UInt(pid)
          .Raw(",\"tid\":")
          .UInt(tid)
          .Raw(",\"ts\":");
      Ts(s.ts[i]);
      w_.Raw(",\"args\":{\"Stack\":").JsonString(stack_text(s.stack[i])).Raw("}}");
    }
  }

  TextWriter& w_;
  const analysis::OverlapResult* overlap_;
  const analysis::CriticalPathResult* critical_path_;
  const analysis::MemoryAnalysis* memory_;
  const analysis::CpuProfile* cpu_profile_;
  TimelineIds ids_;
  int64_t base_;
  bool first_event_ = true;
};

}  // namespace

int64_t TimelineBaseNs(const model::Model& m) {
  int64_t earliest = INT64_MAX;
  for (int64_t ts : m.slices.ts) earliest = std::min(earliest, ts);
  for (int64_t ts : m.instants.ts) earliest = std::min(earliest, ts);
  for (int64_t ts : m.counters.ts) earliest = std::min(earliest, ts);
  for (int64_t ts : m.cpu.samples.ts) earliest = std::min(earliest, ts);
  for (int64_t ts : m.cpu.thread_states.ts) earliest = std::min(earliest, ts);
  if (earliest == INT64_MAX) earliest = m.start_ns;
  return earliest / 1'000'000'000 * 1'000'000'000;
}

bool WriteTraceJson(const model::Model& model, const std::string& path, std::string* error,
                    const analysis::OverlapResult* overlap, const analysis::MemoryAnalysis* memory,
                    const analysis::CpuProfile* cpu_profile,
                    const analysis::CriticalPathResult* critical_path) {
  return WriteTraceJson(model, path, path, error, overlap, memory, cpu_profile, critical_path);
}

bool WriteTraceJson(const model::Model& model, const std::string& path,
                    const std::string& trace_name, std::string* error,
                    const analysis::OverlapResult* overlap, const analysis::MemoryAnalysis* memory,
                    const analysis::CpuProfile* cpu_profile,
                    const analysis::CriticalPathResult* critical_path) {
  TextWriter w;
  if (!w.Open(path, error)) return false;
  TraceJsonWriter(model, w, overlap, memory, cpu_profile, critical_path).Write(trace_name);
  if (!w.Close()) {
    *error = w.error();
    return false;
  }
  return true;
}

}  // namespace aiprof::exporter
