// The database's process and thread keys (docs/db-schema.md), as msprof combines them:
// globalTid = globalPid << 32 | tid. A device process's globalPid is its device id with
// bit 31 set, so it never collides with a host pid (its threads' keys have bit 63 set:
// negative as SQLite's int64). Every table of every database aiprof
// writes uses these two functions.
#pragma once

#include <cstdint>

#include "model/model.h"

namespace aiprof::exporter {

constexpr int64_t GlobalPid(int32_t device_id, uint32_t pid) {
  return device_id >= 0 ? (int64_t{1} << 31) | device_id : int64_t{pid};
}
constexpr int64_t GlobalTid(int64_t global_pid, uint32_t tid) {
  return (global_pid << 32) | tid;
}

inline int64_t GlobalPid(const model::Model& m, uint32_t process) {
  return GlobalPid(m.processes.device_id[process], m.processes.pid[process]);
}
inline int64_t GlobalTid(const model::Model& m, uint32_t thread) {
  return GlobalTid(GlobalPid(m, m.threads.process[thread]), m.threads.tid[thread]);
}

}  // namespace aiprof::exporter
