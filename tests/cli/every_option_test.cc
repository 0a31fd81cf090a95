// Every option that `aiprof` and its commands list in --help either changes what a run
// produces or is rejected with exit 2 and a message naming it: no option is accepted and
// ignored. The options are read from the built binary's help texts, so an option added
// without an entry below fails this test.
//
// Collect options (shared by `collect`, the msprof form and `dynamic`) are checked on the
// launch configuration, the one thing the launcher hands to the runtime (AIPROF_OPTIONS),
// the host sampler and the export after collection; export and query options are checked
// on the files a real `aiprof export` writes from the golden PROF_* data.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "cli/cli_runner.h"
#include "cli/collect_options.h"
#include "support/golden_data.h"

namespace aiprof::cli {
namespace {
namespace fs = std::filesystem;
using aiprof::testing::BuildDir;
using aiprof::testing::RunAiprof;
using aiprof::testing::RunShell;

// The long options a help text lists ("  --name TEXT ..." or "  -o,--output TEXT ...").
std::set<std::string> HelpOptions(const std::string& command) {
  auto help = RunAiprof(command + " --help");
  EXPECT_EQ(help.exit_code, 0) << command << " --help failed:\n" << help.output;
  std::set<std::string> options;
  std::istringstream lines(help.output);
  std::string line;
  while (std::getline(lines, line)) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] != '-') continue;
    std::string names = line.substr(start, line.find(' ', start) - start);
    std::istringstream parts(names);
    std::string name;
    while (std::getline(parts, name, ',')) {
      name = name.substr(0, name.find('='));
      if (name.rfind("--", 0) == 0 && name != "--help") options.insert(name);
    }
  }
  return options;
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// What the launcher would run with: `collect` parsing, checking and conversion, in process.
bool LaunchConfiguration(const std::string& words, nlohmann::json* out, std::string* error) {
  CLI::App app;
  app.prefix_command();
  CollectArgs args;
  AddCollectOptions(&app, &args);
  std::vector<std::string> tokens = Words(words);
  std::reverse(tokens.begin(), tokens.end());
  try {
    app.parse(tokens);
  } catch (const CLI::ParseError& parse_error) {
    *error = parse_error.what();
    return false;
  }
  args.app = app.remaining();
  NoteExplicitOptions(app, &args);
  CollectConfig config;
  if (!ResolveCollectArgs(args, Machine{true, ""}, &config, error)) return false;
  const host::HostSamplerOptions& s = config.sampler;
  *out = {{"runtime", RuntimeOptionsJson(config, 0)},
          {"sampler",
           {s.process_cpu, s.process_mem, s.process_disk, s.network, s.machine_cpu, s.machine_mem,
            s.sample_hz}},
          {"environment", config.environment},
          {"export_after", config.export_after}};
  return true;
}

enum class Expect { kChanges, kRejected };

struct CollectProbe {
  const char* option;
  const char* words;  // the option with a value other than its default
  Expect expect;
  const char* baseline = "";  // options both runs have (the one this option paces)
};

