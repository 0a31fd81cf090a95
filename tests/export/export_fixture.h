// Shared by the export tests: a temporary directory holding the golden PROF_* data set.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/golden_data.h"

namespace aiprof::exporter {

class ExportFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("aiprof_export_test_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    prof_ = testing::WriteGoldenProfDir(root_.string());
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }
  std::string Output(const std::string& name) const {
    return (std::filesystem::path(prof_) / "aiprof_output" / name).string();
  }

  std::filesystem::path root_;
  std::string prof_;
};

// Realtime ns of a golden relative time, as µs with 3 decimals ("1700000005000001.100").
inline std::string GoldenMicros(uint64_t relative_ns) {
  int64_t ns = testing::GoldenRealtime(relative_ns);
  char text[40];
  std::snprintf(text, sizeof(text), "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return text;
}

}  // namespace aiprof::exporter
