// libFuzzer target: the reader must survive any byte string without crashing, reading out
// of bounds, or looping forever. Each input is parsed twice: as a raw file image, and
// framed into chunks with valid checksums by fuzz_framing.h (random bytes rarely pass a
// CRC, so without the framing the fuzzer would never reach the record, string and zstd
// paths).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "format/fuzz_framing.h"
#include "format/reader.h"

namespace {

using namespace aiprof::format;

uint64_t Consume(std::span<const uint8_t> bytes) {
  uint64_t sink = 0;
  FileHeader header;
  if (!RawFileReader::ParseHeader(bytes, &header, nullptr)) return 0;
  RawFileReader::WalkChunks(bytes, header.header_size, [&](const ChunkView& chunk) {
    if (chunk.type == ChunkType::kEvents) {
      RecordCursor cursor(chunk.payload);
      RecordView record;
      while (cursor.Next(&record)) {
        sink += record.ts() + record.header->ext_words;
        if (const auto* id = record.ExtAs<RangeId>()) sink += id->id;
      }
    } else if (chunk.type == ChunkType::kStrings) {
      ForEachString(chunk.payload,
                    [&](uint32_t id, std::string_view text) { sink += id + text.size(); });
    }
    return true;
  });
  return sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Raw files are read from page-aligned mappings; mirror that alignment here.
  std::vector<ExtWord> aligned((size + sizeof(ExtWord) - 1) / sizeof(ExtWord));
  if (size > 0) std::memcpy(aligned.data(), data, size);
  uint64_t sink = Consume({reinterpret_cast<const uint8_t*>(aligned.data()), size});
  const std::vector<uint8_t> image = aiprof::testing::FrameRawFile(data, size, 4);
  std::vector<ExtWord> framed((image.size() + sizeof(ExtWord) - 1) / sizeof(ExtWord));
  std::memcpy(framed.data(), image.data(), image.size());
  sink += Consume({reinterpret_cast<const uint8_t*>(framed.data()), image.size()});
  return sink == 42 ? 1 : 0;
}