const CollectProbe kCollectProbes[] = {
    {"--output", "--output=/tmp/elsewhere", Expect::kChanges},
    {"--type", "--type=db", Expect::kChanges},
    {"--export", "--export=off", Expect::kChanges},
    {"--storage-limit", "--storage-limit=10MB", Expect::kChanges},
    {"--buffer-size", "--buffer-size=8", Expect::kChanges},
    {"--delay", "--delay=1", Expect::kChanges},
    {"--duration", "--duration=1", Expect::kChanges},
    {"--msproftx", "--msproftx=off", Expect::kChanges},
    {"--mstx-domain-include", "--mstx-domain-include=a", Expect::kChanges},
    {"--mstx-domain-exclude", "--mstx-domain-exclude=a", Expect::kChanges},
    {"--task-time", "--task-time=l0", Expect::kChanges},
    {"--task-memory", "--task-memory=on", Expect::kChanges},
    {"--ascendcl", "--ascendcl=off", Expect::kChanges},
    {"--runtime-api", "--runtime-api=off", Expect::kChanges},
    // on is accepted because its data (step records) is in every window; off is refused.
    {"--model-execution", "--model-execution=off", Expect::kRejected},
    {"--hccl", "--hccl=on", Expect::kChanges},
    {"--ai-core", "--ai-core=off", Expect::kChanges},
    {"--aic-mode", "--aic-mode=sample-based", Expect::kRejected},
    {"--aic-metrics", "--aic-metrics=Memory", Expect::kChanges},
    {"--aic-freq", "--aic-freq=50", Expect::kRejected},
    {"--l2", "--l2=on", Expect::kChanges},
    {"--aicpu", "--aicpu=on", Expect::kRejected},
    {"--sys-hardware-mem", "--sys-hardware-mem=on", Expect::kChanges},
    {"--sys-hardware-mem-freq", "--sys-hardware-mem-freq=10", Expect::kChanges,
     "--sys-hardware-mem=on"},
    {"--sys-hardware-mem-freq", "--sys-hardware-mem-freq=10", Expect::kRejected},
    {"--sys-cpu-profiling", "--sys-cpu-profiling=on", Expect::kChanges},
    {"--sys-cpu-freq", "--sys-cpu-freq=1000", Expect::kChanges, "--sys-cpu-profiling=on"},
    {"--sys-cpu-freq", "--sys-cpu-freq=1000", Expect::kRejected},
    {"--sys-cpu-call-graph", "--sys-cpu-call-graph=dwarf", Expect::kChanges,
     "--sys-cpu-profiling=on"},
    {"--sys-cpu-call-graph", "--sys-cpu-call-graph=dwarf", Expect::kRejected},
    {"--sys-cpu-off-cpu-stacks", "--sys-cpu-off-cpu-stacks=off", Expect::kChanges,
     "--sys-cpu-profiling=on"},
    {"--sys-cpu-off-cpu-stacks", "--sys-cpu-off-cpu-stacks=20", Expect::kChanges,
     "--sys-cpu-profiling=on"},
    {"--sys-cpu-off-cpu-stacks", "--sys-cpu-off-cpu-stacks=off", Expect::kRejected},
    {"--sys-cpu-off-cpu-stacks", "--sys-cpu-off-cpu-stacks=sometimes", Expect::kRejected,
     "--sys-cpu-profiling=on"},
    {"--host-sys", "--host-sys=cpu", Expect::kChanges},
    {"--host-sys", "--host-sys=osrt", Expect::kChanges},
    {"--host-sys-usage", "--host-sys-usage=cpu", Expect::kChanges},
    {"--host-sys-usage-freq", "--host-sys-usage-freq=10", Expect::kChanges, "--host-sys=cpu"},
    {"--host-sys-usage-freq", "--host-sys-usage-freq=10", Expect::kRejected},
    {"--sys-profiling", "--sys-profiling=on", Expect::kChanges},
    {"--sys-sampling-freq", "--sys-sampling-freq=5", Expect::kChanges, "--sys-profiling=on"},
    {"--sys-sampling-freq", "--sys-sampling-freq=5", Expect::kRejected},
    {"--sys-pid-profiling", "--sys-pid-profiling=on", Expect::kChanges},
    {"--sys-pid-sampling-freq", "--sys-pid-sampling-freq=5", Expect::kChanges,
     "--sys-pid-profiling=on"},
    {"--sys-pid-sampling-freq", "--sys-pid-sampling-freq=5", Expect::kRejected},
    {"--follow-children", "--follow-children=off", Expect::kChanges},
    {"--environment", "--environment=A=1", Expect::kChanges},
    {"--application", "--application=/bin/echo", Expect::kChanges},
};

TEST(EveryOption, CollectOptionsChangeTheLaunchOrAreRejected) {
  std::set<std::string> listed = HelpOptions("collect");
  ASSERT_GT(listed.size(), 30u);
  std::set<std::string> covered;
  for (const CollectProbe& probe : kCollectProbes) {
    SCOPED_TRACE(probe.words);
    covered.insert(probe.option);
    EXPECT_TRUE(listed.count(probe.option)) << probe.option << " is not in collect --help";
    const std::string app = std::string(probe.option) == "--application" ? "" : " /bin/true";
    if (probe.expect == Expect::kRejected) {
      for (const char* form : {"collect ", "", "--dynamic=on "}) {
        auto result =
            RunAiprof(std::string(form) + probe.baseline + " " + probe.words + app + " </dev/null");
        EXPECT_EQ(result.exit_code, 2) << form << "\n" << result.output;
        EXPECT_NE(result.output.find(probe.option), std::string::npos) << result.output;
      }
      continue;
    }
    nlohmann::json before, after;
    std::string error;
    ASSERT_TRUE(LaunchConfiguration(std::string(probe.baseline) + " /bin/true", &before, &error))
        << error;
    ASSERT_TRUE(
        LaunchConfiguration(std::string(probe.baseline) + " " + probe.words + app, &after, &error))
        << error;
    EXPECT_NE(before, after) << probe.words << " changed nothing the launcher hands on";
  }
  for (const std::string& option : listed) {
    EXPECT_TRUE(covered.count(option))
        << option << " is in collect --help but not checked here: add a probe that shows it "
        << "changes the run, or reject it";
  }
}

