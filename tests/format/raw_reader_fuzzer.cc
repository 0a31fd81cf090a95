// libFuzzer target: the reader must survive any byte string without crashing, reading out
// of bounds, or looping forever.
#include <cstdint>
#include <cstring>
#include <vector>

#include "format/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace aiprof::format;
  // Raw files are read from page-aligned mappings; mirror that alignment here.
  std::vector<ExtWord> aligned((size + sizeof(ExtWord) - 1) / sizeof(ExtWord));
  if (size > 0) std::memcpy(aligned.data(), data, size);
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(aligned.data()), size);
  FileHeader header;
  if (!RawFileReader::ParseHeader(bytes, &header, nullptr)) return 0;
  uint64_t sink = 0;
  RawFileReader::WalkChunks(bytes, header.header_size, [&](const ChunkView& chunk) {
    if (chunk.type == ChunkType::kEvents) {
      RecordCursor cursor(chunk.payload);
      RecordView record;
      while (cursor.Next(&record)) sink += record.ts() + record.header->ext_words;
    } else if (chunk.type == ChunkType::kStrings) {
      ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
        sink += id + text.size();
      });
    }
    return true;
  });
  return sink == 42 ? 1 : 0;
}
