// The exporters' number and field formatting (TextWriter): µs with three decimals from
// epoch ns without a double's rounding, fixed decimals, CSV quoting.
#include "export/text_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

namespace aiprof::exporter {
namespace {

std::string Written(const std::function<void(TextWriter&)>& write) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("text_writer_test_" + std::to_string(getpid()) + ".txt");
  TextWriter w;
  std::string error;
  EXPECT_TRUE(w.Open(path.string(), &error)) << error;
  write(w);
  EXPECT_TRUE(w.Close()) << w.error();
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  std::filesystem::remove(path);
  return content.str();
}

TEST(TextWriter, MicrosKeepsEveryNanosecondOfAnEpochTime) {
  // 1.7e18 ns: a double would round the last digits away.
  EXPECT_EQ(Written([](TextWriter& w) { w.Micros(1700000000001000250); }), "1700000000001000.250");
  EXPECT_EQ(Written([](TextWriter& w) { w.Micros(0); }), "0.000");
  EXPECT_EQ(Written([](TextWriter& w) { w.Micros(7); }), "0.007");
  EXPECT_EQ(Written([](TextWriter& w) { w.Micros(-1500); }), "-1.500");
  EXPECT_EQ(Written([](TextWriter& w) { w.Micros(INT64_MIN); }), "-9223372036854775.808");
}

TEST(TextWriter, FixedMatchesPrintf) {
  EXPECT_EQ(Written([](TextWriter& w) { w.Fixed(0.00390625, 6); }), "0.003906");
  EXPECT_EQ(Written([](TextWriter& w) { w.Fixed(2.5, 0); }), "2");  // round half to even
  EXPECT_EQ(Written([](TextWriter& w) { w.Fixed(-87.5, 3); }), "-87.500");
}

TEST(TextWriter, CsvFieldQuotesOnlyWhenNeeded) {
  EXPECT_EQ(Written([](TextWriter& w) { w.CsvField("plain text"); }), "plain text");
  EXPECT_EQ(Written([](TextWriter& w) { w.CsvField("a,b"); }), "\"a,b\"");
  EXPECT_EQ(Written([](TextWriter& w) { w.CsvField("say \"hi\""); }), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(Written([](TextWriter& w) { w.CsvField("two\nlines"); }), "\"two\nlines\"");
}

TEST(TextWriter, DoubleIsShortestAndNonFiniteIsZero) {
  EXPECT_EQ(Written([](TextWriter& w) { w.Double(0.1); }), "0.1");
  EXPECT_EQ(Written([](TextWriter& w) { w.Double(std::numeric_limits<double>::infinity()); }), "0");
}

}  // namespace
}  // namespace aiprof::exporter
