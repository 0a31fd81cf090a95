#include "sources/cuda/nvml_sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cuda/nvml_test_double.h"
#include "cuda/recording_host.h"

namespace aiprof::cuda {
namespace {

using testing::NvmlTestDouble;
using testing::RecordingHost;

TEST(NvmlSampler, EmitsEveryCounterOfEveryDeviceInOutputUnits) {
  NvmlTestDouble nvml;
  nvml.device(0) = {.sm_percent = 87,
                    .memory_percent = 41,
                    .memory_used = 30ull << 30,
                    .memory_total = 80ull << 30,
                    .power_milliwatts = 412345,
                    .sm_mhz = 1980,
                    .memory_mhz = 2619,
                    .temperature_c = 61,
                    .pcie_tx_kbps = 1000,
                    .pcie_rx_kbps = 2000};
  nvml.device(1) = nvml.device(0);
  nvml.device(1).sm_percent = 3;
  RecordingHost host;
  NvmlSampler sampler(nvml.api(), host.host());
  std::string error;
  ASSERT_TRUE(sampler.Open(&error)) << error;
  EXPECT_EQ(sampler.device_count(), 2u);
  EXPECT_EQ(sampler.SampleOnce(), 20u);

  std::map<std::string, std::pair<double, std::string>> values;  // "name/device" → value, unit
  for (const auto& record : host.OfKind(static_cast<uint8_t>(format::RecordKind::kCounter))) {
    EXPECT_EQ(record.header.aux, static_cast<uint16_t>(format::CounterScope::kDevice));
    const auto value = record.As<format::CounterValue>(0);
    values[host.String(record.header.arg) + "/" + std::to_string(value.instance)] = {
        value.value, host.String(value.unit)};
  }
  EXPECT_EQ(values["GPU Utilization/0"], std::make_pair(87.0, std::string("%")));
  EXPECT_EQ(values["GPU Utilization/1"].first, 3.0);
  EXPECT_EQ(values["GPU Memory Used/0"].first, static_cast<double>(30ull << 30));
  EXPECT_EQ(values["GPU Power/0"], std::make_pair(412.345, std::string("W")));
  EXPECT_EQ(values["GPU SM Clock/0"].first, 1980.0);
  EXPECT_EQ(values["GPU Memory Clock/0"].first, 2619.0);
  EXPECT_EQ(values["GPU Temperature/0"].first, 61.0);
  EXPECT_EQ(values["GPU PCIe RX/0"], std::make_pair(2000.0 * 1024, std::string("bytes/s")));
}

TEST(NvmlSampler, StopsAskingForCountersADeviceDoesNotSupport) {
  NvmlTestDouble nvml;
  nvml.device(0).pcie_supported = false;
  nvml.device(1).pcie_supported = false;
  RecordingHost host;
  NvmlSampler sampler(nvml.api(), host.host());
  std::string error;
  ASSERT_TRUE(sampler.Open(&error)) << error;
  EXPECT_EQ(sampler.SampleOnce(), 16u);
  const int queries = nvml.pcie_queries();
  EXPECT_EQ(sampler.SampleOnce(), 16u);
  EXPECT_EQ(nvml.pcie_queries(), queries);
}

TEST(NvmlSampler, ThreadSamplesUntilStoppedAndShutsNvmlDown) {
  NvmlTestDouble nvml;
  RecordingHost host;
  {
    NvmlSampler sampler(nvml.api(), host.host());
    std::string error;
    ASSERT_TRUE(sampler.Open(&error)) << error;
    sampler.Start(1000);
    while (host.records().size() < 40) std::this_thread::yield();
    sampler.Stop();
    const size_t after_stop = host.records().size();
    EXPECT_EQ(after_stop % 20, 0u) << "whole passes only";
  }
  EXPECT_FALSE(nvml.initialized());
}

}  // namespace
}  // namespace aiprof::cuda
