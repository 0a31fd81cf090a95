// What the end-to-end dynamic tests share: a private XDG_RUNTIME_DIR for the jobs' control
// sockets, the real `aiprof` CLI and the sample job (dynamic_sample_job: it runs until a
// "finish" file exists), started in attach mode.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "subprocess.h"
#include "temp_dir.h"

namespace aiprof::testing {

// Creates `path` (the sample job's finish file, a config edit).
inline void Touch(const std::string& path) {
  std::ofstream(path) << "done\n";
}

// Waits up to 10 s for `path` to exist (or, `present` false, to be gone).
inline bool WaitForPath(const std::string& path, bool present = true) {
  for (int attempt = 0; attempt < 2000; ++attempt) {
    if ((access(path.c_str(), F_OK) == 0) == present) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

class DynamicJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_dir_ = dir_.path() + "/run";
    std::filesystem::create_directories(run_dir_);
  }
  std::string Aiprof() const { return BuildDir() + "/bin/aiprof"; }
  std::string SampleJob() const { return BuildDir() + "/bin/dynamic_sample_job"; }
  // A job's control socket in the private runtime directory.
  std::string Socket(pid_t pid) const {
    return run_dir_ + "/aiprof_dynamic_" + std::to_string(pid);
  }
  // The environment of a test's processes: the private runtime directory and `extra`.
  std::vector<std::string> Env(std::vector<std::string> extra = {}) const {
    extra.push_back("XDG_RUNTIME_DIR=" + run_dir_);
    return extra;
  }
  // Starts the sample job in attach mode with `env` (plus AIPROF_MODE=dynamic): it exits
  // with `exit_code` once `finish` exists. Returns once the job has printed its pid.
  std::unique_ptr<Subprocess> StartSampleJob(const std::string& finish, int exit_code,
                                             std::vector<std::string> env) {
    env.push_back("AIPROF_MODE=dynamic");
    auto job = std::make_unique<Subprocess>(
        std::vector<std::string>{SampleJob(), finish, std::to_string(exit_code)}, env);
    EXPECT_NE(job->ReadUntil("pid "), "");
    return job;
  }

  TempDir dir_;
  std::string run_dir_;
};

}  // namespace aiprof::testing
