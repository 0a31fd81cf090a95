// Collection options: the keys of AIPROF_OPTIONS (JSON) and of aiprofConfigSetOption.
// Unknown keys are kept in `json` (a newer launcher may add keys) and otherwise ignored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::runtime {

struct Options {
  std::string output = ".";
  std::string mode = "api";  // "launch" | "dynamic" | "api"
  bool msproftx = true;
  std::vector<std::string> mstx_domain_include;
  std::vector<std::string> mstx_domain_exclude;
  uint32_t buffer_mb = 64;
  uint32_t flush_interval_ms = 1000;
  bool compress = true;
  uint64_t storage_limit_mb = 0;
  double delay_s = 0;
  double duration_s = 0;
  uint64_t launch_realtime_ns = 0;
  int64_t launcher_pid = 0;  // launch mode: the aiprof launcher, parent of the launched program
  bool follow_children = true;
  int64_t seq = -1;         // -1: next free sequence number in `output`
  std::string json = "{}";  // every key, as given, with parsed values normalised
};

// Parses an AIPROF_OPTIONS JSON object. On error returns false and says which key and why.
bool ParseOptions(const std::string& json_text, Options* options, std::string* error);

// Sets one key (value as JSON text) on top of existing options.
bool SetOption(Options* options, const std::string& key, const std::string& json_value,
               std::string* error);

}  // namespace aiprof::runtime
