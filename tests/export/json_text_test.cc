// The one JSON text rule (export/json_text.h): the exporters' TextWriter and the UI server's
// AppendJsonString write the same text, and bad bytes still give valid JSON.
#include "export/json_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export/text_writer.h"
#include "server/json_text.h"

namespace aiprof::exporter {
namespace {

std::string ViaTextWriter(std::string_view text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("json_text_test_" + std::to_string(getpid()) + ".json");
  TextWriter w;
  std::string error;
  EXPECT_TRUE(w.Open(path.string(), &error)) << error;
  w.JsonString(text);
  EXPECT_TRUE(w.Close()) << w.error();
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  std::filesystem::remove(path);
  return content.str();
}

std::string ViaServer(std::string_view text) {
  std::string out;
  server::AppendJsonString(out, text);
  return out;
}

TEST(JsonText, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(ViaServer("a\"b\\c\nd\re\tf\x01g"), R"("a\"b\\c\nd\re\tf\u0001g")");
  EXPECT_EQ(ViaServer(""), "\"\"");
}

TEST(JsonText, KeepsValidUtf8) {
  const std::string text = "µs 时间 \xF0\x9F\x98\x80";  // 2-, 3- and 4-byte sequences
  EXPECT_EQ(ViaServer(text), "\"" + text + "\"");
}

TEST(JsonText, ReplacesEveryInvalidByteWithU_FFFD) {
  // A stray continuation byte, a truncated sequence, an overlong '/', a surrogate, a byte
  // that is never UTF-8.
  const std::string bad =
      std::string("a\x80") + "b\xE4\xB8" + "c\xC0\xAF" + "d\xED\xA0\x80" + "e\xFF";
  const std::string text = ViaServer(bad);
  const auto parsed = nlohmann::json::parse(text);  // throws if the text is not valid JSON
  EXPECT_EQ(parsed.get<std::string>(),
            "a\uFFFDb\uFFFD\uFFFDc\uFFFD\uFFFDd\uFFFD\uFFFD\uFFFDe\uFFFD");
}

TEST(JsonText, ExportAndServerWriteTheSameText) {
  for (std::string_view text :
       {std::string_view("plain"), std::string_view("q\"\\\n\x1f"), std::string_view("\xC3\xA9"),
        std::string_view("x\xC3"), std::string_view("\xF4\x90\x80\x80"),
        std::string_view("a\0b", 3)}) {
    const std::string exported = ViaTextWriter(text);
    EXPECT_EQ(exported, ViaServer(text));
    EXPECT_NO_THROW(nlohmann::json::parse(exported)) << exported;
  }
}

TEST(JsonText, NumbersRoundTripAndNonFiniteIsNull) {
  std::string out;
  AppendJsonNumber(out, 0.1);
  out += ',';
  AppendJsonNumber(out, std::nan(""));
  out += ',';
  AppendJsonNumber(out, int64_t{-42});
  out += ',';
  AppendJsonNumber(out, uint64_t{18446744073709551615u});
  EXPECT_EQ(out, "0.1,null,-42,18446744073709551615");
}

}  // namespace
}  // namespace aiprof::exporter
