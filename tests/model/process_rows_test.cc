#include "model/process_rows.h"

#include <gtest/gtest.h>

namespace aiprof::model {
namespace {

TEST(ProcessRows, AppendingSetsEveryColumnOfTheRow) {
  Model model;
  ProcessRow device;
  device.pid = 3;
  device.name = model.strings.Intern("GPU");
  device.label = model.strings.Intern("GPU 3");
  device.sort_index = 0x1000003;
  device.device_id = 3;
  device.rank = 1;
  EXPECT_EQ(AppendProcess(model.processes, ProcessRow{}), 0u);
  EXPECT_EQ(AppendProcess(model.processes, device), 1u);
  const ProcessTable& p = model.processes;
  for (size_t column : {p.host.size(), p.name.size(), p.label.size(), p.sort_index.size(),
                        p.device_id.size(), p.rank.size(), p.metadata.size()}) {
    EXPECT_EQ(column, 2u);
  }
  EXPECT_EQ(p.pid[1], 3u);
  EXPECT_EQ(model.Str(p.label[1]), "GPU 3");
  EXPECT_EQ(p.sort_index[1], 0x1000003);
  EXPECT_EQ(p.device_id[1], 3);
  EXPECT_EQ(p.rank[1], 1);
  EXPECT_EQ(p.device_id[0], -1) << "a default row is a host process";
  EXPECT_EQ(p.rank[0], -1);
}

TEST(ProcessRows, AHostProcessKnownByItsPidIsNamedAfterIt) {
  Model model;
  const StringId host = model.strings.Intern("node1");
  const uint32_t row = AppendHostProcess(model, 4242, host);
  EXPECT_EQ(model.Str(model.processes.name[row]), "process 4242");
  EXPECT_EQ(model.Str(model.processes.label[row]), "CPU");
  EXPECT_EQ(model.processes.host[row], host);
  EXPECT_EQ(model.processes.sort_index[row], 4242);
  EXPECT_EQ(model.processes.device_id[row], -1);
}

}  // namespace
}  // namespace aiprof::model