TEST(EveryOption, DynamicHasTheCollectOptionsAndItsOwn) {
  std::set<std::string> dynamic = HelpOptions("dynamic");
  std::set<std::string> collect = HelpOptions("collect");
  collect.insert({"--pid", "--list"});
  EXPECT_EQ(dynamic, collect);

  // --list lists (or says there is nothing to list); --pid attaches (and says why not).
  auto none = RunAiprof("dynamic </dev/null");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  auto list = RunAiprof("dynamic --list </dev/null");
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output, none.output);
  auto pid = RunAiprof("dynamic --pid=" + std::to_string(getpid()) + " </dev/null");
  EXPECT_EQ(pid.exit_code, 1) << pid.output;
  EXPECT_NE(pid.output.find("no job to control"), std::string::npos) << pid.output;
  auto export_in_attach = RunAiprof("dynamic --export=off --pid=1 </dev/null");
  EXPECT_EQ(export_in_attach.exit_code, 2) << export_in_attach.output;
  EXPECT_NE(export_in_attach.output.find("--export"), std::string::npos);

  // Seed 004: options are options in every mode, never the program to run.
  auto unknown = RunAiprof("--dynamic=on --no-such-option=on /bin/true </dev/null");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown option '--no-such-option=on'"), std::string::npos)
      << unknown.output;
  EXPECT_EQ(unknown.output.find("cannot run"), std::string::npos) << unknown.output;
}

// The msprof command lines of seeds 000 (launch) and 004 (dynamic launch and attach), with
// msprof -> aiprof and the app replaced: accepted, except --aicpu=on, which is refused by
// name in every mode (no AI CPU here).
TEST(EveryOption, SeedCommandLinesWorkOrAreRejectedPrecisely) {
  const std::string out =
      (fs::temp_directory_path() / ("aiprof_seed_lines_" + std::to_string(getpid()))).string();
  auto launch = RunAiprof("--application=/bin/true --output=" + out +
                          " --ascendcl=on --model-execution=on --runtime-api=on --task-time=on "
                          "--ai-core=on --export=off");
  EXPECT_EQ(launch.exit_code, 0) << launch.output;
  EXPECT_NE(launch.output.find("Data is saved in " + out + "/PROF_"), std::string::npos)
      << launch.output;
  fs::remove_all(out);

  const std::string seed_options = " --output=" + out + " --model-execution=on --runtime-api=on";
  auto attach =
      RunAiprof("--dynamic=on --pid=" + std::to_string(getpid()) + seed_options + " </dev/null");
  EXPECT_EQ(attach.exit_code, 1) << attach.output;  // accepted; this process is no job
  EXPECT_NE(attach.output.find("no job to control"), std::string::npos) << attach.output;

  for (const std::string& line :
       {"--dynamic=on" + seed_options + " --aicpu=on /bin/true",
        "--dynamic=on --pid=" + std::to_string(getpid()) + seed_options + " --aicpu=on",
        "--application=/bin/true" + seed_options + " --aicpu=on"}) {
    auto result = RunAiprof(line + " </dev/null");
    EXPECT_EQ(result.exit_code, 2) << line << "\n" << result.output;
    EXPECT_NE(result.output.find("--aicpu=on"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("cannot run"), std::string::npos) << result.output;
  }
  fs::remove_all(out);
}

class ExportOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aiprof_every_option_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    prof_ = aiprof::testing::WriteGoldenProfDir(root_.string());
  }
  void TearDown() override { fs::remove_all(root_); }

  // Every file under the PROF_* directory but the raw data: name (timestamps cut) → size.
  std::map<std::string, uintmax_t> Outputs() const {
    std::map<std::string, uintmax_t> files;
    for (const auto& entry : fs::recursive_directory_iterator(prof_)) {
      if (!entry.is_regular_file()) continue;
      std::string name = fs::relative(entry.path(), prof_).string();
      if (name.rfind("host/", 0) == 0 || name == "info.json") continue;
      files[name] = entry.file_size();
    }
    return files;
  }
  std::map<std::string, uintmax_t> Export(const std::string& options) {
    fs::remove_all(fs::path(prof_) / "aiprof_output");
    for (const auto& entry : fs::directory_iterator(prof_)) {
      if (entry.path().extension() == ".db") fs::remove(entry.path());
    }
    auto result = RunAiprof("export --output=" + prof_ + " " + options);
    EXPECT_EQ(result.exit_code, 0) << options << "\n" << result.output;
    return Outputs();
  }

  fs::path root_;
  std::string prof_;
};

