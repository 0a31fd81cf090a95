// The UI API's JSON of a described row (server/described_json.h): each UI column under its
// key, times from the run's origin, flags as booleans, unknown values as null, and the
// columns other writers show left out.
#include "server/described_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace aiprof::server {
namespace {

struct Sample {
  std::string name;
  int64_t start_ns = 0;
  int64_t bytes = -1;
  bool done = false;
  double share = 0;
};

constexpr analysis::Column<Sample> kSampleColumns[] = {
    analysis::TextColumn<Sample>("Name", "name", "", analysis::kEveryWriter,
                                 [](const Sample& s) { return s.name; }),
    {"Start(us)", "start", "", analysis::ColumnUnit::kTimestampMicros, analysis::kEveryWriter,
     [](const Sample& s) { return s.start_ns; }},
    {"Bytes", "bytes", "", analysis::ColumnUnit::kBytes, analysis::kEveryWriter,
     [](const Sample& s) { return s.bytes; }, /*null_when_negative=*/true},
    {"Done", "done", "", analysis::ColumnUnit::kFlag, analysis::kUi,
     [](const Sample& s) -> int64_t { return s.done; }},
    analysis::RealColumn<Sample>("Share", "share", "", analysis::ColumnUnit::kRatio,
                                 analysis::kFiles, [](const Sample& s) { return s.share; }),
};

TEST(DescribedJson, RowAsTheUiColumnsFromTheOrigin) {
  const Sample sample{"all\"reduce", 5'000, -1, true, 0.5};
  std::string out;
  OpenDescribedObject<Sample>(out, kSampleColumns, sample, 1'000);
  out += ",\"own\":7}";
  const nlohmann::json row = nlohmann::json::parse(out);
  EXPECT_EQ(row["name"], "all\"reduce");
  EXPECT_EQ(row["start"], 4'000);       // ns from the origin
  EXPECT_TRUE(row["bytes"].is_null());  // not known
  EXPECT_EQ(row["done"], true);
  EXPECT_FALSE(row.contains("share"));  // a files-only column
  EXPECT_EQ(row["own"], 7);
  EXPECT_EQ(row.size(), 5u);
}

TEST(DescribedJson, ColumnsAfterTheWritersOwnKeys) {
  Sample sample;
  sample.bytes = 64;
  std::string out = "{\"id\":1";
  AppendColumns<Sample>(out, kSampleColumns, sample, 0);
  out += '}';
  const nlohmann::json row = nlohmann::json::parse(out);
  EXPECT_EQ(row["id"], 1);
  EXPECT_EQ(row["bytes"], 64);
  EXPECT_EQ(row["done"], false);
}

}  // namespace
}  // namespace aiprof::server
