// The UI API's TypeScript types (web/src/api.ts) checked against the column descriptions
// the server writes them from (analysis/result_columns.h): every column the UI API sends
// is a typed field, and every field is either such a column or one of the row's own keys.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "analysis/communication_analysis.h"
#include "analysis/compare/compare_columns.h"
#include "analysis/critical_path/critical_path_columns.h"
#include "analysis/data_preparation.h"
#include "analysis/memory.h"
#include "analysis/step_breakdown.h"

namespace aiprof {
namespace {

// The fields of `export interface <name> { ... }` in api.ts: name → TypeScript type.
std::map<std::string, std::string> InterfaceFields(const std::string& name) {
  std::ifstream in(std::string(AIPROF_WEB_SOURCE_DIR) + "/src/api.ts");
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  const std::string opening = "export interface " + name + " {";
  const size_t begin = source.find(opening);
  if (begin == std::string::npos) return {};
  const size_t end = source.find("\n}", begin);
  const std::string body = source.substr(begin + opening.size(), end - begin - opening.size());
  std::map<std::string, std::string> fields;
  const std::regex field(R"(^\s*(\w+)\??:\s*([^;]+);)", std::regex::multiline);
  for (auto it = std::sregex_iterator(body.begin(), body.end(), field);
       it != std::sregex_iterator(); ++it) {
    fields[(*it)[1]] = (*it)[2];
  }
  return fields;
}

template <typename Row>
void ExpectTypesMatch(const std::string& interface, analysis::Columns<Row> columns,
                      const std::set<std::string>& own_keys) {
  const std::map<std::string, std::string> fields = InterfaceFields(interface);
  ASSERT_FALSE(fields.empty()) << "web/src/api.ts has no interface " << interface;
  std::set<std::string> described;
  for (const analysis::Column<Row>& column : columns) {
    if (!column.WrittenBy(analysis::kUi)) continue;
    const std::string key(column.key);
    described.insert(key);
    const auto found = fields.find(key);
    ASSERT_NE(found, fields.end()) << interface << " lacks the UI API's column " << key;
    EXPECT_EQ(found->second, column.UiType()) << interface << "." << key;
  }
  for (const auto& [key, type] : fields) {
    EXPECT_TRUE(described.count(key) || own_keys.count(key))
        << interface << "." << key << " is neither a described column nor one of the row's keys";
  }
}

// The keys of the UI columns of `columns`, added to `keys`.
template <typename Row>
std::set<std::string> WithUiKeys(std::set<std::string> keys, analysis::Columns<Row> columns) {
  for (const analysis::Column<Row>& column : columns) {
    if (column.WrittenBy(analysis::kUi)) keys.emplace(column.key);
  }
  return keys;
}

TEST(UiApiTypesTest, StepBreakdownRowFollowsTheStepTraceTimeColumns) {
  ExpectTypesMatch<analysis::StepParts>(
      "BreakdownRow", analysis::kStepTraceTimeColumns,
      {"id", "label", "step", "scope", "begin", "duration", "wait_slice"});
}

TEST(UiApiTypesTest, DataPreparationFollowsItsColumns) {
  ExpectTypesMatch<analysis::DataPreparationStep>(
      "DataPreparationStep", analysis::kDataPreparationColumns, {"id", "label", "tid"});
  ExpectTypesMatch<analysis::DataPreparationResult>("DataPreparation",
                                                    analysis::kDataPreparationSummaryColumns,
                                                    {"inputs", "has_queue_view", "steps"});
}

TEST(UiApiTypesTest, MemoryPoolFollowsItsColumns) {
  ExpectTypesMatch<analysis::MemoryPool>("MemoryPoolInfo", analysis::kMemoryPoolColumns,
                                         {"process", "pid", "role", "allocated", "reserved"});
}

TEST(UiApiTypesTest, CriticalPathRowsFollowTheirColumns) {
  ExpectTypesMatch<analysis::WhatIfRow>("WhatIfSummary", analysis::kWhatIfColumns, {});
  ExpectTypesMatch<analysis::CriticalPathStepRow>(
      "CriticalPathStep", analysis::kCriticalPathStepColumns, {"id", "label", "projected"});
  ExpectTypesMatch<analysis::CriticalPathSegmentRow>("CriticalPathSegment",
                                                     analysis::kCriticalPathSegmentColumns, {});
}

TEST(UiApiTypesTest, MemoryCategoriesAndTopOperatorsFollowTheirColumns) {
  ExpectTypesMatch<analysis::MemoryCategoryPoint>("MemoryCategoryTrack",
                                                  analysis::kMemoryCategoryColumns, {"points"});
  ExpectTypesMatch<analysis::OperatorMemoryRow>("OperatorMemory", analysis::kOperatorMemoryColumns,
                                                {});
}

// An operation is its own columns and its times: each description's fields, the other's
// keys and the slice.
TEST(UiApiTypesTest, CommunicationFollowsTheCommunicationColumns) {
  ExpectTypesMatch<analysis::CommOpTiming>(
      "CommOp", analysis::kCommOpColumns,
      WithUiKeys<analysis::CommTimeInfo>({"slice"}, analysis::kCommTimeColumns));
  ExpectTypesMatch<analysis::CommTimeInfo>(
      "CommOp", analysis::kCommTimeColumns,
      WithUiKeys<analysis::CommOpTiming>({"slice"}, analysis::kCommOpColumns));
  ExpectTypesMatch<analysis::CommMatrixEntry>("CommMatrixLink", analysis::kCommMatrixColumns, {});
}

// A compared name is its columns; a compared step its scope and step keys and its figures.
TEST(UiApiTypesTest, ComparisonRowsFollowTheirColumns) {
  ExpectTypesMatch<analysis::NameDelta>("CompareDelta", analysis::kNameDeltaColumns, {});
  ExpectTypesMatch<analysis::StepDelta>(
      "CompareStep", analysis::kStepDeltaColumns,
      {"device", "rank", "mean", "base_step", "comparison_step", "base_steps", "comparison_steps"});
}

}  // namespace
}  // namespace aiprof