TEST_F(ExportOptions, EachChangesTheFilesWritten) {
  std::set<std::string> listed = HelpOptions("export");
  const std::map<std::string, uintmax_t> plain = Export("");
  ASSERT_FALSE(plain.empty());
  const std::map<std::string, std::function<void()>> checks = {
      {"--output",
       [&] {
         auto missing = RunAiprof("export");
         EXPECT_EQ(missing.exit_code, 2);
         EXPECT_NE(missing.output.find("--output"), std::string::npos) << missing.output;
       }},
      {"--type", [&] { EXPECT_NE(Export("--type=db"), plain); }},
      {"--iteration-id", [&] { EXPECT_NE(Export("--iteration-id=2"), plain); }},
      {"--summary-format", [&] { EXPECT_NE(Export("--summary-format=json"), plain); }},
      {"--timeline-format", [&] { EXPECT_NE(Export("--timeline-format=perfetto"), plain); }},
      {"--critical-path",
       [&] {
         const auto without = Export("");
         EXPECT_NE(Export("--critical-path=on"), without);
         EXPECT_TRUE(fs::exists(fs::path(prof_) / "aiprof_output" / "analysis" /
                                "critical_path_steps.csv"));
       }},
      {"--clear",
       [&] {
         const fs::path stale = fs::path(prof_) / "aiprof_output" / "op_summary_1.csv";
         Export("");
         std::ofstream(stale) << "stale\n";
         EXPECT_EQ(RunAiprof("export --output=" + prof_).exit_code, 0);
         EXPECT_TRUE(fs::exists(stale));
         EXPECT_EQ(RunAiprof("export --clear=on --output=" + prof_).exit_code, 0);
         EXPECT_FALSE(fs::exists(stale));
       }},
  };
  for (const std::string& option : listed) {
    SCOPED_TRACE(option);
    auto check = checks.find(option);
    if (check == checks.end()) {
      ADD_FAILURE() << option << " is in export --help but not checked here";
      continue;
    }
    check->second();
  }
  EXPECT_EQ(listed.size(), checks.size());
}

TEST_F(ExportOptions, AnalyzeOptionsEachChangeTheFilesWritten) {
  auto analyze = [&](const std::string& options) {
    fs::remove_all(fs::path(prof_) / "aiprof_output");
    auto result = RunAiprof("analyze --output=" + prof_ + " " + options);
    EXPECT_EQ(result.exit_code, 0) << options << "\n" << result.output;
    return Outputs();
  };
  const std::map<std::string, uintmax_t> plain = analyze("");
  ASSERT_FALSE(plain.empty());
  const std::map<std::string, std::function<void()>> checks = {
      {"--output",
       [&] {
         auto missing = RunAiprof("analyze");
         EXPECT_EQ(missing.exit_code, 2);
         EXPECT_NE(missing.output.find("--output"), std::string::npos) << missing.output;
       }},
      {"--type", [&] { EXPECT_NE(analyze("--type=db"), plain); }},
      {"--iteration-id", [&] { EXPECT_NE(analyze("--iteration-id=2"), plain); }},
      {"--summary-format", [&] { EXPECT_NE(analyze("--summary-format=json"), plain); }},
      {"--critical-path",
       [&] {
         // One PROF_* writes the same files (critical_path_*.csv are always written); the
         // option adds the path's report to the terminal output.
         auto with = RunAiprof("analyze --output=" + prof_ + " --critical-path");
         EXPECT_EQ(with.exit_code, 0) << with.output;
         EXPECT_NE(with.output.find("critical path ("), std::string::npos) << with.output;
         auto without = RunAiprof("analyze --output=" + prof_);
         EXPECT_EQ(without.output.find("critical path ("), std::string::npos) << without.output;
       }},
  };
  std::set<std::string> listed = HelpOptions("analyze");
  for (const std::string& option : listed) {
    SCOPED_TRACE(option);
    auto check = checks.find(option);
    if (check == checks.end()) {
      ADD_FAILURE() << option << " is in analyze --help but not checked here";
      continue;
    }
    check->second();
  }
  EXPECT_EQ(listed.size(), checks.size());
}

