// A CUDA job's exit under aiprof (cuda_exit_child, with cupti_exit_double as libcupti): the
// job exits 0, the CUDA source ends its collection before CUDA's exit handlers tear CUPTI
// down, makes no CUPTI call after them, and the window is still written and closed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(CudaExit, TheSourceFinishesBeforeCudaTearsCuptiDown) {
  const char* build = std::getenv("AIPROF_BUILD_DIR");
  ASSERT_NE(build, nullptr);
  const fs::path output =
      fs::temp_directory_path() / ("aiprof_cuda_exit_" + std::to_string(getpid()));
  fs::remove_all(output);
  const std::string plugin = std::string(build) + "/lib/libaiprof_cuda.so";
  const std::string cupti = std::string(build) + "/lib/libcupti_exit_double.so";
  const fs::path log = output.string() + ".stderr";
  const std::string command =
      "AIPROF_OPTIONS='{\"output\":\"" + output.string() + "\",\"mode\":\"launch\"," +
      "\"task_time\":\"l1\",\"runtime_api\":true}' AIPROF_CUPTI_PATH=" + cupti +
      " CUDA_INJECTION64_PATH=" + plugin + " " + build + "/bin/cuda_exit_child " + plugin + " " +
      cupti + " 2>" + log.string();
  const int status = std::system(command.c_str());
  std::ifstream log_in(log);
  std::stringstream stderr_text;
  stderr_text << log_in.rdbuf();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << "; stderr:\n"
                                                             << stderr_text.str();
  EXPECT_NE(stderr_text.str().find("torn down with 0 activity kind(s) enabled"), std::string::npos)
      << "the source disables its activity kinds before CUDA's exit handlers run:\n"
      << stderr_text.str();

  std::string dir;
  for (const auto& entry : fs::directory_iterator(output)) dir = entry.path().string();
  ASSERT_NE(dir.find("PROF_"), std::string::npos) << "the window's directory in " << output;
  std::ifstream info_in(fs::path(dir) / "info.json");
  ASSERT_TRUE(info_in.good()) << dir;
  const nlohmann::json info = nlohmann::json::parse(info_in, nullptr, false);
  ASSERT_FALSE(info.is_discarded());
  EXPECT_EQ(info.value("stop_reason", ""), "exit") << info.dump();
  fs::remove_all(output);
  fs::remove(log);
}

}  // namespace
