#include "sources/cuda/metric_catalog.h"

#include <gtest/gtest.h>

#include <string>

namespace aiprof::cuda {
namespace {

TEST(MetricCatalog, EveryMsprofGroupMapsToPerfworksMetrics) {
  for (const char* name :
       {"PipeUtilization", "ArithmeticUtilization", "Memory", "MemoryL0", "MemoryL1", "MemoryUB",
        "ResourceConflictRatio", "L2Cache", "MemoryAccess"}) {
    const MetricGroup* group = FindMetricGroup(name);
    ASSERT_NE(group, nullptr) << name;
    EXPECT_FALSE(group->columns.empty()) << name;
    for (const MetricColumn& column : group->columns) {
      // Perfworks names are unit__counter.rollup...; a typo without "__" is caught here.
      EXPECT_NE(std::string(column.cupti_metric).find("__"), std::string::npos)
          << column.cupti_metric;
    }
  }
}

TEST(MetricCatalog, LookupIgnoresCaseAndRejectsUnknownNames) {
  EXPECT_EQ(FindMetricGroup("pipeutilization"), FindMetricGroup("PipeUtilization"));
  EXPECT_EQ(FindMetricGroup("Nonsense"), nullptr);
  EXPECT_NE(MetricGroupNames().find("ResourceConflictRatio"), std::string::npos);
  EXPECT_STREQ(L2MetricGroup().msprof_name, "L2Cache");
  EXPECT_STREQ(L2MetricGroup().columns[0].cupti_metric, "lts__t_sector_hit_rate.pct");
}

}  // namespace
}  // namespace aiprof::cuda
