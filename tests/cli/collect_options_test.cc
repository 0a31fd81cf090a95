#include "cli/collect_options.h"

#include <gtest/gtest.h>

#include "cli/cli_runner.h"

namespace aiprof::cli {
namespace {
using aiprof::testing::RunAiprof;

struct InvalidCase {
  const char* args;
  const char* must_mention;  // the option (and value) the message names
};

// Each of these must exit 2 before anything runs, naming the option. `true` is the app.
const InvalidCase kInvalid[] = {
    {"--type=xml true", "--type=xml"},
    {"--storage-limit=0MB true", "--storage-limit=0MB"},
    {"--storage-limit=lots true", "--storage-limit=lots"},
    {"--storage-limit=4294967296MB true", "--storage-limit=4294967296MB"},
    {"--buffer-size=0 true", "--buffer-size=0"},
    {"--buffer-size=5000 true", "--buffer-size=5000"},
    {"--delay=-1 true", "--delay=-1"},
    {"--delay=soon true", "--delay=soon"},
    {"--duration=1e12 true", "--duration=1e12"},
    {"--duration=nan true", "--duration=nan"},
    {"--msproftx=yes true", "--msproftx=yes"},
    {"--msproftx=off --mstx-domain-include=a true", "--mstx-domain-include"},
    {"--msproftx=on --mstx-domain-include=a --mstx-domain-exclude=b true", "--mstx-domain-exclude"},
    {"--task-time=l3 true", "--task-time=l3"},
    {"--task-time=full true", "--task-time=full"},
    {"--task-memory=1 true", "--task-memory=1"},
    {"--runtime-api=true true", "--runtime-api=true"},
    {"--ascendcl=enable true", "--ascendcl=enable"},
    {"--hccl=maybe true", "--hccl=maybe"},
    {"--ai-core=yes true", "--ai-core=yes"},
    {"--aic-mode=fast true", "--aic-mode=fast"},
    {"--aic-metrics=Everything true", "--aic-metrics=Everything"},
    {"--aic-freq=0 true", "--aic-freq=0"},
    {"--aic-freq=101 true", "--aic-freq=101"},
    {"--l2=2 true", "--l2=2"},
    {"--aicpu=x true", "--aicpu=x"},
    {"--aicpu=on true", "--aicpu=on"},
    {"--aic-mode=sample-based true", "--aic-mode=sample-based"},
    {"--aic-freq=50 true", "--aic-freq=50"},
    {"--task-time=l0 --aic-metrics=Memory true", "--aic-metrics=Memory"},
    {"--model-execution=off true", "--model-execution=off"},
    {"--model-execution=yes true", "--model-execution=yes"},
    {"--export=maybe true", "--export=maybe"},
    {"--sys-hardware-mem-freq=10 true", "--sys-hardware-mem-freq"},
    {"--host-sys-usage-freq=10 true", "--host-sys-usage-freq"},
    {"--sys-sampling-freq=5 true", "--sys-sampling-freq"},
    {"--sys-pid-sampling-freq=5 true", "--sys-pid-sampling-freq"},
    {"--sys-cpu-freq=10 true", "--sys-cpu-freq"},
    {"--sys-hardware-mem=x true", "--sys-hardware-mem=x"},
    {"--sys-hardware-mem-freq=200 true", "--sys-hardware-mem-freq=200"},
    {"--sys-cpu-profiling=x true", "--sys-cpu-profiling=x"},
    {"--sys-cpu-freq=10001 true", "--sys-cpu-freq=10001"},
    {"--sys-cpu-freq=0 true", "--sys-cpu-freq=0"},
    {"--host-sys=cpu,gpu true", "--host-sys=cpu,gpu"},
    {"--host-sys= true", "--host-sys"},
    {"--host-sys-usage=disk true", "--host-sys-usage=disk"},
    {"--host-sys-usage-freq=0 true", "--host-sys-usage-freq=0"},
    {"--host-sys-usage-freq=51 true", "--host-sys-usage-freq=51"},
    {"--sys-profiling=x true", "--sys-profiling=x"},
    {"--sys-sampling-freq=11 true", "--sys-sampling-freq=11"},
    {"--sys-pid-profiling=x true", "--sys-pid-profiling=x"},
    {"--sys-pid-sampling-freq=0 true", "--sys-pid-sampling-freq=0"},
    {"--follow-children=maybe true", "--follow-children=maybe"},
    {"--environment=NOEQUALS true", "--environment=NOEQUALS"},
    {"--application=\"'unbalanced\"", "--application"},
    {"--application='true' false", "--application"},
    {"--no-such-option=1 true", "--no-such-option=1"},
    {"", "application given"},
};

class InvalidOption : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidOption, ExitsTwoNamingTheOption) {
  // nsys and msprof forms, and dynamic launch mode (which shares the options).
  for (std::string form : {"collect ", "", "--dynamic=on "}) {
    std::string mention = GetParam().must_mention;
    if (form == "--dynamic=on ") {
      if (std::string(GetParam().args).empty()) continue;  // its own usage message
      // --delay/--duration are refused by name in dynamic mode, before their values.
      mention = mention.substr(0, mention.find('='));
    }
    auto result = RunAiprof(form + GetParam().args + " </dev/null");
    EXPECT_EQ(result.exit_code, 2) << form << GetParam().args << "\n" << result.output;
    EXPECT_NE(result.output.find(mention), std::string::npos) << form << GetParam().args << "\n"
                                                              << result.output;
    EXPECT_EQ(result.output.find("cannot run"), std::string::npos) << result.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, InvalidOption, ::testing::ValuesIn(kInvalid));

CollectConfig Resolve(CollectArgs args, Machine machine = {}) {
  CollectConfig config;
  std::string error;
  EXPECT_TRUE(ResolveCollectArgs(args, machine, &config, &error)) << error;
  return config;
}

TEST(CollectOptions, DefaultsFollowMsprof) {
  CollectArgs args;
  args.app = {"app", "x"};
  CollectConfig config = Resolve(args);
  EXPECT_EQ(config.task_time, "l1");
  EXPECT_TRUE(config.ai_core);           // on with task-time l1
  EXPECT_TRUE(config.cuda_runtime_api);  // --ascendcl defaults to on
  EXPECT_TRUE(
      config.cuda_driver_api);  // --runtime-api: on here (msprof: off), so driver launches are seen
  EXPECT_TRUE(config.msproftx);  // on here (msprof: off), as nsys records NVTX
  EXPECT_TRUE(config.export_after);
  EXPECT_TRUE(config.follow_children);
  EXPECT_EQ(config.buffer_mb, 64u);
  EXPECT_EQ(config.storage_limit_mb, 0u);
  EXPECT_FALSE(config.sampler.AnyEnabled());
  EXPECT_TRUE(config.notes.empty());
  nlohmann::json json = RuntimeOptionsJson(config, 123);
  EXPECT_EQ(json["mode"], "launch");
  EXPECT_EQ(json["launch_realtime_ns"], 123);
  EXPECT_EQ(json["record_shapes"], true);
  EXPECT_EQ(json["app"], nlohmann::json({"app", "x"}));
  EXPECT_EQ(json["output"].get<std::string>().front(), '/');
}

TEST(CollectOptions, ConvertsValues) {
  CollectArgs args;
  args.application = "python3 'my script.py' --steps=3";
  args.task_time = "l0";
  args.storage_limit = "250MB";
  args.delay = "0.5";
  args.duration = "2";
  args.msproftx = "on";
  args.mstx_domain_exclude = "noisy, other";
  args.host_sys = "cpu,mem,disk,network";
  args.host_sys_usage = "cpu,mem";
  args.host_sys_usage_freq = "10";
  args.follow_children = "off";
  args.environment = "A=1;B=x=y";
  CollectConfig config = Resolve(args);
  EXPECT_EQ(config.app, (std::vector<std::string>{"python3", "my script.py", "--steps=3"}));
  EXPECT_EQ(config.task_time, "l0");
  EXPECT_FALSE(config.ai_core);
  EXPECT_EQ(config.storage_limit_mb, 250u);
  EXPECT_DOUBLE_EQ(config.delay_s, 0.5);
  EXPECT_DOUBLE_EQ(config.duration_s, 2);
  EXPECT_EQ(config.mstx_domain_exclude, (std::vector<std::string>{"noisy", "other"}));
  EXPECT_TRUE(config.sampler.process_cpu && config.sampler.process_mem &&
              config.sampler.process_disk && config.sampler.network && config.sampler.machine_cpu &&
              config.sampler.machine_mem);
  EXPECT_DOUBLE_EQ(config.sampler.sample_hz, 10);
  EXPECT_FALSE(config.follow_children);
  EXPECT_EQ(config.environment, (std::vector<std::string>{"A=1", "B=x=y"}));
}

TEST(CollectOptions, SysProfilingUsesItsOwnFrequency) {
  CollectArgs args;
  args.app = {"app"};
  args.sys_profiling = "on";
  args.sys_sampling_freq = "5";
  CollectConfig config = Resolve(args);
  EXPECT_TRUE(config.sampler.machine_cpu && config.sampler.machine_mem);
  EXPECT_FALSE(config.sampler.process_cpu);
  EXPECT_DOUBLE_EQ(config.sampler.sample_hz, 5);
}

TEST(CollectOptions, GpuSourcesWithoutAGpuAreAcceptedWithOneNoteEach) {
  CollectArgs args;
  args.app = {"app"};
  args.ai_core = "on";
  args.l2 = "on";
  args.host_sys = "cpu";
  args.explicit_options = {"ai-core", "l2", "host-sys"};
  CollectConfig config = Resolve(args, Machine{false, "no /dev/nvidia0"});
  ASSERT_EQ(config.notes.size(), 2u);
  EXPECT_NE(config.notes[0].find("--ai-core=on"), std::string::npos);
  EXPECT_NE(config.notes[0].find("no /dev/nvidia0"), std::string::npos);
  EXPECT_NE(config.notes[1].find("--l2=on"), std::string::npos);
  EXPECT_TRUE(Resolve(args, Machine{true, ""}).notes.empty());
}

TEST(CollectOptions, SeedCommandLinesAreAccepted) {
  // msprof's command line of seed 000 with msprof -> aiprof, less --aicpu=on (rejected:
  // no such device here): --model-execution=on is accepted (its data, the step records, is
  // always collected).
  CollectArgs args;
  args.application = "/bin/true";
  args.ascendcl = "on";
  args.model_execution = "on";
  args.runtime_api = "on";
  args.task_time = "on";
  args.ai_core = "on";
  args.explicit_options = {"application", "ascendcl",  "model-execution",
                           "runtime-api", "task-time", "ai-core"};
  CollectConfig config = Resolve(args, Machine{true, ""});
  EXPECT_EQ(config.task_time, "l1");
  EXPECT_TRUE(config.ai_core && config.cuda_driver_api && config.cuda_runtime_api);
}

TEST(CollectOptions, CpuSamplingOptionsReachTheRuntime) {
  CollectArgs args;
  args.app = {"app"};
  EXPECT_EQ(Resolve(args, Machine{}).cpu_sampling_hz, 0u);
  args.sys_cpu_profiling = "on";
  args.explicit_options = {"sys-cpu-profiling"};
  EXPECT_EQ(Resolve(args, Machine{}).cpu_sampling_hz, 99u);
  args.sys_cpu_freq = "1000";
  args.explicit_options = {"sys-cpu-profiling", "sys-cpu-freq"};
  CollectConfig config = Resolve(args, Machine{});
  EXPECT_EQ(config.cpu_sampling_hz, 1000u);
  nlohmann::json options = RuntimeOptionsJson(config, 0);
  EXPECT_EQ(options["cpu_sampling"]["freq_hz"], 1000);
  EXPECT_EQ(options["osrt"]["on"], false);
}

TEST(CollectOptions, HcclRecordsMessageSizesAndNcclNvtxRanges) {
  CollectArgs args;
  args.app = {"app"};
  args.task_time = "l0";
  args.hccl = "on";
  args.msproftx = "off";  // --hccl alone: NCCL's own NVTX domain only
  args.explicit_options = {"task-time", "hccl", "msproftx"};
  CollectConfig config = Resolve(args, Machine{true, ""});
  EXPECT_TRUE(config.notes.empty());
  nlohmann::json json = RuntimeOptionsJson(config, 1);
  EXPECT_EQ(json["record_shapes"], true);  // l0 alone would not
  EXPECT_EQ(json["msproftx"], true);
  EXPECT_EQ(json["mstx_domain_include"], nlohmann::json::array({"NCCL"}));

  args.msproftx = "on";  // the user's own marker choice (the default) stands
  json = RuntimeOptionsJson(Resolve(args, Machine{true, ""}), 1);
  EXPECT_EQ(json["mstx_domain_include"], nlohmann::json::array());

  args.msproftx = "off";
  args.task_time = "off";
  config = Resolve(args, Machine{false, "no /dev/nvidia0"});
  ASSERT_EQ(config.notes.size(), 2u);
  EXPECT_NE(config.notes[0].find("CPU collectives"), std::string::npos);
  EXPECT_NE(config.notes[1].find("--task-time=off"), std::string::npos);
}

TEST(Cli, HelpListsEveryCommandAndGroup) {
  auto result = RunAiprof("--help");
  EXPECT_EQ(result.exit_code, 0);
  for (const char* text : {"collect", "--host-sys-usage-freq", "Host resources", "--task-time",
                           "=50", "--follow-children"}) {
    EXPECT_NE(result.output.find(text), std::string::npos) << text;
  }
  auto collect_help = RunAiprof("collect --help");
  EXPECT_EQ(collect_help.exit_code, 0);
  EXPECT_NE(collect_help.output.find("--storage-limit"), std::string::npos);
}

TEST(Cli, MsprofModeFlagsSelectTheirCommand) {
  for (const char* command : {"export", "query", "dynamic", "analyze"}) {
    // Every command is part of the build: one that fails to run is a failure, not a skip.
    auto help = RunAiprof(std::string(command) + " --help");
    ASSERT_EQ(help.exit_code, 0) << command << "\n" << help.output;
    auto result = RunAiprof(std::string("--") + command + "=on --help");
    EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.output;
    EXPECT_NE(result.output.find(std::string("aiprof ") + command), std::string::npos)
        << result.output;
  }
  auto parse = RunAiprof("--parse=on --output=x");
  EXPECT_EQ(parse.exit_code, 2);
  EXPECT_NE(parse.output.find("aiprof export"), std::string::npos) << parse.output;
}

TEST(Cli, MissingAppIsReportedWithExitCode127) {
  auto result = RunAiprof("--output=/tmp /nonexistent/app");
  EXPECT_EQ(result.exit_code, 127) << result.output;
  EXPECT_NE(result.output.find("cannot run '/nonexistent/app'"), std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace aiprof::cli
