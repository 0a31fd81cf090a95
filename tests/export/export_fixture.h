// Shared by the export tests: a temporary directory holding the golden PROF_* data set.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "model/importer.h"
#include "model/nesting.h"
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

// Framework operators of a CPU-only run (as the torch source imports them).
inline model::Model CpuOpModel() {
  model::Model m;
  model::ImportContext context(&m);
  m.processes.pid.push_back(7);
  m.processes.host.push_back(0);
  m.processes.name.push_back(m.strings.Intern("python"));
  m.processes.label.push_back(m.strings.Intern("CPU"));
  m.processes.sort_index.push_back(7);
  m.processes.device_id.push_back(-1);
  m.processes.rank.push_back(-1);
  m.processes.metadata.emplace_back();
  context.SetProcess(0);
  uint32_t track = context.MainTrack(context.Thread(0, 70));
  model::StringId cpu_op = m.strings.Intern("cpu_op");
  model::StringId mm = m.strings.Intern("aten::mm"), add = m.strings.Intern("aten::add");
  // aten::mm 100 ns @1000, 300 ns @1200; aten::add 50 ns @1600.
  context.AddSlice(track, 1000, 1100, mm, cpu_op);
  context.AddSlice(track, 1200, 1500, mm, cpu_op);
  context.AddSlice(track, 1600, 1650, add, cpu_op);
  model::ResolveNesting(m);
  return m;
}

}  // namespace aiprof::exporter
