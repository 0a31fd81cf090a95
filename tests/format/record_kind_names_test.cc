// Every record kind of the catalog has one name (aiprof-dump printed CUDA kinds as kind_80).
#include "format/record_kind_names.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace aiprof::format {
namespace {

TEST(RecordKindNames, NamesEveryCatalogKindOnce) {
  std::set<std::string> names;
  int named = 0;
  for (int kind = 0; kind < 256; ++kind) {
    const char* name = RecordKindName(static_cast<uint8_t>(kind));
    if (name == nullptr) continue;
    ++named;
    EXPECT_TRUE(names.insert(name).second) << "two kinds named " << name;
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(named));
}

TEST(RecordKindNames, NamesTheCudaKinds) {
  for (int kind = static_cast<int>(CudaRecordKind::kKernel);
       kind <= static_cast<int>(CudaRecordKind::kStreamRangesDropped); ++kind) {
    EXPECT_NE(RecordKindName(static_cast<uint8_t>(kind)), nullptr) << kind;
  }
  EXPECT_STREQ(RecordKindName(static_cast<uint8_t>(CudaRecordKind::kKernel)), "cuda_kernel");
  EXPECT_STREQ(RecordKindName(static_cast<uint8_t>(RecordKind::kMark)), CoreKindName(2));
}

}  // namespace
}  // namespace aiprof::format
