// What each process of a run is to the user: the job's main process, a DataLoader worker
// it forked, another child, the launcher (aiprof's own host sampler), or a device. Five
// processes of a PyTorch job with two DataLoader workers share one command line; the role
// and the pid (and the rank, when known) are what tells them apart. Read from the raw
// metadata (ppid, the launcher's pid in the options) and, for a child, from whether its
// parent fetched batches from a DataLoader. Computed once; every consumer (the UI's tracks,
// tables and charts) reads ProcessRoles instead of guessing from names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

enum class ProcessRole : uint8_t {
  kMain,              // a profiled process whose parent is not profiled (or is the launcher)
  kDataLoaderWorker,  // a child of a process that fetched batches from a DataLoader
  kChild,             // another child of a profiled process
  kLauncher,          // the aiprof launcher (its host sampler's counters)
  kDevice,            // a GPU (device process)
};
std::string_view ProcessRoleName(ProcessRole role);  // "main", "DataLoader worker", ...

struct ProcessRoleInfo {
  ProcessRole role = ProcessRole::kMain;
  int64_t ppid = -1;         // from the metadata; -1 unknown
  uint32_t parent = kNoRow;  // ProcessTable row of the profiled parent
  uint32_t ordinal = 0;      // among the parent's children of the same role, by start (0-based)
};

// One per ProcessTable row.
std::vector<ProcessRoleInfo> ProcessRoles(const Model& model);

// How a process is named to the user: "main", "DataLoader worker 1", "child of 4242",
// "launcher", "GPU 0"; prefixed with "rank 3 · " when the rank is known.
std::string ProcessRoleLabel(const Model& model, const std::vector<ProcessRoleInfo>& roles,
                             uint32_t process);

}  // namespace aiprof::model