TEST_F(ExportOptions, AdviseOptionsEachChangeTheReport) {
  const fs::path report = fs::path(prof_) / "aiprof_output" / "analysis";
  auto advise = [&](const std::string& options) {
    fs::remove_all(report);
    auto result = RunAiprof("advise --output=" + prof_ + " " + options);
    EXPECT_EQ(result.exit_code, 0) << options << "\n" << result.output;
    return result.output;
  };
  const std::string plain = advise("");
  EXPECT_TRUE(fs::exists(report / "advice.json")) << plain;
  const std::map<std::string, std::function<void()>> checks = {
      {"--output",
       [&] {
         auto missing = RunAiprof("advise");
         EXPECT_EQ(missing.exit_code, 2);
         EXPECT_NE(missing.output.find("--output"), std::string::npos) << missing.output;
       }},
      {"--config",
       [&] {
         // The golden data has two steps: too few for the slow-steps rule unless allowed.
         const fs::path config = root_ / "thresholds.json";
         std::ofstream(config) << R"({"slow_steps": {"min_steps": 2}})";
         EXPECT_NE(advise("--config=" + config.string()), plain);
       }},
      {"--iteration-id", [&] { EXPECT_NE(advise("--iteration-id=2"), plain); }},
      {"--report-dir",
       [&] {
         const fs::path elsewhere = root_ / "advice_report";
         advise("--report-dir=" + elsewhere.string());
         EXPECT_TRUE(fs::exists(elsewhere / "advice.json"));
         EXPECT_TRUE(fs::exists(elsewhere / "advice.html"));
         EXPECT_FALSE(fs::exists(report / "advice.json"));
       }},
  };
  std::set<std::string> listed = HelpOptions("advise");
  for (const std::string& option : listed) {
    SCOPED_TRACE(option);
    auto check = checks.find(option);
    if (check == checks.end()) {
      ADD_FAILURE() << option << " is in advise --help but not checked here";
      continue;
    }
    check->second();
  }
  EXPECT_EQ(listed.size(), checks.size());
}

TEST_F(ExportOptions, CompareOptionsEachChangeTheFilesWritten) {
  // The golden run against itself; the outputs read back as name → size.
  auto compare = [&](const std::string& options) {
    fs::remove_all(fs::path(prof_) / "aiprof_output");
    auto result = RunAiprof("compare " + prof_ + " " + prof_ + " " + options);
    EXPECT_EQ(result.exit_code, 0) << options << "\n" << result.output;
    return Outputs();
  };
  const std::map<std::string, uintmax_t> plain = compare("");
  ASSERT_TRUE(plain.count("aiprof_output/compare/compare_operators.csv"));
  const std::map<std::string, std::function<void()>> checks = {
      {"--iteration-id", [&] { EXPECT_NE(compare("--iteration-id=1,2"), plain); }},
      {"--group-by", [&] { EXPECT_NE(compare("--group-by=shape"), plain); }},
      {"--output-path",
       [&] {
         const fs::path elsewhere = root_ / "compare_elsewhere";
         EXPECT_TRUE(compare("--output-path=" + elsewhere.string()).empty());
         EXPECT_TRUE(fs::exists(elsewhere / "compare_steps.csv"));
       }},
  };
  std::set<std::string> listed = HelpOptions("compare");
  for (const std::string& option : listed) {
    SCOPED_TRACE(option);
    auto check = checks.find(option);
    if (check == checks.end()) {
      ADD_FAILURE() << option << " is in compare --help but not checked here";
      continue;
    }
    check->second();
  }
  EXPECT_EQ(listed.size(), checks.size());
}

