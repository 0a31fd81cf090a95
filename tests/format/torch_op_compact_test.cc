// The kOpCompact word (src/format/records_torch.h): what fits it, and that every field
// comes back as it went in at the edges of its bit range.
#include <gtest/gtest.h>

#include <cstdint>

#include "format/records_torch.h"

namespace aiprof::format {
namespace {

constexpr uint64_t kMaxRecordId = (uint64_t{1} << 48) - 1;
constexpr int64_t kMaxSequenceNr = 0xfffffffe;  // stored plus one in 32 bits
constexpr uint64_t kMaxThread = 0xffff;
constexpr uint64_t kMaxDuration = 0xffffffff;

TEST(TorchOpCompact, FieldsComeBackAtTheEdgesOfTheirRanges) {
  struct Case {
    uint64_t record_id;
    int64_t sequence_nr;
    uint64_t thread_id;
    uint64_t duration;
  } cases[] = {
      {1, -1, 1, 0}, {kMaxRecordId, kMaxSequenceNr, kMaxThread, kMaxDuration}, {4097, 0, 2, 1234}};
  constexpr uint64_t kStart = 0xfedcba9876543210;  // any start: the end is start + duration
  for (const Case& c : cases) {
    ASSERT_TRUE(TorchOpIdsFitCompact(c.record_id, c.sequence_nr, 0, c.thread_id));
    ASSERT_TRUE(TorchDurationFitsCompact(c.duration));
    TorchOpCompact word = PackTorchOpCompact(c.record_id, c.sequence_nr, c.thread_id);
    word.timing = TorchOpCompactTiming(word, c.duration);
    EXPECT_EQ(UnpackTorchOpIds(word).record_id, c.record_id);
    EXPECT_EQ(UnpackTorchOpIds(word).sequence_nr, c.sequence_nr);
    EXPECT_EQ(UnpackTorchOpThread(word), c.thread_id);
    EXPECT_EQ(UnpackTorchOpEnd(word, kStart), kStart + c.duration);
  }
}

TEST(TorchOpCompact, WhatDoesNotFitIsLeftToKOp) {
  EXPECT_FALSE(TorchOpIdsFitCompact(kMaxRecordId + 1, 0, 0, 1));
  EXPECT_FALSE(TorchOpIdsFitCompact(1, kMaxSequenceNr + 1, 0, 1));
  EXPECT_FALSE(TorchOpIdsFitCompact(1, int64_t{1} << 40, 0, 1));
  EXPECT_FALSE(TorchOpIdsFitCompact(1, -2, 0, 1));
  EXPECT_FALSE(TorchOpIdsFitCompact(1, 5, 1, 1));  // a backward operator's forward thread
  EXPECT_FALSE(TorchOpIdsFitCompact(1, 5, 0, kMaxThread + 1));
  EXPECT_FALSE(TorchDurationFitsCompact(kMaxDuration + 1));
  EXPECT_FALSE(TorchDurationFitsCompact(~uint64_t{0}));  // an end before the start
}

}  // namespace
}  // namespace aiprof::format
