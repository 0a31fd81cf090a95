// The database's process and thread keys (export/sqlite/process_key.h), shared by every table
// of every database aiprof writes.
#include "export/sqlite/process_key.h"

#include <gtest/gtest.h>

namespace aiprof::exporter {
namespace {

TEST(ProcessKeyTest, HostProcessIsItsPid) {
  EXPECT_EQ(GlobalPid(-1, 4242), 4242);
}

TEST(ProcessKeyTest, DeviceProcessSetsBit31AndNeverCollidesWithAPid) {
  EXPECT_EQ(GlobalPid(0, 4242), int64_t{1} << 31);
  EXPECT_EQ(GlobalPid(3, 4242), (int64_t{1} << 31) | 3);
  // Linux pids stay below 2^22, so no host pid reaches bit 31.
  EXPECT_NE(GlobalPid(0, 0), GlobalPid(-1, 0));
}

TEST(ProcessKeyTest, ThreadKeyIsProcessKeyAboveTid) {
  EXPECT_EQ(GlobalTid(GlobalPid(-1, 7), 9), (int64_t{7} << 32) | 9);
  // A device thread's key has bit 63 set (its process key's bit 31): negative as an int64,
  // as msprof's tables hold it; its upper half is still the process key.
  EXPECT_LT(GlobalTid(GlobalPid(1, 7), 9), 0);
  EXPECT_EQ(static_cast<uint64_t>(GlobalTid(GlobalPid(1, 7), 9)) >> 32, (uint64_t{1} << 31) | 1);
  EXPECT_EQ(GlobalTid(GlobalPid(1, 7), 9) & 0xffffffff, 9);
}

TEST(ProcessKeyTest, ModelRowsReadTheirProcess) {
  model::Model m;
  m.processes.pid = {100, 100};
  m.processes.device_id = {-1, 2};
  m.threads.process = {0, 1};
  m.threads.tid = {101, 7};
  EXPECT_EQ(GlobalPid(m, 0), 100);
  EXPECT_EQ(GlobalPid(m, 1), (int64_t{1} << 31) | 2);
  EXPECT_EQ(GlobalTid(m, 0), (int64_t{100} << 32) | 101);
  EXPECT_EQ(GlobalTid(m, 1), (((int64_t{1} << 31) | 2) << 32) | 7);
}

}  // namespace
}  // namespace aiprof::exporter
