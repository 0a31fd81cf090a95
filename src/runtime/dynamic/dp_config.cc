#include "runtime/dynamic/dp_config.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace aiprof::dynamic {
namespace {

using nlohmann::json;

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Each reader returns an error text ("" when fine) naming the field.
std::string ReadBool(const json& object, const char* key, bool& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_boolean())
    return std::string("\"") + key + "\" must be true or false, got " + it->dump();
  out = it->get<bool>();
  return "";
}

std::string ReadInt(const json& object, const char* key, int64_t minimum, int64_t& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_number_integer() || it->get<int64_t>() < minimum) {
    return std::string("\"") + key + "\" must be an integer >= " + std::to_string(minimum) +
           ", got " + it->dump();
  }
  out = it->get<int64_t>();
  return "";
}

std::string ReadChoice(const json& object, const char* key, const std::vector<std::string>& choices,
                       std::string& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (it->is_string()) {
    for (const std::string& choice : choices) {
      if (Lower(choice) == Lower(it->get<std::string>())) {
        out = choice;
        return "";
      }
    }
  }
  std::string accepted;
  for (const std::string& choice : choices) accepted += (accepted.empty() ? "" : ", ") + choice;
  return std::string("\"") + key + "\" must be one of " + accepted + ", got " + it->dump();
}

std::string ReadActivities(const json& object, DpConfig& config) {
  auto it = object.find("activities");
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_array())
    return "\"activities\" must be a list such as [\"CPU\", \"GPU\"], got " + it->dump();
  config.cpu = config.device = false;
  for (const json& item : *it) {
    std::string name = item.is_string() ? Lower(item.get<std::string>()) : "";
    if (name == "cpu") {
      config.cpu = true;
    } else if (name == "gpu" || name == "npu" || name == "cuda") {
      config.device = true;
    } else {
      return "\"activities\" entries must be \"CPU\" or \"GPU\" (\"NPU\" is read as GPU), got " +
             item.dump();
    }
  }
  return "";
}

std::string ReadRankList(const json& object, DpConfig& config) {
  auto it = object.find("rank_list");
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_array())
    return "\"rank_list\" must be a list of rank ids such as [0, 1], got " + it->dump();
  for (const json& item : *it) {
    if (!item.is_number_integer() || item.get<int64_t>() < 0) {
      return "\"rank_list\" entries must be integers >= 0, got " + item.dump();
    }
    config.rank_list.push_back(item.get<int64_t>());
  }
  return "";
}

const std::set<std::string> kKnownFields = {"activities",          "prof_dir",       "analyse",
                                            "record_shapes",       "profile_memory", "with_stack",
                                            "with_flops",          "with_modules",   "active",
                                            "start_step",          "is_rank",        "rank_list",
                                            "experimental_config", "metadata"};
const std::set<std::string> kKnownExperimental = {"profiler_level",
                                                  "aic_metrics",
                                                  "l2_cache",
                                                  "op_attr",
                                                  "gc_detect_threshold",
                                                  "data_simplification",
                                                  "record_op_args",
                                                  "export_type",
                                                  "msprof_tx",
                                                  "mstx_domain_include",
                                                  "mstx_domain_exclude",
                                                  "host_sys",
                                                  "sys_io",
                                                  "sys_interconnection"};

}  // namespace

