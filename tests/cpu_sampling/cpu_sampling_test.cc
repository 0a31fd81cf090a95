// End to end: `aiprof --sys-cpu-profiling=on [--host-sys=osrt] app`, then the model and
// the symbolised profile of what it wrote. No timing upper bounds: only the known shares
// of CPU time (by thread CPU clock, so a busy machine does not change them) and waits
// that last at least the known sleeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/cpu_profile/cpu_profile.h"
#include "cli/cli_runner.h"
#include "format/records_cpu.h"
#include "model/parser.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using testing::BuildDir;
using testing::RunShell;

struct Collected {
  std::string output;                // aiprof's stdout and stderr
  std::vector<model::Model> models;  // one per PROF_* directory (process)
};

Collected Collect(const std::string& env, const std::string& options, const std::string& app,
                  const std::string& mode) {
  std::string dir = (fs::temp_directory_path() /
                     ("aiprof_cpu_" + std::to_string(getpid()) + "_" + app + "_" + mode))
                        .string();
  fs::remove_all(dir);
  Collected result;
  auto run = RunShell(env + " " + BuildDir() + "/bin/aiprof --output=" + dir + " " + options + " " +
                      BuildDir() + "/bin/" + app + " " + mode);
  result.output = run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::string error;
  for (const std::string& prof : model::FindProfDirs(dir, &error)) {
    result.models.push_back(model::ParseFiles(model::ListRawFiles(prof)));
  }
  fs::remove_all(dir);
  return result;
}

const model::Model* LaunchedProcess(const Collected& c) {
  // The app's own process: the one whose samples come from two threads.
  for (const model::Model& m : c.models) {
    std::vector<uint32_t> threads(m.cpu.samples.thread);
    std::sort(threads.begin(), threads.end());
    if (std::unique(threads.begin(), threads.end()) - threads.begin() >= 2) return &m;
  }
  return nullptr;
}

// The process with the most samples. The timer fallback finds threads started after the
// window opened only at the writer's next flush (docs/cpu-sampling.md), so on a loaded
// machine a short run may have samples from its main thread alone.
const model::Model* MostSampledProcess(const Collected& c) {
  const model::Model* best = nullptr;
  for (const model::Model& m : c.models) {
    if (best == nullptr || m.cpu.samples.size() > best->cpu.samples.size()) best = &m;
  }
  return best;
}

void ExpectHotLoopOnTop(const model::Model& m, const std::string& what) {
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(m);
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(m, profile);
  ASSERT_FALSE(costs.empty());
  const analysis::ThreadCpuCost& all = costs.back();
  ASSERT_GT(all.samples, 100u) << what;
  ASSERT_FALSE(all.functions.empty());
  const analysis::FunctionCost& top = all.functions[0];
  EXPECT_EQ(profile.function_name[top.function].rfind("(anonymous namespace)::HotLoop", 0), 0u)
      << what << ": top is " << profile.function_name[top.function];
  double share = static_cast<double>(top.self) / static_cast<double>(all.samples);
  EXPECT_GT(share, 0.60) << what;
  EXPECT_LT(share, 0.80) << what;
}

TEST(CpuSampling, HotFunctionWithFramePointers) {
  Collected c =
      Collect("", "--sys-cpu-profiling=on --sys-cpu-freq=499", "cpu_sampling_app_fp", "hot");
  EXPECT_NE(c.output.find("CPU sampling: perf_event"), std::string::npos) << c.output;
  const model::Model* m = LaunchedProcess(c);
  ASSERT_NE(m, nullptr) << "no process with samples from two threads: " << c.output;
  ExpectHotLoopOnTop(*m, "frame pointers");
  // Frame-pointer chains: SpinFor is reached through ColdLoop, so ColdLoop's total holds
  // SpinFor's samples.
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(*m);
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(*m, profile);
  const analysis::ThreadCpuCost& all = costs.back();
  uint64_t spin_self = 0, cold_total = 0;
  for (const analysis::FunctionCost& f : all.functions) {
    const std::string& name = profile.function_name[f.function];
    if (name.find("SpinFor") != std::string::npos) spin_self = f.self;
    if (name.find("ColdLoop") != std::string::npos) cold_total = f.total;
  }
  EXPECT_GT(spin_self, 0u);
  EXPECT_GE(cold_total, spin_self * 9 / 10);
  // The forked child is sampled in its own process.
  bool child_sampled = false;
  for (const model::Model& other : c.models) {
    if (&other != m && other.cpu.samples.size() > 20) child_sampled = true;
  }
  EXPECT_TRUE(child_sampled) << c.models.size() << " processes";
  // Folded stacks name the hot function.
  auto folded = analysis::FoldedStacks(*m, profile, false);
  bool hot_stack = false;
  for (const auto& [stack, count] : folded) {
    if (stack.find("HotLoop") != std::string::npos && stack.find("main") != std::string::npos) {
      hot_stack = true;
    }
  }
  EXPECT_TRUE(hot_stack);
}

