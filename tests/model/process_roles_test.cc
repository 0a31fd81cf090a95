// Process roles (model/process_roles.h): main, DataLoader workers numbered by start, other
// children, the launcher, devices, and the rank in the label.
#include "model/process_roles.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/hand_built_model.h"

namespace aiprof::model {
namespace {

using analysis::testing::HandBuiltModel;

std::string Metadata(int64_t ppid, int64_t launcher_pid, int64_t start_ns) {
  return "{\"ppid\":" + std::to_string(ppid) +
         ",\"start_realtime_ns\":" + std::to_string(start_ns) +
         ",\"options\":{\"launcher_pid\":" + std::to_string(launcher_pid) + "}}";
}

TEST(ProcessRoles, TellsTheMainProcessItsDataLoaderWorkersAndTheLauncherApart) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  b.AddSlice(main, 0, 10, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
             "cpu_op");
  b.AddProcess(102);  // started second: worker 1
  b.AddProcess(101);  // started first: worker 0
  b.AddProcess(99);   // the launcher: metadata-less, named by the others' options
  b.AddProcess(0, /*device_id=*/0);
  Model& m = b.mutable_model();
  m.processes.metadata[0] = Metadata(99, 99, 1);
  m.processes.metadata[1] = Metadata(100, 99, 30);
  m.processes.metadata[2] = Metadata(100, 99, 20);
  const std::vector<ProcessRoleInfo> roles = ProcessRoles(b.model());
  ASSERT_EQ(roles.size(), 5u);
  EXPECT_EQ(roles[0].role, ProcessRole::kMain);
  EXPECT_EQ(roles[1].role, ProcessRole::kDataLoaderWorker);
  EXPECT_EQ(roles[1].parent, 0u);
  EXPECT_EQ(ProcessRoleLabel(b.model(), roles, 1), "DataLoader worker 1");
  EXPECT_EQ(ProcessRoleLabel(b.model(), roles, 2), "DataLoader worker 0");
  EXPECT_EQ(roles[3].role, ProcessRole::kLauncher);
  EXPECT_EQ(ProcessRoleLabel(b.model(), roles, 3), "launcher");
  EXPECT_EQ(ProcessRoleLabel(b.model(), roles, 4), "GPU 0");
}

TEST(ProcessRoles, AChildOfAProcessWithoutDataLoaderIsAChild) {
  HandBuiltModel b;
  b.AddProcess(100, -1, /*rank=*/3);
  b.AddProcess(101);
  Model& m = b.mutable_model();
  m.processes.metadata[0] = Metadata(1, -1, 1);
  m.processes.metadata[1] = Metadata(100, -1, 2);
  const std::vector<ProcessRoleInfo> roles = ProcessRoles(b.model());
  EXPECT_EQ(ProcessRoleLabel(b.model(), roles, 0), "rank 3 · main");
  EXPECT_EQ(roles[1].role, ProcessRole::kChild);
  EXPECT_EQ(ProcessRoleLabel(b.model(), roles, 1), "child of 100");
}

TEST(ProcessRoles, WithoutMetadataEveryHostProcessIsMain) {
  HandBuiltModel b;
  b.AddProcess(100);
  b.AddProcess(101);
  const std::vector<ProcessRoleInfo> roles = ProcessRoles(b.model());
  EXPECT_EQ(roles[0].role, ProcessRole::kMain);
  EXPECT_EQ(roles[1].role, ProcessRole::kMain);
  EXPECT_EQ(roles[1].ppid, -1);
}

}  // namespace
}  // namespace aiprof::model
