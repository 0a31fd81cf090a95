#include "runtime/dynamic/dp_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace aiprof::dynamic {
namespace {

TEST(DpConfig, TemplateHasEverySeedFieldAndParses) {
  nlohmann::json object = nlohmann::json::parse(DpConfigTemplate());
  for (const char* key : {"activities", "prof_dir", "analyse", "record_shapes", "profile_memory",
                          "with_stack", "with_flops", "with_modules", "active", "start_step",
                          "is_rank", "rank_list", "experimental_config", "metadata"}) {
    EXPECT_TRUE(object.contains(key)) << key;
  }
  DpConfigParse parsed = ParseDpConfig(DpConfigTemplate());
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_TRUE(parsed.warnings.empty());
  EXPECT_EQ(parsed.config.active, 1);
}

TEST(DpConfig, ReadsValuesAndMapsToOptions) {
  DpConfigParse parsed =
      ParseDpConfig(R"({"activities": ["CPU"], "prof_dir": "/tmp/out", "active": 3,
      "start_step": 10, "record_shapes": true, "experimental_config": {"profiler_level": "level1",
      "msprof_tx": true, "export_type": "DB"}, "metadata": {"lr": 0.1}})");
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_TRUE(parsed.config.cpu);
  EXPECT_FALSE(parsed.config.device);
  EXPECT_EQ(parsed.config.active, 3);
  EXPECT_EQ(parsed.config.start_step, 10);
  EXPECT_EQ(parsed.config.profiler_level, "Level1");
  EXPECT_EQ(parsed.config.export_type, "db");
  nlohmann::json options = nlohmann::json::parse(DpConfigToOptionsJson(parsed.config));
  EXPECT_EQ(options["output"], "/tmp/out");
  EXPECT_EQ(options["task_time"], "l1");
  EXPECT_EQ(options["runtime_api"], false);
  EXPECT_EQ(options["record_shapes"], true);
  EXPECT_EQ(options["msproftx"], true);
}

TEST(DpConfig, InvalidValuesNameTheField) {
  struct Case {
    const char* text;
    const char* field;
  };
  for (const Case& c :
       {Case{"{", "JSON"}, Case{"[1]", "object"}, Case{R"({"active": 0})", "active"},
        Case{R"({"active": "2"})", "active"}, Case{R"({"start_step": -1})", "start_step"},
        Case{R"({"analyse": "yes"})", "analyse"}, Case{R"({"activities": ["TPU"]})", "activities"},
        Case{R"({"rank_list": [-1]})", "rank_list"},
        Case{R"({"experimental_config": {"profiler_level": "Level9"}})", "profiler_level"},
        Case{R"({"prof_dir": 3})", "prof_dir"}}) {
    DpConfigParse parsed = ParseDpConfig(c.text);
    EXPECT_FALSE(parsed.ok) << c.text;
    EXPECT_NE(parsed.error.find(c.field), std::string::npos) << parsed.error;
  }
}

// The seed's experimental_config rule: an invalid export_type is text, with a warning.
TEST(DpConfig, InvalidExportTypeIsText) {
  for (const char* text : {R"({"experimental_config": {"export_type": "csv"}})",
                           R"({"experimental_config": {"export_type": 3}})"}) {
    DpConfigParse parsed = ParseDpConfig(text);
    EXPECT_TRUE(parsed.ok) << parsed.error;
    EXPECT_EQ(parsed.config.export_type, "text");
    ASSERT_EQ(parsed.warnings.size(), 1u) << text;
    EXPECT_NE(parsed.warnings[0].find("export_type"), std::string::npos) << parsed.warnings[0];
  }
}

TEST(DpConfig, UnknownFieldsWarnOnly) {
  DpConfigParse parsed = ParseDpConfig(R"({"active": 2, "colour": "red"})");
  ASSERT_TRUE(parsed.ok);
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_NE(parsed.warnings[0].find("colour"), std::string::npos);
}

TEST(DpConfig, RankSelection) {
  DpConfig config;
  EXPECT_TRUE(DpConfigSelectsRank(config, 5));
  config.is_rank = true;
  EXPECT_FALSE(DpConfigSelectsRank(config, 0));  // empty list: nothing collected
  config.rank_list = {1, 3};
  EXPECT_TRUE(DpConfigSelectsRank(config, 3));
  EXPECT_FALSE(DpConfigSelectsRank(config, 2));
}

}  // namespace
}  // namespace aiprof::dynamic
