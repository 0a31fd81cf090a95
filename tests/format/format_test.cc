#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "format/chunk_writer.h"
#include "format/crc32c.h"
#include "format/reader.h"

namespace aiprof::format {
namespace {

namespace fs = std::filesystem;

class FormatTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aiprof_format_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "events.data").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `chunks` event chunks of `per_chunk` marks plus one strings chunk.
  void WriteSample(int chunks, int per_chunk) {
    std::string error;
    auto writer = ChunkWriter::Create(path_, 1234, {.compress = GetParam()}, &error);
    ASSERT_TRUE(writer) << error;
    StringTableBuffer strings;
    strings.Add(1, "forward");
    strings.Add(2, "backward");
    ASSERT_TRUE(writer->WriteChunk(ChunkType::kStrings, 0, strings.data(), strings.size()));
    uint64_t ts = 1000;
    for (int c = 0; c < chunks; ++c) {
      RecordBuffer records;
      for (int i = 0; i < per_chunk; ++i) {
        records.Add(static_cast<uint8_t>(RecordKind::kRangePush), ts++, 0, 1);
        records.AddWith(static_cast<uint8_t>(RecordKind::kRangeEnd), ts++, 0, 0,
                        RangeId{static_cast<uint64_t>(i + 1), 0});
      }
      ASSERT_TRUE(writer->WriteChunk(ChunkType::kEvents, 77 + c, records.data(), records.size()));
    }
  }

  struct Counts {
    uint64_t records = 0, strings = 0, events_chunks = 0;
    ReadReport report;
  };
  Counts ReadAll() {
    Counts counts;
    RawFileReader reader;
    std::string error;
    EXPECT_TRUE(reader.Open(path_, &error)) << error;
    counts.report = reader.ForEachChunk([&](const ChunkView& chunk) {
      if (chunk.type == ChunkType::kEvents) {
        ++counts.events_chunks;
        RecordCursor cursor(chunk.payload);
        RecordView record;
        while (cursor.Next(&record)) ++counts.records;
        EXPECT_FALSE(cursor.malformed());
      } else if (chunk.type == ChunkType::kStrings) {
        EXPECT_TRUE(
            ForEachString(chunk.payload, [&](uint32_t, std::string_view) { ++counts.strings; }));
      }
      return true;
    });
    return counts;
  }

  fs::path dir_;
  std::string path_;
};

TEST(Crc32cTest, KnownVector) {
  // RFC 3720 test vector: 32 bytes of zeros.
  uint8_t zeros[32] = {};
  EXPECT_EQ(Crc32c(zeros, sizeof(zeros)), 0x8A9136AAu);
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
}

TEST_P(FormatTest, RoundTripKeepsEveryRecordAndField) {
  WriteSample(3, 500);
  RawFileReader reader;
  std::string error;
  ASSERT_TRUE(reader.Open(path_, &error)) << error;
  EXPECT_EQ(reader.header().pid, 1234u);
  std::vector<uint32_t> tids;
  uint64_t expected_ts = 1000;
  auto report = reader.ForEachChunk([&](const ChunkView& chunk) {
    if (chunk.type != ChunkType::kEvents) return true;
    tids.push_back(chunk.tid);
    RecordCursor cursor(chunk.payload);
    RecordView record;
    int i = 0;
    while (cursor.Next(&record)) {
      EXPECT_EQ(record.ts(), expected_ts++);
      if (i % 2 == 0) {
        EXPECT_EQ(record.kind(), static_cast<uint8_t>(RecordKind::kRangePush));
        EXPECT_EQ(record.header->arg, 1u);
      } else {
        const RangeId* id = record.ExtAs<RangeId>();
        EXPECT_NE(id, nullptr);
        EXPECT_EQ(id->id, static_cast<uint64_t>(i / 2 + 1));
        EXPECT_EQ(record.ExtAs<RangeId>(1), nullptr);
      }
      ++i;
    }
    EXPECT_EQ(i, 1000);
    return true;
  });
  EXPECT_TRUE(report.clean()) << report.Summary();
  EXPECT_EQ(report.chunks_read, 4u);
  EXPECT_EQ(tids, (std::vector<uint32_t>{77, 78, 79}));
}

