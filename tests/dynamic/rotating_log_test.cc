#include "runtime/dynamic/rotating_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_dir.h"

namespace aiprof::dynamic {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RotatingLog, RotatesAt200KBToDotOneAndKeepsAtMostTwoFiles) {
  testing::TempDir dir;
  std::string path = dir.path() + "/dp_host_1_rank_0.log";
  RotatingLog log;
  ASSERT_TRUE(log.Open(path));
  std::string payload(1000, 'x');
  for (int i = 0; i < 500; ++i) log.Write("INFO", "line " + std::to_string(i) + " " + payload);
  namespace fs = std::filesystem;
  ASSERT_TRUE(fs::exists(path + ".1"));
  EXPECT_LE(fs::file_size(path), kDefaultLogLimitBytes);
  EXPECT_LE(fs::file_size(path + ".1"), kDefaultLogLimitBytes);
  EXPECT_GT(fs::file_size(path + ".1"), kDefaultLogLimitBytes - 1100);
  EXPECT_FALSE(fs::exists(path + ".2"));
  // The newest line is in the current file, the oldest ones aged out entirely.
  EXPECT_NE(Slurp(path).find("line 499 "), std::string::npos);
  EXPECT_EQ(Slurp(path + ".1").find("line 0 "), std::string::npos);
  EXPECT_EQ(Slurp(path).find("line 0 "), std::string::npos);
  EXPECT_NE(Slurp(path).find(" INFO line 499"), std::string::npos);
}

TEST(RotatingLog, ReopenAppendsAndCountsExistingSize) {
  testing::TempDir dir;
  std::string path = dir.path() + "/monitor.log";
  {
    RotatingLog log;
    ASSERT_TRUE(log.Open(path, 1000));
    log.Write("INFO", std::string(600, 'a'));
  }
  RotatingLog log;
  ASSERT_TRUE(log.Open(path, 1000));
  log.Write("INFO", std::string(600, 'b'));
  EXPECT_NE(Slurp(path + ".1").find("aaaa"), std::string::npos);
  EXPECT_NE(Slurp(path).find("bbbb"), std::string::npos);
}

TEST(RotatingLog, UnwritablePathIsHarmless) {
  RotatingLog log;
  EXPECT_FALSE(log.Open("/nonexistent_dir_aiprof/x.log"));
  log.Write("INFO", "dropped");
}

}  // namespace
}  // namespace aiprof::dynamic