// `aiprof ui` serves until interrupted: each run is stopped with SIGINT after a few seconds
// (timeout -s INT), and what it printed shows what each option changed. A stand-in
// xdg-open on PATH records whether a browser would have been opened.
TEST_F(ExportOptions, UiOptionsEachChangeTheServer) {
  const fs::path bin = root_ / "fake_bin";
  fs::create_directories(bin);
  const fs::path opened = root_ / "browser_opened";
  std::ofstream(bin / "xdg-open") << "#!/bin/sh\necho \"$1\" > " << opened.string() << "\n";
  fs::permissions(bin / "xdg-open", fs::perms::owner_all);
  auto ui = [&](const std::string& options) {
    fs::remove(opened);
    return RunShell("DISPLAY=:99 PATH=" + bin.string() + ":$PATH timeout -s INT 3 " + BuildDir() +
                    "/bin/aiprof ui " + options + " " + prof_ + " </dev/null");
  };
  const auto plain = ui("--port=0 --no-browser");
  EXPECT_NE(plain.output.find("serving http://127.0.0.1:"), std::string::npos) << plain.output;
  const bool plain_opened = fs::exists(opened);
  const auto changed = ui("--port=0 --host=0.0.0.0 --web-dir=" + (root_ / "no_web").string());
  const bool changed_opened = fs::exists(opened);
  const std::map<std::string, std::function<void()>> checks = {
      {"--port",
       [&] {
         EXPECT_EQ(plain.output.find(":8737/"), std::string::npos) << plain.output;
         auto bad = RunAiprof("ui --port=70000 " + prof_);
         EXPECT_EQ(bad.exit_code, 2) << bad.output;
         EXPECT_NE(bad.output.find("--port"), std::string::npos) << bad.output;
       }},
      {"--host",
       [&] {
         EXPECT_EQ(plain.output.find("reachable from other machines"), std::string::npos);
         EXPECT_NE(changed.output.find("reachable from other machines"), std::string::npos)
             << changed.output;
       }},
      {"--web-dir",
       [&] {
         EXPECT_NE(changed.output.find("front end was not found"), std::string::npos)
             << changed.output;
       }},
      {"--compare",
       [&] {
         EXPECT_EQ(plain.output.find("the Compare view compares"), std::string::npos);
         const auto compared = ui("--port=0 --no-browser --compare=" + prof_);
         EXPECT_NE(compared.output.find("the Compare view compares this run with 1 base"),
                   std::string::npos)
             << compared.output;
         auto bad = RunAiprof("ui --compare=" + (root_ / "nowhere").string() + " " + prof_);
         EXPECT_EQ(bad.exit_code, 2) << bad.output;
         EXPECT_NE(bad.output.find("--compare"), std::string::npos) << bad.output;
       }},
      {"--no-browser",
       [&] {
         EXPECT_FALSE(plain_opened);
         EXPECT_TRUE(changed_opened) << "without --no-browser the browser is opened\n"
                                     << changed.output;
       }},
  };
  std::set<std::string> listed = HelpOptions("ui");
  for (const std::string& option : listed) {
    SCOPED_TRACE(option);
    auto check = checks.find(option);
    if (check == checks.end()) {
      ADD_FAILURE() << option << " is in ui --help but not checked here";
      continue;
    }
    check->second();
  }
  EXPECT_EQ(listed.size(), checks.size());
}

TEST_F(ExportOptions, QueryOutputNamesTheDirectory) {
  EXPECT_EQ(HelpOptions("query"), (std::set<std::string>{"--output"}));
  auto result = RunAiprof("query --output=" + prof_);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(fs::path(prof_).filename().string()), std::string::npos)
      << result.output;
  EXPECT_EQ(RunAiprof("query").exit_code, 2);
}

TEST(EveryOption, TopLevelHelpListsNothingElse) {
  std::set<std::string> all = HelpOptions("");
  std::set<std::string> known = {"--version"};
  for (const char* command :
       {"collect", "dynamic", "export", "query", "analyze", "advise", "ui", "compare", "cluster"}) {
    for (const std::string& option : HelpOptions(command)) known.insert(option);
  }
  for (const std::string& option : all) {
    EXPECT_TRUE(known.count(option)) << option << " is in aiprof --help but in no command";
  }
  auto version = RunAiprof("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("aiprof "), std::string::npos);
}

}  // namespace
}  // namespace aiprof::cli
