#include "sources/host/host_sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/raw_data.h"
#include "format/records_host.h"
#include "sources/host/prof_dirs.h"

namespace aiprof::host {
namespace {
namespace fs = std::filesystem;
namespace names = format::host_counters;
using testing::RawData;

class HostSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/aiprof_sampler_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    // A real child doing real work: it spins and touches memory until killed.
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      std::vector<char> memory;
      volatile uint64_t sum = 0;
      while (true) {
        memory.resize((memory.size() + 4096) % (64 << 20));
        for (int i = 0; i < 100000; ++i) sum = sum + static_cast<uint64_t>(i);
      }
    }
  }
  void TearDown() override {
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  HostSamplerOptions AllOn() const {
    HostSamplerOptions options;
    options.machine_cpu = options.machine_mem = options.network = true;
    options.process_cpu = options.process_mem = options.process_disk = true;
    options.sample_hz = 100;
    options.output_dir = dir_;
    options.root_pid = child_;
    options.metadata = {{"app", {"spinner"}}};
    return options;
  }
  static void SampleThreeTimes(HostSampler* sampler) {
    for (int i = 0; i < 3; ++i) {
      sampler->SampleOnce();
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
  }
  std::string dir_;
  pid_t child_ = -1;
};

TEST_F(HostSamplerTest, WritesMachineAndProcessCountersIntoNewProfDir) {
  HostSampler sampler(AllOn());
  SampleThreeTimes(&sampler);
  std::string message;
  std::string prof_dir = sampler.Stop({{"code", 0}}, &message);
  EXPECT_EQ(message, "");
  ASSERT_NE(prof_dir, "");
  EXPECT_EQ(fs::path(prof_dir).filename().string().rfind("PROF_000001_", 0), 0u) << prof_dir;
  std::string path = prof_dir + "/host/data/host_sys." + std::to_string(getpid()) + ".data";
  RawData data;
  std::string error;
  ASSERT_TRUE(testing::ReadRawData(path, &data, &error)) << error;
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();

  EXPECT_EQ(data.metadata["clock"]["source"], "monotonic_raw");
  EXPECT_EQ(data.metadata["source"], "host_sys");
  EXPECT_EQ(data.metadata["exit_status"]["code"], 0);
  EXPECT_EQ(data.metadata["root_pid"], child_);
  ASSERT_TRUE(data.metadata["processes"].contains(std::to_string(child_)));
  EXPECT_EQ(data.metadata["processes"][std::to_string(child_)]["ppid"], getpid());
  EXPECT_FALSE(data.OfKind(format::RecordKind::kClockSync).empty());

  // Rates need a previous sample: three passes give two values per rate series.
  auto user = data.Counter(names::kCpuUser);
  ASSERT_FALSE(user.empty());
  bool machine_seen = false, cpu0_seen = false;
  for (const auto& record : data.OfKind(format::RecordKind::kCounter)) {
    if (data.Name(record.arg) != names::kCpuIdle) continue;
    format::CounterValue value;
    std::memcpy(&value, record.ext.data(), sizeof(value));
    EXPECT_GE(value.value, 0.0);
    EXPECT_LE(value.value, 100.0);
    machine_seen |= record.aux == static_cast<uint16_t>(format::CounterScope::kMachine);
    cpu0_seen |=
        record.aux == static_cast<uint16_t>(format::CounterScope::kCpu) && value.instance == 0;
  }
  EXPECT_TRUE(machine_seen);
  EXPECT_TRUE(cpu0_seen);
  auto total = data.Counter(names::kMemTotal);
  ASSERT_FALSE(total.empty());
  EXPECT_GT(total[0].value, 0.0);
  EXPECT_EQ(data.Name(total[0].unit), "KB");
  EXPECT_FALSE(data.Counter(names::kContextSwitches).empty());

  auto child_series = [&](const char* name) {
    std::vector<double> values;
    for (const auto& value : data.Counter(name)) {
      if (value.instance == static_cast<uint32_t>(child_)) values.push_back(value.value);
    }
    return values;
  };
  auto cpu = child_series(names::kProcCpu);
  ASSERT_EQ(cpu.size(), 2u);
  auto rss = child_series(names::kProcRss);
  ASSERT_EQ(rss.size(), 3u);
  EXPECT_GT(rss[0], 0.0);
  EXPECT_EQ(child_series(names::kProcThreads), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(child_series(names::kProcDiskRead).size(), 2u);
  EXPECT_EQ(child_series(names::kProcMinorFaults).size(), 2u);
}

TEST_F(HostSamplerTest, JoinsTheAppsOwnProfDir) {
  std::string app_dir = dir_ + "/PROF_000007_20260101000000000_ABCDEFGHIJKLMNOP";
  fs::create_directories(app_dir + "/host/data");
  std::ofstream(app_dir + "/host/data/aiprof." + std::to_string(child_) + ".data") << "x";
  HostSampler sampler(AllOn());
  sampler.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string message;
  EXPECT_EQ(sampler.Stop({{"signal", 9}}, &message), app_dir);
  EXPECT_TRUE(fs::exists(app_dir + "/host/data/host_sys." + std::to_string(getpid()) + ".data"));
  EXPECT_EQ(ListProfDirs(dir_).size(), 1u);
}

TEST_F(HostSamplerTest, WritesNothingOutsideTheWindow) {
  HostSamplerOptions options = AllOn();
  options.window_begin_ns = MonotonicRawNs() + 3600ull * 1000000000ull;
  HostSampler sampler(options);
  SampleThreeTimes(&sampler);
  std::string message;
  EXPECT_EQ(sampler.Stop({{"code", 0}}, &message), "");
  EXPECT_EQ(sampler.samples_taken(), 0u);
  EXPECT_TRUE(ListProfDirs(dir_).empty());
}

TEST(ProfDirs, CreatesMsprofNamesWithIncreasingSequence) {
  char pattern[] = "/tmp/aiprof_dirs_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string error;
  std::string first = CreateProfDir(pattern, &error);
  std::string second = CreateProfDir(pattern, &error);
  ASSERT_NE(first, "") << error;
  std::string name = fs::path(second).filename().string();
  EXPECT_EQ(name.rfind("PROF_000002_", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("PROF_000002_20260101000000000_ABCDEFGHIJKLMNOP").size());
  EXPECT_TRUE(fs::is_directory(second + "/host/data"));
  fs::remove_all(pattern);
}

}  // namespace
}  // namespace aiprof::host
