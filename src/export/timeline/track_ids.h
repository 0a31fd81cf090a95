// The pid/tid a timeline shows for each process and track. Host processes keep their OS pid
// and threads their OS tid (Kineto's convention); device processes use the device id and
// streams their stream id. An extra lane of a thread (slices moved out of a broken nesting)
// gets tid | lane << 23, which stays below 2^32 for any Linux tid (pid_max ≤ 2^22).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::exporter {

struct TimelineIds {
  std::vector<uint32_t> process_pid;  // ProcessTable row → pid
  std::vector<uint32_t> track_tid;    // TrackTable row → tid
  std::vector<uint32_t> track_process;
};

inline TimelineIds ComputeTimelineIds(const model::Model& m) {
  TimelineIds ids;
  ids.process_pid = m.processes.pid;
  ids.track_tid.resize(m.tracks.size());
  ids.track_process.resize(m.tracks.size());
  for (size_t t = 0; t < m.tracks.size(); ++t) {
    uint32_t thread = m.tracks.thread[t];
    ids.track_tid[t] = m.threads.tid[thread] | (std::min<uint32_t>(m.tracks.lane[t], 511) << 23);
    ids.track_process[t] = m.threads.process[thread];
  }
  return ids;
}

// "thread 101 (main)", "stream 7", with " lane 1" for extra lanes.
inline std::string TrackDisplayName(const model::Model& m, uint32_t track) {
  uint32_t thread = m.tracks.thread[track];
  bool device = m.processes.device_id[m.threads.process[thread]] >= 0;
  std::string name = (device ? "stream " : "thread ") + std::to_string(m.threads.tid[thread]);
  std::string_view thread_name = m.Str(m.threads.name[thread]);
  if (!thread_name.empty()) name += " (" + std::string(thread_name) + ")";
  if (m.tracks.lane[track] > 0) name += " overlap lane " + std::to_string(m.tracks.lane[track]);
  return name;
}

inline std::string CounterDisplayName(const model::Model& m, uint32_t series) {
  std::string name(m.Str(m.counter_series.name[series]));
  uint16_t scope = m.counter_series.scope[series];
  static const char* kScopes[] = {"", "cpu", "", "device", "thread"};
  if (scope == 1 || scope == 3 || scope == 4) {
    name +=
        std::string(" ") + kScopes[scope] + " " + std::to_string(m.counter_series.instance[series]);
  }
  return name;
}

}  // namespace aiprof::exporter