DpConfigParse ParseDpConfig(const std::string& text) {
  DpConfigParse result;
  json object = json::parse(text, nullptr, false);
  if (object.is_discarded()) {
    result.error = "not valid JSON";
    return result;
  }
  if (!object.is_object()) {
    result.error = "the top level must be a JSON object";
    return result;
  }
  DpConfig& config = result.config;
  std::string error;
  auto check = [&](std::string problem) {
    if (error.empty()) error = std::move(problem);
  };
  check(ReadActivities(object, config));
  if (auto it = object.find("prof_dir"); it != object.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>().empty()) {
      check("\"prof_dir\" must be a non-empty path string, got " + it->dump());
    } else {
      config.prof_dir = it->get<std::string>();
    }
  }
  check(ReadBool(object, "analyse", config.analyse));
  check(ReadBool(object, "record_shapes", config.record_shapes));
  check(ReadBool(object, "profile_memory", config.profile_memory));
  check(ReadBool(object, "with_stack", config.with_stack));
  check(ReadBool(object, "with_flops", config.with_flops));
  check(ReadBool(object, "with_modules", config.with_modules));
  check(ReadInt(object, "active", 1, config.active));
  check(ReadInt(object, "start_step", 0, config.start_step));
  check(ReadBool(object, "is_rank", config.is_rank));
  check(ReadRankList(object, config));
  if (auto it = object.find("experimental_config"); it != object.end() && !it->is_null()) {
    if (!it->is_object()) {
      check("\"experimental_config\" must be an object, got " + it->dump());
    } else {
      const json& experimental = *it;
      check(ReadChoice(experimental, "profiler_level", {"Level_none", "Level0", "Level1", "Level2"},
                       config.profiler_level));
      if (auto metric = experimental.find("aic_metrics");
          metric != experimental.end() && !metric->is_null()) {
        if (!metric->is_string()) {
          check("\"aic_metrics\" must be a string such as \"PipeUtilization\", got " +
                metric->dump());
        } else {
          config.aic_metrics = metric->get<std::string>();
        }
      }
      check(ReadBool(experimental, "l2_cache", config.l2_cache));
      check(ReadBool(experimental, "msprof_tx", config.msprof_tx));
      // The seed: "If this parameter is set to an invalid value or is not set, the default
      // value Text is used."
      if (!ReadChoice(experimental, "export_type", {"text", "db"}, config.export_type).empty()) {
        result.warnings.push_back("experimental_config \"export_type\" " +
                                  experimental["export_type"].dump() +
                                  " is neither \"text\" nor \"db\"; exporting as text");
        config.export_type = "text";
      }
      for (const auto& [key, value] : experimental.items()) {
        if (!kKnownExperimental.contains(key))
          result.warnings.push_back("unknown experimental_config field \"" + key + "\" ignored");
      }
    }
  }
  if (auto it = object.find("metadata"); it != object.end() && !it->is_null()) {
    if (!it->is_object()) {
      check("\"metadata\" must be an object of key: value, got " + it->dump());
    } else {
      config.metadata_json = it->dump();
    }
  }
  for (const auto& [key, value] : object.items()) {
    if (!kKnownFields.contains(key))
      result.warnings.push_back("unknown field \"" + key + "\" ignored");
  }
  if (config.with_flops)
    result.warnings.push_back("with_flops is recorded as requested but not computed by aiprof");
  result.error = error;
  result.ok = error.empty();
  return result;
}

std::string DpConfigTemplate() {
  json experimental = {
      {"profiler_level", "Level0"}, {"aic_metrics", "AiCoreNone"},    {"l2_cache", false},
      {"op_attr", false},           {"gc_detect_threshold", nullptr}, {"data_simplification", true},
      {"record_op_args", false},    {"export_type", "text"},          {"msprof_tx", false}};
  nlohmann::ordered_json object;
  object["activities"] = {"CPU", "GPU"};
  object["prof_dir"] = "./";
  object["analyse"] = false;
  object["record_shapes"] = false;
  object["profile_memory"] = false;
  object["with_stack"] = false;
  object["with_flops"] = false;
  object["with_modules"] = false;
  object["active"] = 1;
  object["start_step"] = 0;
  object["is_rank"] = false;
  object["rank_list"] = json::array();
  object["experimental_config"] = experimental;
  object["metadata"] = json::object();
  return object.dump(4) + "\n";
}

std::string DpConfigToOptionsJson(const DpConfig& config) {
  static const std::map<std::string, std::string> kTaskTime = {
      {"Level_none", "off"}, {"Level0", "l0"}, {"Level1", "l1"}, {"Level2", "l2"}};
  json options = json::object();
  options["output"] = config.prof_dir;
  options["task_time"] = config.cpu || config.device ? kTaskTime.at(config.profiler_level) : "off";
  options["runtime_api"] = config.device && config.profiler_level != "Level_none";
  options["record_shapes"] = config.cpu && config.record_shapes;
  options["profile_memory"] = config.profile_memory;
  options["with_stack"] = config.cpu && config.with_stack;
  options["with_modules"] = config.cpu && config.with_modules;
  options["msproftx"] = config.msprof_tx;
  options["l2"] = config.device && config.l2_cache;
  bool metrics = config.device && Lower(config.aic_metrics) != "aicorenone";
  options["ai_core"] = metrics;
  if (metrics) options["aic_metrics"] = config.aic_metrics;
  return options.dump();
}

bool DpConfigSelectsRank(const DpConfig& config, int64_t rank) {
  if (!config.is_rank) return true;
  return std::find(config.rank_list.begin(), config.rank_list.end(), rank) !=
         config.rank_list.end();
}

}  // namespace aiprof::dynamic