TEST(CpuSampling, HotFunctionWithoutFramePointers) {
  Collected c =
      Collect("", "--sys-cpu-profiling=on --sys-cpu-freq=499", "cpu_sampling_app_nofp", "hot");
  const model::Model* m = LaunchedProcess(c);
  ASSERT_NE(m, nullptr) << c.output;
  ExpectHotLoopOnTop(*m, "no frame pointers");
}

TEST(CpuSampling, TimerFallbackWhenForced) {
  Collected c = Collect("AIPROF_CPU_SAMPLING_MODE=timer",
                        "--sys-cpu-profiling=on --sys-cpu-freq=499", "cpu_sampling_app_fp", "hot");
  EXPECT_NE(c.output.find("CPU sampling: timer fallback"), std::string::npos) << c.output;
  const model::Model* m = MostSampledProcess(c);
  ASSERT_NE(m, nullptr) << c.output;
  for (uint16_t flags : m->cpu.samples.flags) {
    ASSERT_TRUE(flags & format::kCpuSampleTimer);
  }
  ASSERT_EQ(m->cpu.runs.size(), 1u);
  EXPECT_EQ(m->cpu.runs.mode[0], static_cast<uint16_t>(format::CpuSamplingMode::kTimer));
  ExpectHotLoopOnTop(*m, "timer fallback");
}

TEST(CpuSampling, WaitsOnMutexAndReadAreRecorded) {
  Collected c =
      Collect("", "--sys-cpu-profiling=on --host-sys=osrt", "cpu_sampling_app_fp", "block");
  ASSERT_EQ(c.models.size(), 1u) << c.output;
  const model::Model& m = c.models[0];
  uint32_t main_pid = m.processes.pid[0];
  int64_t mutex_wait = 0, read_wait = 0;
  for (size_t row = 0; row < m.slices.size(); ++row) {
    if (m.Str(m.slices.category[row]) != "osrt") continue;
    if (m.threads.tid[m.ThreadOfSlice(row)] != main_pid) continue;
    std::string_view name = m.Str(m.slices.name[row]);
    if (name == "pthread_mutex_lock") mutex_wait = std::max(mutex_wait, m.slices.dur(row));
    if (name == "read") read_wait = std::max(read_wait, m.slices.dur(row));
  }
  // The holder keeps the mutex 300 ms after the main thread starts waiting for it, then
  // writes the pipe 200 ms after unlocking (a little slack for the hand-over itself).
  EXPECT_GE(mutex_wait, 290'000'000) << c.output;
  EXPECT_GE(read_wait, 190'000'000) << c.output;
  // The kernel's switch records show the main thread blocked at least as long.
  int64_t longest_blocked = 0;
  bool blocked_with_stack = false;
  const model::ThreadStateTable& states = m.cpu.thread_states;
  for (size_t i = 0; i < states.size(); ++i) {
    if (m.threads.tid[states.thread[i]] != main_pid) continue;
    if (states.state[i] != model::ThreadState::kBlocked) continue;
    int64_t duration = states.end[i] - states.ts[i];
    if (duration > longest_blocked) {
      longest_blocked = duration;
      blocked_with_stack = states.stack[i] != UINT32_MAX;
    }
  }
  EXPECT_GE(longest_blocked, 190'000'000);
  EXPECT_TRUE(blocked_with_stack);
}

}  // namespace
}  // namespace aiprof
