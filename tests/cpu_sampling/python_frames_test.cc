// End to end: `aiprof --sys-cpu-profiling=on python3 apps/python_hot.py`, a CPython program
// whose hot_function takes ~70% of the CPU (same loop body as cold_function, 7 vs 3
// iterations). The samples must carry the Python frames, hot_function must be the
// innermost Python frame of 60-80% of the on-CPU samples, and the exports name it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
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

bool IsPythonFrame(const std::string& name) {
  return name.find(".py:") != std::string::npos;
}

TEST(CpuSamplingPython, HotPythonFunctionIsTheTopPythonFrame) {
  std::string dir =
      (fs::temp_directory_path() / ("aiprof_pyframes_" + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  auto run = RunShell(BuildDir() + "/bin/aiprof --output=" + dir +
                      " --sys-cpu-profiling=on --sys-cpu-freq=499 " AIPROF_TEST_CPYTHON
                      " " AIPROF_TEST_PYTHON_APP " 3000");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("Python frames of CPython 3.11"), std::string::npos) << run.output;
  std::string error;
  std::vector<std::string> profs = model::FindProfDirs(dir, &error);
  ASSERT_EQ(profs.size(), 1u) << error;
  model::Model m = model::ParseFiles(model::ListRawFiles(profs[0]));
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(m);

  // The innermost Python frame of each on-CPU sample, and the threads with Python frames.
  std::map<std::string, uint64_t> innermost;
  std::map<uint32_t, uint64_t> python_threads;
  uint64_t samples = 0;
  for (size_t i = 0; i < m.cpu.samples.size(); ++i) {
    if (m.cpu.samples.flags[i] & format::kCpuSampleOffCpu) continue;
    ++samples;
    for (uint32_t function : profile.Stack(m.cpu.samples.stack[i])) {
      if (IsPythonFrame(profile.function_name[function])) {
        ++innermost[profile.function_name[function]];
        ++python_threads[m.cpu.samples.thread[i]];
        break;
      }
    }
  }
  ASSERT_GT(samples, 100u) << run.output;
  std::string top;
  uint64_t top_count = 0, python_samples = 0;
  std::ostringstream seen;
  for (const auto& [name, count] : innermost) {
    seen << name << ": " << count << "\n";
    python_samples += count;
    if (count > top_count) top = name, top_count = count;
  }
  EXPECT_EQ(top.rfind("hot_function (python_hot.py:", 0), 0u) << seen.str();
  // Its share of the two functions' samples: 7 of every 10 iterations. Not of every sample:
  // on a loaded machine the main thread's GIL hand-offs (samples in main itself) grow.
  uint64_t cold_count = 0;
  for (const auto& [name, count] : innermost) {
    if (name.rfind("cold_function (python_hot.py:", 0) == 0) cold_count += count;
  }
  double share = static_cast<double>(top_count) / static_cast<double>(top_count + cold_count);
  EXPECT_GT(share, 0.60) << seen.str() << samples << " samples";
  EXPECT_LT(share, 0.80) << seen.str() << samples << " samples";
  // Nearly every sample of a pure-Python loop has its Python stack.
  EXPECT_GT(python_samples * 10, samples * 9) << seen.str() << samples << " samples";
  // The main thread and the threading.Thread both have Python frames.
  EXPECT_GE(python_threads.size(), 2u);

  // The whole Python stack, outermost first: <module> → main → rounds → hot_function.
  auto folded = analysis::FoldedStacks(m, profile, false);
  bool whole = false;
  for (const auto& [stack, count] : folded) {
    size_t module = stack.find("<module> (python_hot.py:");
    size_t main = stack.find(";main (python_hot.py:");
    size_t rounds = stack.find(";rounds (python_hot.py:");
    size_t hot = stack.find(";hot_function (python_hot.py:");
    if (module != std::string::npos && module < main && main < rounds && rounds < hot &&
        hot != std::string::npos) {
      whole = true;
    }
  }
  EXPECT_TRUE(whole) << folded.size()
                     << " stacks, first: " << (folded.empty() ? "" : folded.begin()->first);

  // The folded stacks of the automatic export name the hot Python function.
  bool in_export = false;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("cpu_stacks_", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("hot_function (python_hot.py:") != std::string::npos) in_export = true;
  }
  EXPECT_TRUE(in_export);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace aiprof