TEST_P(FormatTest, TruncatedFileYieldsIntactChunksAndReportsTheRest) {
  WriteSample(4, 300);
  auto full = fs::file_size(path_);
  fs::resize_file(path_, full - 100);
  Counts counts = ReadAll();
  EXPECT_EQ(counts.strings, 2u);
  EXPECT_EQ(counts.events_chunks, 3u);
  EXPECT_EQ(counts.records, 3u * 600u);
  EXPECT_TRUE(counts.report.truncated);
  EXPECT_EQ(counts.report.chunks_skipped, 1u);
  EXPECT_NE(counts.report.Summary().find("file ends inside chunk"), std::string::npos);
}

TEST_P(FormatTest, CorruptPayloadSkipsOnlyThatChunk) {
  WriteSample(4, 300);
  // Flip a byte inside the second events chunk's payload.
  RawFileReader probe;
  std::string error;
  ASSERT_TRUE(probe.Open(path_, &error));
  uint64_t target = 0;
  int seen = 0;
  probe.ForEachChunk([&](const ChunkView& chunk) {
    if (chunk.type == ChunkType::kEvents && ++seen == 2) target = chunk.file_offset + 40;
    return true;
  });
  ASSERT_GT(target, 0u);
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(target));
    f.put('\x5A');
  }
  Counts counts = ReadAll();
  EXPECT_EQ(counts.events_chunks, 3u);
  EXPECT_EQ(counts.report.chunks_skipped, 1u);
  EXPECT_FALSE(counts.report.truncated);
  EXPECT_NE(counts.report.Summary().find("checksum mismatch"), std::string::npos);
}

TEST_P(FormatTest, CorruptHeaderResynchronisesAtNextChunk) {
  WriteSample(4, 300);
  RawFileReader probe;
  std::string error;
  ASSERT_TRUE(probe.Open(path_, &error));
  uint64_t target = 0;
  int seen = 0;
  probe.ForEachChunk([&](const ChunkView& chunk) {
    if (chunk.type == ChunkType::kEvents && ++seen == 1) target = chunk.file_offset;
    return true;
  });
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(target + 8));  // stored_size field
    f.put('\x7F');
  }
  Counts counts = ReadAll();
  EXPECT_EQ(counts.events_chunks, 3u);
  EXPECT_EQ(counts.records, 3u * 600u);
  EXPECT_NE(counts.report.Summary().find("corrupt chunk header"), std::string::npos);
}

TEST_P(FormatTest, ForeignFileIsRejectedWithAClearMessage) {
  { std::ofstream(path_) << "{\"traceEvents\": []}\n" << std::string(100, ' '); }
  RawFileReader reader;
  std::string error;
  EXPECT_FALSE(reader.Open(path_, &error));
  EXPECT_NE(error.find("not an aiprof raw data file"), std::string::npos) << error;
  EXPECT_NE(error.find(path_), std::string::npos) << error;
}

TEST_P(FormatTest, RandomGarbageNeverCrashes) {
  WriteSample(3, 100);
  std::ifstream in(path_, std::ios::binary);
  std::vector<uint8_t> original((std::istreambuf_iterator<char>(in)), {});
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::vector<ExtWord> aligned(original.size() / 16 + 1);
    auto* bytes = reinterpret_cast<uint8_t*>(aligned.data());
    std::memcpy(bytes, original.data(), original.size());
    for (int flips = 0; flips < 1 + round % 20; ++flips) {
      bytes[64 + rng() % (original.size() - 64)] = static_cast<uint8_t>(rng());
    }
    size_t size = original.size() - rng() % 64;
    uint64_t records = 0;
    RawFileReader::WalkChunks({bytes, size}, 64, [&](const ChunkView& chunk) {
      if (chunk.type == ChunkType::kEvents) {
        RecordCursor cursor(chunk.payload);
        RecordView record;
        while (cursor.Next(&record)) ++records;
      }
      return true;
    });
    EXPECT_LE(records, 600u);
  }
}

INSTANTIATE_TEST_SUITE_P(PlainAndZstd, FormatTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "zstd" : "plain"; });

}  // namespace
}  // namespace aiprof::format
