// The loader against the real libcupti of the CUDA toolkit (present on build machines even
// without a GPU). Skipped where the toolkit's library is absent.
#include "sources/cuda/cupti_api.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "sources/cuda/profiler_api.h"

namespace aiprof::cuda {
namespace {

TEST(CuptiApi, ResolvesEveryEntryFromTheRealLibrary) {
  CuptiApi api{};
  std::string error;
  if (!LoadCuptiApi(&api, &error)) GTEST_SKIP() << error;
  EXPECT_NE(api.activity_register_timestamp_callback, nullptr);
  const char* name = nullptr;
  ASSERT_EQ(api.get_callback_name(CUPTI_CB_DOMAIN_RUNTIME_API, 211, &name), CUPTI_SUCCESS);
  EXPECT_STREQ(name, "cudaLaunchKernel_v7000");
  EXPECT_EQ(DescribeCuptiResult(api, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
}

TEST(CuptiApi, CudaEventDeviceTimestampsAndTheRangeProfilerResolveFromTheRealLibrary) {
  CuptiApi api{};
  std::string error;
  if (!LoadCuptiApi(&api, &error)) GTEST_SKIP() << error;
  EXPECT_NE(api.activity_enable_cuda_event_device_timestamps, nullptr)
      << "CUPTI 13 has cuptiActivityEnableCudaEventDeviceTimestamps";
  ProfilerApi profiler{};
  EXPECT_TRUE(LoadProfilerApi(&profiler, &error)) << error;
  EXPECT_NE(profiler.range_counter_data_get_range_info, nullptr);
  EXPECT_NE(profiler.host_evaluate_to_gpu_values, nullptr);
}

TEST(CuptiApi, NamesTheOverrideItCouldNotLoad) {
  setenv("AIPROF_CUPTI_PATH", "/nonexistent/libcupti.so", 1);
  CuptiApi api{};
  std::string error;
  const bool loaded = LoadCuptiApi(&api, &error);
  unsetenv("AIPROF_CUPTI_PATH");
  EXPECT_FALSE(loaded) << "the override is the only candidate";
  EXPECT_NE(error.find("/nonexistent/libcupti.so"), std::string::npos) << error;
  EXPECT_NE(error.find("AIPROF_CUPTI_PATH"), std::string::npos) << error;
}

}  // namespace
}  // namespace aiprof::cuda
