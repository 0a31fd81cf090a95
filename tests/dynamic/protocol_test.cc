#include "runtime/dynamic/protocol.h"

#include <gtest/gtest.h>

#include "runtime/dynamic/command_parser.h"

namespace aiprof::dynamic {
namespace {

TEST(CommandParser, BareVerbs) {
  EXPECT_EQ(ParseCommandLine("stop").command.verb, CommandVerb::kStop);
  EXPECT_EQ(ParseCommandLine("  status \r").command.verb, CommandVerb::kStatus);
  EXPECT_EQ(ParseCommandLine("quit").command.verb, CommandVerb::kQuit);
  ParseResult start = ParseCommandLine("start");
  ASSERT_TRUE(start.ok);
  EXPECT_EQ(start.command.verb, CommandVerb::kStart);
  EXPECT_TRUE(start.command.options.empty());
}

TEST(CommandParser, KeyValueOptionsBecomeJsonValues) {
  ParseResult start =
      ParseCommandLine("start task-time=l1 msproftx=on buffer_mb=128 runtime_api=false");
  ASSERT_TRUE(start.ok) << start.error;
  EXPECT_EQ(start.command.options.at("task_time"), "\"l1\"");
  EXPECT_EQ(start.command.options.at("msproftx"), "true");
  EXPECT_EQ(start.command.options.at("buffer_mb"), "128");
  EXPECT_EQ(start.command.options.at("runtime_api"), "false");
  EXPECT_EQ(OptionsToJson(start.command.options),
            R"({"buffer_mb":128,"msproftx":true,"runtime_api":false,"task_time":"l1"})");
}

TEST(CommandParser, JsonOptions) {
  ParseResult start = ParseCommandLine(R"(start {"mstx_domain_include": ["a", "b"], "l2": true})");
  ASSERT_TRUE(start.ok) << start.error;
  EXPECT_EQ(start.command.options.at("mstx_domain_include"), R"(["a","b"])");
  EXPECT_EQ(start.command.options.at("l2"), "true");
}

TEST(CommandParser, ErrorsSayWhatIsAccepted) {
  ParseResult unknown = ParseCommandLine("begin");
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.error.find("commands: start"), std::string::npos);
  EXPECT_FALSE(ParseCommandLine("start {not json").ok);
  ParseResult bare_word = ParseCommandLine("start verbose");
  EXPECT_FALSE(bare_word.ok);
  EXPECT_NE(bare_word.error.find("key=value"), std::string::npos);
  EXPECT_FALSE(ParseCommandLine("stop now").ok);
  EXPECT_FALSE(ParseCommandLine("").ok);
}

TEST(Protocol, SocketNames) {
  EXPECT_EQ(ParseSocketPid("aiprof_dynamic_1234"), 1234);
  EXPECT_FALSE(ParseSocketPid("aiprof_dynamic_").has_value());
  EXPECT_FALSE(ParseSocketPid("aiprof_dynamic_12x").has_value());
  EXPECT_FALSE(ParseSocketPid("aiprof_dynamic_1234.tmp5").has_value());
  EXPECT_FALSE(ParseSocketPid("other_1234").has_value());
  EXPECT_EQ(FieldValue("ready pid=5 state=idle since=17", "state"), "idle");
  EXPECT_EQ(FieldValue("busy: controlled by pid 9; state=collecting since=17", "since"), "17");
  EXPECT_EQ(FieldValue("ready pid=5", "state"), "");
}

}  // namespace
}  // namespace aiprof::dynamic
