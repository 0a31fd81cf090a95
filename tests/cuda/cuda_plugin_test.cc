// libaiprof_cuda.so itself, loaded into a process that has the runtime, with the real
// libcupti of the toolkit and no GPU: it must attach, follow the runtime's windows without
// harming the process, say why nothing is traced, and record the metrics status.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "aiprof/aiprof.h"
#include "aiprof/cuda_correlation.h"
#include "model/parser.h"

namespace {

namespace fs = std::filesystem;

TEST(CudaPlugin, AttachesAndFollowsWindowsWithoutAGpu) {
  const char* build = std::getenv("AIPROF_BUILD_DIR");
  ASSERT_NE(build, nullptr);
  const fs::path output =
      fs::temp_directory_path() / ("aiprof_cuda_plugin_" + std::to_string(getpid()));
  fs::remove_all(output);
  ASSERT_EQ(aiprofInit(output.c_str()), 0) << aiprofLastError();

  const std::string plugin = std::string(build) + "/lib/libaiprof_cuda.so";
  void* handle = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto initialize = reinterpret_cast<int (*)()>(dlsym(handle, "InitializeInjection"));
  auto push = reinterpret_cast<aiprof_cuda_push_external_id_fn>(
      dlsym(handle, AIPROF_CUDA_PUSH_EXTERNAL_ID));
  auto pop =
      reinterpret_cast<aiprof_cuda_pop_external_id_fn>(dlsym(handle, AIPROF_CUDA_POP_EXTERNAL_ID));
  ASSERT_TRUE(initialize && push && pop);
  ASSERT_EQ(dlsym(RTLD_DEFAULT, AIPROF_CUDA_PUSH_EXTERNAL_ID), nullptr) << "loaded locally";
  const int attached = initialize();
  // As the driver's injection: the torch plugin finds the push function in global scope.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, AIPROF_CUDA_PUSH_EXTERNAL_ID), reinterpret_cast<void*>(push));
  if (attached == 0) {
    aiprofFinalize();
    fs::remove_all(output);
    GTEST_SKIP() << "libcupti could not be loaded here";
  }

  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  ASSERT_EQ(aiprofConfigSetOption(config, "ai_core", "true"), 0);
  ASSERT_EQ(aiprofConfigSetOption(config, "aic_metrics", "\"Memory\""), 0);
  ASSERT_EQ(aiprofStart(config), 0) << aiprofLastError();
  // Without a driver CUPTI refuses; either way the calls return and balance.
  const int pushed = push(AIPROF_CUDA_EXTERNAL_OPERATOR, 7);
  EXPECT_EQ(pop(AIPROF_CUDA_EXTERNAL_OPERATOR), pushed);
  const std::string dir = aiprofCurrentDir();
  ASSERT_EQ(aiprofStop(config), 0) << aiprofLastError();
  aiprofDestroyConfig(config);
  aiprofFinalize();

  const aiprof::model::Model m = aiprof::model::ParseProfDir(dir);
  bool status_found = false;
  for (size_t i = 0; i < m.instants.size(); ++i) {
    if (m.Str(m.instants.category[i]) != "cuda_metrics") continue;
    status_found = true;
    EXPECT_NE(m.Str(m.instants.name[i]).find("Memory"), std::string_view::npos);
    EXPECT_NE(m.Str(m.instants.name[i]).find("N/A"), std::string_view::npos);
  }
  EXPECT_TRUE(status_found) << "the metrics status is in the data";
  fs::remove_all(output);
}

}  // namespace
