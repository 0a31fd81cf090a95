#include "sources/torch/plugin_settings.h"

#include <gtest/gtest.h>

namespace aiprof::torch_source {
namespace {

TEST(TorchPluginSettings, ReadsTheCollectOptions) {
  const PluginSettings s = ParsePluginSettings(
      R"({"task_time":"l1","record_shapes":true,"with_flops":true,"profile_memory":true})");
  EXPECT_TRUE(s.operators);
  EXPECT_TRUE(s.record_shapes);
  EXPECT_TRUE(s.with_flops);
  EXPECT_TRUE(s.profile_memory);
  EXPECT_FALSE(ParsePluginSettings(R"({"task_time":"off"})").operators);
}

TEST(TorchPluginSettings, BadTextOrTypesKeepTheDefaults) {
  for (const char* text : {static_cast<const char*>(nullptr), "", "[1]", "{", "null"}) {
    const PluginSettings s = ParsePluginSettings(text);
    EXPECT_TRUE(s.operators) << (text ? text : "(null)");
    EXPECT_FALSE(s.record_shapes || s.with_flops || s.profile_memory);
  }
  const PluginSettings s = ParsePluginSettings(R"({"task_time":0,"record_shapes":"yes"})");
  EXPECT_TRUE(s.operators);
  EXPECT_FALSE(s.record_shapes);
}

}  // namespace
}  // namespace aiprof::torch_source
