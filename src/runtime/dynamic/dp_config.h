// profiler_config.json of dynamic_profile: the template the job writes, and the parse and
// validation of an edited file into collection settings and AIPROF_OPTIONS.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::dynamic {

struct DpConfig {
  bool cpu = true;     // "CPU" in activities
  bool device = true;  // "GPU" (or "NPU", "CUDA") in activities
  std::string prof_dir = "./";
  bool analyse = false;
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  bool with_flops = false;
  bool with_modules = false;
  int64_t active = 1;      // steps to collect
  int64_t start_step = 0;  // 0: the next step boundary
  bool is_rank = false;
  std::vector<int64_t> rank_list;
  // experimental_config
  std::string profiler_level = "Level0";  // Level_none, Level0, Level1, Level2
  std::string aic_metrics = "AiCoreNone";
  bool l2_cache = false;
  bool msprof_tx = false;
  std::string export_type = "text";  // text or db
  std::string metadata_json = "{}";  // the metadata object, recorded into the window
};

struct DpConfigParse {
  bool ok = false;
  DpConfig config;
  std::string error;                  // first problem, naming the field and what is accepted
  std::vector<std::string> warnings;  // unknown fields and settings this build ignores
};

DpConfigParse ParseDpConfig(const std::string& text);

// The template written next to the job (all defaults: nothing is collected until edited).
std::string DpConfigTemplate();

// AIPROF_OPTIONS keys for a window collecting with `config`, as a JSON object.
std::string DpConfigToOptionsJson(const DpConfig& config);

// Whether a process of rank `rank` collects under `config`.
bool DpConfigSelectsRank(const DpConfig& config, int64_t rank);

}  // namespace aiprof::dynamic
