// The UI's Operators/Kernels tables (analysis/operator_table.h): self time beside total,
// shares of the wall time, rows per process, the step filter, and op_statistic's Ratio per
// process.
#include "analysis/operator_table.h"

#include <gtest/gtest.h>

#include "analysis/hand_built_model.h"
#include "model/framework_operators.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

// Process 100: aten::linear [0,100) runs aten::addmm [10,90); a second aten::addmm [200,250).
// Process 200 (a DataLoader worker, say): aten::stack [0,40). The run spans [0,400).
HandBuiltModel LinearModel() {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  const uint32_t linear = b.AddSlice(main, 0, 100, "aten::linear", "cpu_op");
  const uint32_t addmm = b.AddSlice(main, 10, 90, "aten::addmm", "cpu_op");
  b.mutable_model().slices.parent[addmm] = linear;
  b.mutable_model().slices.depth[addmm] = 1;
  b.AddSlice(main, 200, 250, "aten::addmm", "cpu_op");
  b.AddSlice(main, 0, 400, "ProfilerStep#0", "user_annotation");  // no operator
  const uint32_t worker = b.AddProcess(200);
  b.AddSlice(worker, 0, 40, "aten::stack", "cpu_op");
  return b;
}

const OperatorTableRow* Find(const OperatorTable& table, std::string_view name, uint32_t process,
                             const model::Model& m) {
  for (const OperatorTableRow& row : table.rows) {
    if (m.Str(row.stats.name) == name && row.process == process) return &row;
  }
  return nullptr;
}

TEST(OperatorTable, SelfTimeBesideTotalAndSharesOfTheWallTime) {
  HandBuiltModel b = LinearModel();
  const model::Model& m = b.model();
  const OperatorTable table =
      ComputeOperatorTable(m, OperatorTableKind::kOperators, ComputeRunExtent(m));
  EXPECT_EQ(table.wall_ns(), 400);
  ASSERT_EQ(table.rows.size(), 3u);
  const OperatorTableRow* linear = Find(table, "aten::linear", 0, m);
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->stats.total_ns, 100);
  EXPECT_EQ(linear->stats.self_ns, 20);  // less the nested aten::addmm
  EXPECT_DOUBLE_EQ(linear->wall_pct, 25.0);
  EXPECT_DOUBLE_EQ(linear->self_wall_pct, 5.0);
  const OperatorTableRow* addmm = Find(table, "aten::addmm", 0, m);
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->stats.count, 2u);
  EXPECT_EQ(addmm->stats.total_ns, 130);
  EXPECT_EQ(addmm->stats.self_ns, 130);
  EXPECT_EQ(addmm->stats.max_row, 1u);  // the longest call: [10,90)
  // op_statistic's Ratio: of the process's summed total (100 + 130), nested time twice.
  EXPECT_NEAR(linear->ratio_pct, 100.0 * 100 / 230, 1e-9);
  EXPECT_NEAR(addmm->ratio_pct, 100.0 * 130 / 230, 1e-9);
  // The worker's operators are its own rows; its Ratio is of its own total.
  const OperatorTableRow* stack = Find(table, "aten::stack", 1, m);
  ASSERT_NE(stack, nullptr);
  EXPECT_DOUBLE_EQ(stack->ratio_pct, 100.0);
  EXPECT_EQ(stack->device, "host");
  EXPECT_EQ(stack->task_type, "CPU");
}

// Self time is torch's (model::OperatorSelfTimes): nesting by time on the thread, whatever
// lane the model put a slice on, and only operators are taken from their parent: a Python
// frame inside an operator is the operator's own time. The Python API reads the same figures.
TEST(OperatorTable, SelfTimeIsTorchsFromTheOneNestingOfTheOperators) {
  HandBuiltModel b;
  const uint32_t thread = b.AddProcess(100);
  b.AddSlice(thread, 0, 100, "aten::linear", "cpu_op");
  b.AddSlice(thread, 10, 30, "train.py(12): forward", "python_function");  // not an operator
  b.AddSlice(thread, 40, 60, "my_block", "user_annotation");  // record_function: an operator
  b.AddSlice(thread, 45, 55, "aten::addmm", "cpu_op");        // no slice parent set: by time
  const model::Model& m = b.model();
  const OperatorTable table =
      ComputeOperatorTable(m, OperatorTableKind::kOperators, ComputeRunExtent(m));
  const OperatorTableRow* linear = Find(table, "aten::linear", 0, m);
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->stats.self_ns, 80);  // less my_block, not less the Python frame
  const OperatorTableRow* addmm = Find(table, "aten::addmm", 0, m);
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->stats.self_ns, 10);
  const model::FrameworkOperators operators = model::FindFrameworkOperators(m);
  EXPECT_EQ(model::OperatorSelfTimes(m, operators), (std::vector<int64_t>{80, 10, 10}));
}

TEST(OperatorTable, AStepKeepsTheTasksStartingInsideItAndItsWallTime) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  b.AddStep(main, 0, 0, 100);
  b.AddStep(main, 1, 100, 300);
  b.AddSlice(main, 10, 20, "aten::mm", "cpu_op");
  b.AddSlice(main, 150, 200, "aten::mm", "cpu_op");
  const model::Model& m = b.model();
  const OperatorTable table =
      ComputeOperatorTable(m, OperatorTableKind::kOperators, ComputeRunExtent(m), 1);
  EXPECT_EQ(table.wall_ns(), 200);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].stats.total_ns, 50);
  EXPECT_DOUBLE_EQ(table.rows[0].wall_pct, 25.0);
}

TEST(OperatorTable, KernelsAreTheDeviceTasks) {
  HandBuiltModel b = LinearModel();
  const uint32_t gpu = b.AddProcess(0, /*device_id=*/0);
  b.AddSlice(gpu, 20, 60, "gemm_kernel", "kernel");
  const model::Model& m = b.model();
  const OperatorTable kernels =
      ComputeOperatorTable(m, OperatorTableKind::kKernels, ComputeRunExtent(m));
  ASSERT_EQ(kernels.rows.size(), 1u);
  EXPECT_EQ(kernels.rows[0].device, "0");
  EXPECT_EQ(kernels.rows[0].task_type, "KERNEL");
  EXPECT_DOUBLE_EQ(kernels.rows[0].ratio_pct, 100.0);
  const OperatorTable operators =
      ComputeOperatorTable(m, OperatorTableKind::kOperators, ComputeRunExtent(m));
  EXPECT_EQ(operators.rows.size(), 3u);  // framework operators, as on a CPU-only run
}

}  // namespace
}  // namespace aiprof::analysis
